'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import {
  Badge,
  Button,
  Card,
  CardHeader,
  ConfirmDialog,
  Dialog,
  Field,
  FormDialog,
  Input,
  SecretValue,
  ShownOnceDialog,
  Table,
  Td,
  Thead,
  Tr,
} from '@/components/ui';
import { query } from '@/lib/console/paths';
import { useDates } from '@/lib/console/format';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import type { InstanceResponse } from '@/lib/console/types';
import type { OAuthApplication } from '@/lib/generated/dashboard';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { CardList } from './states';
import { useFormError } from './use-form-error';

type TokenList = InstanceResponse<'GET /oauth_initial_access_tokens'>;
type Token = TokenList['data'][number];
type Created = InstanceResponse<'POST /oauth_initial_access_tokens'>;
type Deliveries = InstanceResponse<'GET /oauth_applications/{id}/logout_deliveries'>;

const STATUS_TONE = { active: 'green', expired: 'neutral', used_up: 'neutral', revoked: 'red' } as const;
const DELIVERY_TONE = { pending: 'amber', succeeded: 'green', failed: 'red' } as const;
const DAY_S = 86_400;

/** The OAuth applications page's section of initial access tokens: what lets a client register itself (RFC 7591). */
export function InitialAccessTokens() {
  const t = useTranslations('oauth.console.registration');
  const dates = useDates();
  const { canWrite } = useConsole();
  const instance = useInstance();
  const base = useInstanceApi('oauth_initial_access_tokens');
  const cursor = useCursorPages([]);
  const list = useDashboard<TokenList>(`${base}${query({ limit: 20, starting_after: cursor.current })}`);
  const invalidate = useInvalidate();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<Token | null>(null);
  const [token, setToken] = useState<string | null>(null);

  return (
    <Card className="overflow-hidden">
      <CardHeader
        title={t('title')}
        description={t('description', { endpoint: `${instance.fapi_url}/oauth2/register` })}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('create')}</Button>}
      />
      <CardList
        data={list.data?.data}
        error={list.error}
        onRetry={list.reload}
        columns={5}
        rows={2}
        emptyTitle={t('emptyTitle')}
        emptyDescription={t('emptyDescription')}
      >
        {(items) => (
          <Table caption={t('title')}>
            <Thead
              columns={[t('name'), t('status'), t('uses'), t('expires'), t('lastUsed')]}
              actions={canWrite ? t('actions') : undefined}
            />
            <tbody>
              {items.map((k) => (
                <Tr key={k.id}>
                  <Td className="font-medium">{k.name}</Td>
                  <Td>
                    <Badge tone={STATUS_TONE[k.status]}>{t(`statuses.${k.status}`)}</Badge>
                  </Td>
                  <Td>
                    {k.max_uses === null
                      ? t('usesUnlimited', { count: k.use_count })
                      : t('usesOf', { count: k.use_count, max: k.max_uses })}
                  </Td>
                  <Td>{k.expires_at === null ? t('noExpiry') : dates.dateTime(k.expires_at)}</Td>
                  <Td>{dates.dateTime(k.last_used_at)}</Td>
                  {canWrite && (
                    <Td>
                      {k.status !== 'revoked' && (
                        <Button variant="secondary" size="sm" onClick={() => setRevoking(k)}>
                          {t('revoke')}
                        </Button>
                      )}
                    </Td>
                  )}
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardList>
      <Pager state={cursor} page={list.data} loading={list.loading} />
      {creating && (
        <CreateTokenDialog
          onClose={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setToken(created.token);
            void invalidate(base);
          }}
        />
      )}
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={t('revokeTitle')}
        description={t('revokeDescription', { name: revoking?.name ?? '' })}
        confirmLabel={t('revoke')}
        onConfirm={async () => {
          await mutate('POST', `${base}/${revoking!.id}/revoke`);
          await invalidate(base);
        }}
      />
      <ShownOnceDialog
        value={token}
        onClose={() => setToken(null)}
        title={t('tokenTitle')}
        warning={t('tokenWarning')}
        doneLabel={t('done')}
      >
        {(value) => <SecretValue value={value} label={t('token')} />}
      </ShownOnceDialog>
    </Card>
  );
}

/** Empty is "none" (no expiry, no limit); anything else goes as typed, so the API's 422 names the field. */
const numberOrNull = (text: string, scale = 1) => (text.trim() === '' ? null : Number(text) * scale);

function CreateTokenDialog({ onClose, onCreated }: { onClose(): void; onCreated(created: Created): void }) {
  const t = useTranslations('oauth.console.registration');
  const base = useInstanceApi('oauth_initial_access_tokens');
  const form = useFormError(['name', 'expires_in_seconds', 'max_uses']);
  const [name, setName] = useState('');
  const [days, setDays] = useState('7');
  const [maxUses, setMaxUses] = useState('1');

  const submit = form.handleSubmit(async () => {
    onCreated(
      await mutate<Created>('POST', base, {
        name: name.trim(),
        expires_in_seconds: numberOrNull(days, DAY_S),
        max_uses: numberOrNull(maxUses),
      }),
    );
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('createTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('create')}
      busy={form.busy}
    >
      <Field label={t('name')} hint={t('nameHint')} error={form.fieldError('name')}>
        {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} autoFocus required maxLength={256} />}
      </Field>
      <Field label={t('expiresInDays')} hint={t('expiresInDaysHint')} error={form.fieldError('expires_in_seconds')}>
        {(p) => <Input {...p} type="number" min={1} max={365} value={days} onChange={(e) => setDays(e.target.value)} />}
      </Field>
      <Field label={t('maxUses')} hint={t('maxUsesHint')} error={form.fieldError('max_uses')}>
        {(p) => <Input {...p} type="number" min={1} value={maxUses} onChange={(e) => setMaxUses(e.target.value)} />}
      </Field>
    </FormDialog>
  );
}

/** An application's back-channel logout deliveries (status, attempts, last attempt, error), newest first. */
export function LogoutDeliveriesDialog({ app, onClose }: { app: OAuthApplication | null; onClose(): void }) {
  const t = useTranslations('oauth.console.deliveries');
  return (
    <Dialog open={app !== null} onClose={onClose} title={t('title', { name: app?.name ?? '' })}>
      {app && <DeliveryList app={app} />}
      <div className="mt-4 flex justify-end">
        <Button variant="secondary" onClick={onClose}>
          {t('close')}
        </Button>
      </div>
    </Dialog>
  );
}

function DeliveryList({ app }: { app: OAuthApplication }) {
  const t = useTranslations('oauth.console.deliveries');
  const dates = useDates();
  const base = useInstanceApi(`oauth_applications/${app.id}/logout_deliveries`);
  const cursor = useCursorPages([]);
  const list = useDashboard<Deliveries>(`${base}${query({ limit: 20, starting_after: cursor.current })}`);
  return (
    <>
      <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">{app.backchannel_logout_uri ?? t('noUri')}</p>
      <CardList
        data={list.data?.data}
        error={list.error}
        onRetry={list.reload}
        columns={4}
        rows={2}
        emptyTitle={t('emptyTitle')}
        emptyDescription={t('emptyDescription')}
      >
        {(items) => (
          <Table caption={t('caption')}>
            <Thead columns={[t('status'), t('attempts'), t('lastAttempt'), t('error')]} />
            <tbody>
              {items.map((d) => (
                <Tr key={d.id}>
                  <Td>
                    <Badge tone={DELIVERY_TONE[d.status]}>{t(`statuses.${d.status}`)}</Badge>
                  </Td>
                  <Td>{d.attempts}</Td>
                  <Td>{d.attempts === 0 ? t('notYet') : dates.dateTime(d.updated_at)}</Td>
                  <Td className="break-all text-xs">{d.last_error ?? '—'}</Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardList>
      <Pager state={cursor} page={list.data} loading={list.loading} />
    </>
  );
}
