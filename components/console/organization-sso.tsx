'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Badge, Button, Card, CardHeader, ConfirmDialog, Table, Td, Thead, Tr } from '@/components/ui';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { CardList } from './states';
import { SsoConnectionDialog, type SsoConnection } from './sso-connection-dialog';
import type { InstanceResponse } from '@/lib/console/types';

/** Shapes of the dashboard API's SSO calls (server/sso/schemas.ts). */
type Connection = SsoConnection;

/**
 * The organization page's SSO section: its enterprise connections (SAML or OIDC), the URLs
 * to give the identity provider; create and edit (SsoConnectionDialog), activate, delete.
 */
export function OrganizationSso({ base }: { base: string }) {
  const t = useTranslations('sso');
  const { canWrite } = useConsole();
  const list = useDashboard<InstanceResponse<'GET /organizations/{id}/sso_connections'>>(`${base}/sso_connections?limit=100`);
  const invalidate = useInvalidate();
  const [deleting, setDeleting] = useState<Connection | null>(null);
  const [editing, setEditing] = useState<Connection | 'new' | null>(null);
  const path = (c: Connection) => `${base}/sso_connections/${encodeURIComponent(c.id)}`;

  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={
          canWrite && (
            <Button size="sm" onClick={() => setEditing('new')}>
              {t('add')}
            </Button>
          )
        }
      />
      <CardList
        data={list.data?.data}
        error={list.error}
        onRetry={list.reload}
        columns={4}
        rows={1}
        emptyTitle={t('emptyTitle')}
        emptyDescription={t('emptyDescription')}
      >
        {(items) => (
          <Table caption={t('title')}>
            <Thead columns={[t('name'), t('domains'), t('idpUrls'), t('status')]} actions={canWrite && t('actions')} />
            <tbody>
              {items.map((c) => (
                <Tr key={c.id}>
                  <Td id={`sso-${c.id}`} className="font-medium">
                    {c.name} <Badge tone="neutral">{c.provider.toUpperCase()}</Badge>
                  </Td>
                  <Td className="text-zinc-600 dark:text-zinc-400">{c.domains.join(', ')}</Td>
                  <Td className="font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">
                    {c.saml ? (
                      <>
                        {c.saml.sp_metadata_url}
                        <br />
                        {c.saml.sp_acs_url}
                      </>
                    ) : (
                      c.oidc?.redirect_uri
                    )}
                  </Td>
                  <Td>
                    <Badge tone={c.active ? 'green' : 'neutral'}>{c.active ? t('active') : t('inactive')}</Badge>
                  </Td>
                  {canWrite && (
                    <Td className="whitespace-nowrap text-right">
                      <Button variant="ghost" size="sm" aria-describedby={`sso-${c.id}`} onClick={() => setEditing(c)}>
                        {t('edit')}
                      </Button>
                      <Button
                        variant="ghost"
                        size="sm"
                        aria-describedby={`sso-${c.id}`}
                        onClick={async () => {
                          await mutate('PATCH', path(c), { active: !c.active });
                          void invalidate(`${base}/sso_connections`);
                        }}
                      >
                        {c.active ? t('deactivate') : t('activate')}
                      </Button>
                      <Button variant="ghost" size="sm" aria-describedby={`sso-${c.id}`} onClick={() => setDeleting(c)}>
                        {t('delete')}
                      </Button>
                    </Td>
                  )}
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardList>
      {editing !== null && (
        <SsoConnectionDialog
          base={base}
          connection={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void invalidate(`${base}/sso_connections`);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        title={t('deleteTitle')}
        description={t('deleteDescription', { name: deleting?.name ?? '' })}
        confirmLabel={t('delete')}
        onConfirm={async () => {
          if (deleting) await mutate('DELETE', path(deleting));
          void invalidate(`${base}/sso_connections`);
        }}
      />
    </Card>
  );
}
