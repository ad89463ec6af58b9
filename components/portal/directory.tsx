'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Field, Input, SecretValue, Select, ValueField } from '@/components/ui';
import { ErrorLine, Section } from './portal';
import { usePortalCall, usePortalError, usePortalInvalidate, usePortalResource, useWhen } from './portal-context';

const DSYNC_IDPS = ['okta', 'entra', 'google', 'onelogin', 'jumpcloud'] as const;
type Token = { id: string; name: string; created_at: number; last_used_at: number | null; revoked_at: number | null };
type DirectoryError = { at: number; method: string; path: string; status: number; scim_type: string | null; detail: string };
type Directory = {
  scim_base_url: string;
  tokens: Token[];
  last_request_at: number | null;
  users_count: number;
  groups_count: number;
  /** Failed requests of the directory (a valid token, answered 400 or more) and the last one. */
  errors_count: number;
  last_error: DirectoryError | null;
};
type Group = { id: string; display_name: string; members_count: number; role: string | null };
type Role = { key: string; name: string };

/** How often the directory's live status (last request, counts, errors) is fetched again while shown. */
const LIVE_STATUS_MS = 10_000;

/** Directory sync: the SCIM endpoint and its token (shown once), the IdP's steps, live status, groups → roles. */
export function PortalDirectory() {
  const t = useTranslations('portal.dsync');
  const tIdp = useTranslations('portal.sso.idp');
  const { call } = usePortalCall();
  const describe = usePortalError();
  const when = useWhen();
  const dir = usePortalResource<Directory>('/directory', { every: LIVE_STATUS_MS }).data ?? null;
  const groups = usePortalResource<{ data: Group[] }>('/directory/groups', { every: LIVE_STATUS_MS }).data?.data ?? [];
  const roles = usePortalResource<{ data: Role[] }>('/roles').data?.data ?? [];
  const invalidate = usePortalInvalidate();
  const [secret, setSecret] = useState<string | null>(null);
  const [name, setName] = useState('SCIM');
  const [idp, setIdp] = useState<(typeof DSYNC_IDPS)[number]>('okta');
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
      await invalidate('/directory');
    } catch (err) {
      setError(describe(err));
    }
  };
  async function create(e: FormEvent) {
    e.preventDefault();
    await run(async () => setSecret((await call<{ token: string }>('/directory/tokens', { json: { name } })).token));
  }
  const live = dir?.tokens.filter((x) => x.revoked_at === null) ?? [];
  return (
    <Section title={t('title')} intro={t('intro')}>
      {dir && <ValueField label={t('baseUrl')} value={dir.scim_base_url} wrap />}
      {secret && (
        <Alert tone="warning" title={t('shownOnce')}>
          <SecretValue label={t('token')} value={secret} />
        </Alert>
      )}
      <div className="flex flex-col gap-2">
        <h3 className="text-sm font-semibold">{t('tokens')}</h3>
        {live.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('noTokens')}</p>}
        <ul className="flex flex-col gap-2">
          {live.map((tok) => (
            <li
              key={tok.id}
              className="flex flex-wrap items-center justify-between gap-2 rounded-md p-3 text-sm ring-1 ring-zinc-200 dark:ring-zinc-800"
            >
              <span>
                <span className="font-medium">{tok.name}</span>{' '}
                <span className="text-zinc-600 dark:text-zinc-400">
                  {tok.last_used_at ? t('lastUsed', { time: when(tok.last_used_at) }) : t('neverUsed')}
                </span>
              </span>
              <span className="flex gap-2">
                <Button
                  size="sm"
                  variant="secondary"
                  onClick={() =>
                    run(async () =>
                      setSecret((await call<{ token: string }>(`/directory/tokens/${tok.id}/rotate`, { method: 'POST' })).token),
                    )
                  }
                >
                  {t('rotate')}
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => run(async () => void (await call(`/directory/tokens/${tok.id}/revoke`, { method: 'POST' })))}
                >
                  {t('revoke')}
                </Button>
              </span>
            </li>
          ))}
        </ul>
        <form onSubmit={create} className="flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="flex-1">
            <Field label={t('tokenName')}>
              {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} required maxLength={256} />}
            </Field>
          </div>
          <Button type="submit">{t('createToken')}</Button>
        </form>
      </div>
      <div className="flex flex-col gap-2">
        <Field label={t('instructionsFor')}>
          {(p) => (
            <Select
              {...p}
              value={idp}
              options={DSYNC_IDPS}
              optionLabel={(v) => tIdp(v)}
              onChange={(e) => setIdp(e.target.value as typeof idp)}
            />
          )}
        </Field>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t(`instructions.${idp}`)}</p>
      </div>
      {dir && (
        <div className="flex flex-col gap-2" role="region" aria-label={t('status')}>
          <h3 className="text-sm font-semibold">{t('status')}</h3>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-zinc-600 dark:text-zinc-400">{t('lastRequest')}</dt>
            <dd>{dir.last_request_at ? when(dir.last_request_at) : t('never')}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">{t('users')}</dt>
            <dd data-testid="scim-users">{dir.users_count}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">{t('groups')}</dt>
            <dd>{dir.groups_count}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">{t('errors')}</dt>
            <dd data-testid="scim-errors">{dir.errors_count}</dd>
          </dl>
          {dir.last_error && (
            <div className="rounded-md p-3 text-sm ring-1 ring-red-200 dark:ring-red-900" role="group" aria-label={t('lastError')}>
              <p className="font-medium">
                {t('lastError')}: {when(dir.last_error.at)}
              </p>
              <p className="break-all font-mono text-xs">
                {dir.last_error.method} {dir.last_error.path} → {dir.last_error.status}
                {dir.last_error.scim_type ? ` (${dir.last_error.scim_type})` : ''}
              </p>
              <p className="text-red-700 dark:text-red-300">{dir.last_error.detail}</p>
            </div>
          )}
          <div>
            <Button size="sm" variant="ghost" onClick={() => void invalidate('/directory')}>
              {t('refresh')}
            </Button>
          </div>
        </div>
      )}
      <div className="flex flex-col gap-2">
        <h3 className="text-sm font-semibold">{t('groupsTitle')}</h3>
        {groups.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('noGroups')}</p>}
        <ul className="flex flex-col gap-2">
          {groups.map((g) => (
            <li key={g.id} className="flex flex-wrap items-center justify-between gap-2 text-sm">
              <span>
                {g.display_name}{' '}
                <Badge>
                  {t('members')}: {g.members_count}
                </Badge>
              </span>
              <select
                aria-label={`${t('role')}: ${g.display_name}`}
                className="h-9 rounded-md px-2 ring-1 ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700"
                value={g.role ?? ''}
                onChange={(e) =>
                  run(
                    async () => void (await call(`/directory/groups/${g.id}`, { method: 'PATCH', json: { role: e.target.value || null } })),
                  )
                }
              >
                <option value="">{t('noRole')}</option>
                {roles.map((r) => (
                  <option key={r.key} value={r.key}>
                    {r.name}
                  </option>
                ))}
              </select>
            </li>
          ))}
        </ul>
      </div>
      <ErrorLine message={error} />
    </Section>
  );
}
