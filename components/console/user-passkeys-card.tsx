'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { ActionCell, Badge, Card, CardHeader, ConfirmDialog, Td, Tr } from '@/components/ui';
import { useDates } from '@/lib/console/format';
import type { InstanceResponse } from '@/lib/console/types';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { CardTable } from './states';
import { useUserChanged, type UserPageProps } from './user-account-cards';

type Passkey = InstanceResponse<'GET /users/{id}/passkeys'>['data'][number];

/** The user page's passkeys: each one's name, when it was added and last used; admins delete one (a lost device). */
export function PasskeysCard({ base }: UserPageProps) {
  const userChanged = useUserChanged(base);
  const t = useTranslations('passkeys.console');
  const dates = useDates();
  const { canWrite } = useConsole();
  const passkeys = useDashboard<InstanceResponse<'GET /users/{id}/passkeys'>>(`${base}/passkeys`);
  const [confirm, setConfirm] = useState<Passkey | null>(null);
  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardTable
        data={passkeys.data?.data}
        error={passkeys.error}
        onRetry={passkeys.reload}
        columns={3}
        rows={1}
        emptyTitle={t('empty')}
        caption={t('title')}
        headings={[t('title'), t('lastUsed'), t('created')]}
        actions={canWrite && t('delete')}
        row={(p) => (
          <Tr key={p.id}>
            <Td>
              <span className="font-medium" title={p.id}>
                {p.name}
              </span>
              {p.backed_up && (
                <span className="ml-2">
                  <Badge>{t('synced')}</Badge>
                </span>
              )}
              {p.status === 'disabled' && (
                <span className="ml-2" title={t('disabledHint')}>
                  <Badge tone="red">{t('disabled')}</Badge>
                </span>
              )}
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">
              {p.last_used_at ? dates.relative(p.last_used_at) : t('never')}
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(p.created_at)}</Td>
            {canWrite && (
              <ActionCell onClick={() => setConfirm(p)} aria-label={t('deleteLabel', { name: p.name })}>
                {t('delete')}
              </ActionCell>
            )}
          </Tr>
        )}
      />
      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title={t('deleteTitle')}
        description={t('deleteBody', { name: confirm?.name ?? '' })}
        confirmLabel={t('delete')}
        onConfirm={async () => {
          await mutate('DELETE', `${base}/passkeys/${encodeURIComponent(confirm!.id)}`);
          await userChanged();
        }}
      />
    </Card>
  );
}
