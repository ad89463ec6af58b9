'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import {
  Badge,
  Button,
  Card,
  Checkbox,
  CopyField,
  Field,
  FormDialog,
  Input,
  PageHeader,
  Select,
  Table,
  Td,
  Thead,
  Tr,
} from '@/components/ui';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { CardList } from './states';
import { EditDeleteCell, DeleteDialog } from './row-actions';
import { useFormError } from './use-form-error';
import type { SocialProvider } from '@/lib/generated/dashboard';
import type { InstanceResponse } from '@/lib/console/types';

/** The dashboard API's social provider (server/social/schemas.ts); the client secret is never returned. */
const KINDS = ['google', 'microsoft', 'github', 'apple', 'facebook', 'linkedin', 'discord', 'gitlab', 'slack', 'oidc'] as const;
/** Latchkey's own stand-in provider (server/social/mock.ts): offered on test instances only, the server refuses it elsewhere. */
const TEST_KINDS = [...KINDS, 'mock'] as const;

/** `…/social`: the instance's social sign-in providers (buttons on the hosted pages). */
export function SocialProviders() {
  const t = useTranslations('social.console');
  const { canWrite } = useConsole();
  const instance = useInstance();
  const base = useInstanceApi('social_providers');
  const list = useDashboard<InstanceResponse<'GET /social_providers'>>(base);
  const invalidate = useInvalidate();
  const [editing, setEditing] = useState<SocialProvider | 'new' | null>(null);
  const [deleting, setDeleting] = useState<SocialProvider | null>(null);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description')}
        actions={canWrite && <Button onClick={() => setEditing('new')}>{t('add')}</Button>}
      />
      <CopyField label={t('callbackUrl')} value={`${instance.fapi_url}/v1/oauth_callback`} />
      <Card className="overflow-hidden">
        <CardList
          data={list.data?.data}
          error={list.error}
          onRetry={list.reload}
          columns={4}
          rows={2}
          emptyTitle={t('empty')}
          emptyDescription={t('emptyDescription')}
        >
          {(items) => (
            <Table caption={t('title')}>
              <Thead
                columns={[t('displayName'), t('strategy'), t('clientId'), t('status')]}
                actions={canWrite ? t('actions') : undefined}
              />
              <tbody>
                {items.map((p) => (
                  <Tr key={p.id}>
                    <Td className="font-medium">{p.display_name}</Td>
                    <Td className="font-mono text-xs">{p.strategy}</Td>
                    <Td className="break-all font-mono text-xs">{p.client_id}</Td>
                    <Td>
                      <Badge tone={p.enabled ? 'green' : 'neutral'}>{p.enabled ? t('enabled') : t('disabled')}</Badge>
                    </Td>
                    {canWrite && (
                      <EditDeleteCell
                        onEdit={() => setEditing(p)}
                        onDelete={() => setDeleting(p)}
                        editLabel={t('edit')}
                        deleteLabel={t('delete')}
                      />
                    )}
                  </Tr>
                ))}
              </tbody>
            </Table>
          )}
        </CardList>
      </Card>
      {editing !== null && (
        <ProviderDialog
          provider={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void invalidate(base);
          }}
        />
      )}
      <DeleteDialog
        item={deleting}
        path={base}
        onClose={() => setDeleting(null)}
        onDeleted={() => void invalidate(base)}
        title={t('deleteTitle')}
        description={t('deleteConfirm', { name: deleting?.display_name ?? '' })}
        confirmLabel={t('delete')}
      />
    </div>
  );
}

/** Mounted on opening, so its state starts from `provider` (null: a new provider). */
function ProviderDialog({ provider, onClose, onSaved }: { provider: SocialProvider | null; onClose(): void; onSaved(): void }) {
  const t = useTranslations('social.console');
  const instance = useInstance();
  const base = useInstanceApi('social_providers');
  const form = useFormError(['name', 'display_name', 'client_id', 'client_secret', 'issuer', 'tenant_id']);
  const [kind, setKind] = useState<SocialProvider['kind']>(provider?.kind ?? 'google');
  const [name, setName] = useState(provider?.name ?? '');
  const [displayName, setDisplayName] = useState(provider?.display_name ?? '');
  const [clientId, setClientId] = useState(provider?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [issuer, setIssuer] = useState(provider?.issuer ?? '');
  const [tenantId, setTenantId] = useState('');
  const [enabled, setEnabled] = useState(provider?.enabled ?? true);

  const mock = kind === 'mock';
  const opt = (v: string) => (v.trim() ? v.trim() : undefined);
  const submit = form.handleSubmit(async () => {
    const common = {
      display_name: opt(displayName),
      client_id: mock ? undefined : opt(clientId),
      client_secret: mock ? undefined : secret || undefined,
      // Google's and Microsoft's issuers are known; only a custom OpenID provider names its own.
      issuer: kind === 'oidc' ? opt(issuer) : undefined,
      tenant_id: kind === 'microsoft' ? opt(tenantId) : undefined,
      enabled,
    };
    if (provider) await mutate('PATCH', `${base}/${provider.id}`, common);
    else await mutate('POST', base, { kind, name: opt(name), ...common });
    onSaved();
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={provider ? t('editTitle') : t('addTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={provider ? t('save') : t('add')}
      busy={form.busy}
    >
      {!provider && (
        <Field label={t('kind')}>
          {(p) => (
            <Select {...p} value={kind} onChange={(e) => setKind(e.target.value as SocialProvider['kind'])}>
              {(instance.environment === 'test' ? TEST_KINDS : KINDS).map((k) => (
                <option key={k} value={k}>
                  {t(`kinds.${k}`)}
                </option>
              ))}
            </Select>
          )}
        </Field>
      )}
      {!provider && (
        <Field label={t('name')} error={form.fieldError('name')}>
          {(p) => (
            <Input
              {...p}
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder={kind === 'oidc' ? 'acme' : kind}
              maxLength={40}
            />
          )}
        </Field>
      )}
      <Field label={t('displayName')} error={form.fieldError('display_name')}>
        {(p) => <Input {...p} value={displayName} onChange={(e) => setDisplayName(e.target.value)} maxLength={64} />}
      </Field>
      {mock ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('mockHint')}</p>
      ) : (
        <>
          <Field label={t('clientId')} error={form.fieldError('client_id')}>
            {(p) => <Input {...p} value={clientId} onChange={(e) => setClientId(e.target.value)} required maxLength={512} />}
          </Field>
          <Field label={t('clientSecret')} hint={t('clientSecretHint')} error={form.fieldError('client_secret')}>
            {(p) => (
              <Input
                {...p}
                type="password"
                autoComplete="off"
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
                maxLength={2048}
              />
            )}
          </Field>
        </>
      )}
      {kind === 'oidc' && (
        <Field label={t('issuer')} error={form.fieldError('issuer')}>
          {(p) => <Input {...p} value={issuer} onChange={(e) => setIssuer(e.target.value)} placeholder="https://id.example.com" />}
        </Field>
      )}
      {kind === 'microsoft' && (
        <Field label={t('tenantId')} error={form.fieldError('tenant_id')}>
          {(p) => <Input {...p} value={tenantId} onChange={(e) => setTenantId(e.target.value)} />}
        </Field>
      )}
      <Checkbox label={t('enabled')} checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
    </FormDialog>
  );
}
