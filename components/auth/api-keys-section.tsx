'use client';

import { useFormatter, useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { ActionCell, AsyncContent, Button, Card, CardHeader, ConfirmDialog, CopyField, EmptyState, Field, FormDialog, Input, Select, ShownOnceDialog, Skeleton, Table, Td, Thead, Tr } from '@/components/ui';
import type { ApiKey, CreatedApiKey } from '@/lib/console/api-keys';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { SectionError, useList } from './hosted-list';
import { useFormErrors } from './use-form-errors';

const FIELDS = ['name', 'description', 'expires_in_seconds'] as const;
const EXPIRY_OPTIONS = [
  { value: '', key: 'never' },
  { value: String(30 * 86400), key: 'days30' },
  { value: String(90 * 86400), key: 'days90' },
  { value: String(365 * 86400), key: 'year' },
] as const;
const LIST_QUERY = { limit: '100' };

/** The hosted profile's API keys (`ak_`): the user's own keys for the customer's API — list, create (shown once), revoke. */
export function ApiKeysSection() {
  const t = useTranslations('apikeys.profile');
  const { call, client } = useHosted();
  const describe = useFapiError();
  const format = useFormatter();
  const { list, setList, error, load } = useList<ApiKey>('/v1/me/api_keys', LIST_QUERY);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const impersonated = !!client?.session?.impersonated_by;

  async function revoke() {
    if (!revoking) return;
    await call(`/v1/me/api_keys/${revoking.id}/revoke`, { method: 'POST', json: {} });
    setList((l) => l?.filter((x) => x.id !== revoking.id) ?? null);
  }

  const date = (ms: number) => format.dateTime(ms, { dateStyle: 'medium' });
  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={
          <Button size="sm" onClick={() => setCreating(true)} disabled={impersonated}>
            {t('create')}
          </Button>
        }
      />
      <AsyncContent
        data={list}
        error={error && <SectionError message={error} />}
        loading={<Skeleton className="mx-5 my-4 h-10 rounded-md" />}
        empty={<EmptyState title={t('emptyTitle')} description={t('emptyDescription')} />}
      >
        {(keys) => (
          <Table caption={t('title')}>
            <Thead columns={[t('name'), t('expires'), t('lastUsed')]} actions={t('actions')} />
            <tbody>
              {keys.map((key) => (
                <Tr key={key.id}>
                  <Td className="font-medium">
                    {key.name}
                    {key.description && <span className="block text-xs font-normal text-zinc-500">{key.description}</span>}
                  </Td>
                  <Td className="whitespace-nowrap">{key.expiration ? date(key.expiration) : t('never')}</Td>
                  <Td className="whitespace-nowrap">{key.last_used_at ? format.relativeTime(key.last_used_at, Date.now()) : t('never')}</Td>
                  <ActionCell aria-label={t('revokeLabel', { name: key.name })} onClick={() => setRevoking(key)}>
                    {t('revoke')}
                  </ActionCell>
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </AsyncContent>
      {creating && <CreateApiKeyDialog onClose={() => setCreating(false)} onCreated={load} />}
      <ConfirmDialog
        open={revoking !== null}
        title={t('revokeTitle')}
        description={t('revokeBody', { name: revoking?.name ?? '' })}
        confirmLabel={t('revokeConfirm')}
        describeError={(e) => describe(e).message}
        onConfirm={revoke}
        onClose={() => setRevoking(null)}
      />
    </Card>
  );
}

function CreateApiKeyDialog({ onClose, onCreated }: { onClose(): void; onCreated(): void }) {
  const t = useTranslations('apikeys.profile');
  const te = useTranslations('hosted.errors');
  const { call } = useHosted();
  const { formError, fieldErrors, setFieldErrors, reset, busy, run } = useFormErrors(FIELDS);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [expiry, setExpiry] = useState('');
  const [secret, setSecret] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    reset();
    if (!name.trim()) return setFieldErrors({ name: te('required') });
    void run(async () => {
      const created = await call<CreatedApiKey>('/v1/me/api_keys', {
        json: { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}), ...(expiry ? { expires_in_seconds: Number(expiry) } : {}) },
      });
      setSecret(created.secret);
      onCreated();
    });
  }

  if (secret) {
    return (
      <ShownOnceDialog value={secret} onClose={onClose} title={t('createdTitle')} warning={t('createdOnce')} doneLabel={t('done')}>
        {(value) => <CopyField value={value} label={t('secretLabel')} />}
      </ShownOnceDialog>
    );
  }
  return (
    <FormDialog open onClose={onClose} title={t('createTitle')} onSubmit={submit} error={formError} submitLabel={t('createSubmit')} busy={busy}>
      <Field label={t('nameLabel')} hint={t('nameHint')} error={fieldErrors.name}>
        {(p) => <Input {...p} name="name" autoFocus maxLength={256} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label={t('descriptionLabel')} error={fieldErrors.description}>
        {(p) => <Input {...p} name="description" maxLength={1024} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <Field label={t('expiry')} error={fieldErrors.expires_in_seconds}>
        {(p) => (
          <Select {...p} name="expires_in_seconds" value={expiry} onChange={(e) => setExpiry(e.target.value)}>
            {EXPIRY_OPTIONS.map((o) => (
              <option key={o.key} value={o.value}>
                {t(`expiryOptions.${o.key}`)}
              </option>
            ))}
          </Select>
        )}
      </Field>
    </FormDialog>
  );
}
