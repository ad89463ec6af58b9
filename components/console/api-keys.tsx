'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import {
  ActionCell,
  Badge,
  Button,
  Card,
  ConfirmDialog,
  Field,
  FormDialog,
  Input,
  PageHeader,
  SecretValue,
  Select,
  ShownOnceDialog,
  Table,
  Td,
  Thead,
  Tr,
  cn,
} from '@/components/ui';
import type { ApiKey, CreatedApiKey } from '@/lib/console/api-keys';
import { useDates } from '@/lib/console/format';
import { api, query } from '@/lib/console/paths';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { SearchBox } from './search-box';
import { CardList } from './states';
import { UserPicker } from './user-picker';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';

const PAGE_SIZE = 20;

/** `…/api-keys`: an instance's end-user API keys, filtered by subject; mint (secret once) and revoke. */
export function ApiKeysList() {
  const t = useTranslations('apikeys.console');
  const dates = useDates();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const base = `${api.instance(account.id, instance.id)}/api_keys`;
  const [subject, setSubject] = useState('');
  const cursor = useCursorPages([subject]);
  const keys = useDashboard<InstanceResponse<'GET /api_keys'>>(
    `${base}${query({ subject, limit: PAGE_SIZE, starting_after: cursor.current })}`,
  );
  const invalidate = useInvalidate();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description')}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('create')}</Button>}
      />
      <SearchBox label={t('filter')} placeholder={t('filterPlaceholder')} onSearch={setSubject} />
      <Card>
        <CardList
          data={keys.data?.data}
          error={keys.error}
          onRetry={keys.reload}
          columns={6}
          rows={4}
          emptyTitle={t('emptyTitle')}
          emptyDescription={subject ? t('noMatches', { subject }) : t('emptyDescription')}
        >
          {(items) => (
            <Table caption={t('title')}>
              <Thead
                columns={[t('name'), t('subject'), t('scopes'), t('created'), t('lastUsed'), t('status')]}
                actions={canWrite && t('actions')}
              />
              <tbody aria-busy={keys.loading || undefined}>
                {items.map((key) => (
                  <Tr key={key.id} className={cn(keys.loading && 'opacity-60')}>
                    <Td id={`apikey-name-${key.id}`} className="font-medium">
                      {key.name}
                      <span className="block font-mono text-xs text-zinc-500 dark:text-zinc-400">{key.id}</span>
                    </Td>
                    <Td className="font-mono text-xs whitespace-nowrap">{key.subject}</Td>
                    <Td>
                      <span className="flex max-w-xs flex-wrap gap-1">
                        {key.scopes.slice(0, 4).map((s) => (
                          <Badge key={s}>{s}</Badge>
                        ))}
                        {key.scopes.length > 4 && <Badge>{t('moreScopes', { count: key.scopes.length - 4 })}</Badge>}
                      </span>
                    </Td>
                    <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(key.created_at)}</Td>
                    <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.relative(key.last_used_at)}</Td>
                    <Td>
                      {key.revoked ? (
                        <Badge tone="red">{t('revoked')}</Badge>
                      ) : key.expiration !== null && key.expiration <= Date.now() ? (
                        <Badge tone="amber">{t('expired')}</Badge>
                      ) : (
                        <Badge tone="green">{t('active')}</Badge>
                      )}
                    </Td>
                    {canWrite && (
                      <ActionCell onClick={() => setRevoking(key)} disabled={key.revoked} aria-describedby={`apikey-name-${key.id}`}>
                        {t('revoke')}
                      </ActionCell>
                    )}
                  </Tr>
                ))}
              </tbody>
            </Table>
          )}
        </CardList>
        <Pager state={cursor} page={keys.data} loading={keys.loading} />
      </Card>
      {creating && (
        <CreateApiKeyDialog
          path={base}
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            void invalidate(base);
          }}
        />
      )}
      <ShownOnceDialog
        value={created}
        onClose={() => setCreated(null)}
        title={t('createdTitle')}
        warning={t('createdWarning')}
        doneLabel={t('done')}
      >
        {(key) => <SecretValue value={key.secret} label={t('secret')} />}
      </ShownOnceDialog>
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={t('revokeTitle')}
        description={revoking ? t('revokeDescription', { name: revoking.name }) : ''}
        confirmLabel={t('revoke')}
        onConfirm={async () => {
          if (!revoking) return;
          await mutate('POST', `${base}/${revoking.id}/revoke`, {});
          void invalidate(base);
        }}
      />
    </div>
  );
}

function CreateApiKeyDialog({ path, onClose, onCreated }: { path: string; onClose: () => void; onCreated: (key: CreatedApiKey) => void }) {
  const t = useTranslations('apikeys.console');
  const form = useFormError(['subject', 'name', 'description', 'scopes', 'expires_in_seconds']);
  const [owner, setOwner] = useState<'user' | 'organization'>('user');
  const [subject, setSubject] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [scopes, setScopes] = useState('');
  const [days, setDays] = useState('');

  const submit = form.handleSubmit(async () => {
    const list = scopes.split(/[\s,]+/).filter(Boolean);
    const key = await mutate<CreatedApiKey>('POST', path, {
      subject: subject.trim(),
      name,
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(list.length ? { scopes: list } : {}),
      ...(days.trim() ? { expires_in_seconds: Math.round(Number(days) * 86400) } : {}),
    });
    onCreated(key);
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('createTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('createSubmit')}
      busy={form.busy}
    >
      <Field label={t('owner')}>
        {(p) => (
          <Select
            {...p}
            value={owner}
            onChange={(e) => {
              setOwner(e.target.value as 'user' | 'organization');
              setSubject('');
            }}
            options={['user', 'organization'] as const}
            optionLabel={(o) => t(`owners.${o}`)}
          />
        )}
      </Field>
      <Field label={t('subject')} hint={owner === 'user' ? t('subjectUserHint') : t('subjectHint')} error={form.fieldError('subject')}>
        {(p) =>
          owner === 'user' ? (
            <UserPicker control={p} value={subject} onChange={setSubject} />
          ) : (
            <Input
              {...p}
              name="subject"
              required
              value={subject}
              onChange={(e) => setSubject(e.target.value)}
              spellCheck={false}
              placeholder="org_…"
            />
          )
        }
      </Field>
      <Field label={t('name')} error={form.fieldError('name')}>
        {(p) => <Input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label={t('descriptionLabel')} error={form.fieldError('description')}>
        {(p) => <Input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <Field label={t('scopes')} hint={t('scopesHint')} error={form.fieldError('scopes')}>
        {(p) => <Input {...p} name="scopes" value={scopes} onChange={(e) => setScopes(e.target.value)} spellCheck={false} />}
      </Field>
      <Field label={t('expiresInDays')} hint={t('expiresInDaysHint')} error={form.fieldError('expires_in_seconds')}>
        {(p) => <Input {...p} name="expires_in_days" type="number" min={1} value={days} onChange={(e) => setDays(e.target.value)} />}
      </Field>
    </FormDialog>
  );
}
