'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import {
  ActionCell,
  Badge,
  Button,
  Card,
  CardHeader,
  ConfirmDialog,
  CopyField,
  Field,
  FormDialog,
  Input,
  SecretValue,
  Select,
  ShownOnceDialog,
  Table,
  Td,
  Thead,
  Tr,
} from '@/components/ui';
import { useDates } from '@/lib/console/format';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useErrorMessage } from '@/lib/use-error-message';
import { useConsole } from './console-context';
import { CardList } from './states';
import { roleName, type RoleChoice } from './role-choice';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';
import type { CreatedScimToken as CreatedToken, ScimGroup, ScimToken } from '@/lib/generated/dashboard';

/**
 * The organization page's directory (SCIM) section: its tokens (created and shown once,
 * revoked), the users and groups its identity provider provisioned, the group → role
 * mappings, and when the directory last synced.
 */
export function OrganizationDirectory({ base, roles }: { base: string; roles: RoleChoice[] }) {
  const t = useTranslations('directory');
  const dates = useDates();
  const { canWrite } = useConsole();
  const tokens = useDashboard<InstanceResponse<'GET /organizations/{id}/scim_tokens'>>(`${base}/scim_tokens?limit=100`);
  const invalidate = useInvalidate();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<ScimToken | null>(null);
  const endpoint = typeof window === 'undefined' ? '/scim/v2' : `${window.location.origin}/scim/v2`;
  const lastSync = Math.max(0, ...(tokens.data?.data.map((k) => k.last_used_at ?? 0) ?? []));

  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description', { lastSync: lastSync ? dates.relative(lastSync) : t('never') })}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('createToken')}</Button>}
      />
      <div className="px-5 pt-4">
        <CopyField label={t('endpoint')} value={endpoint} />
      </div>
      <DirectoryStatus base={base} />
      <CardList
        data={tokens.data?.data}
        error={tokens.error}
        onRetry={tokens.reload}
        columns={4}
        rows={1}
        emptyTitle={t('noTokensTitle')}
        emptyDescription={t('noTokensDescription')}
      >
        {(items) => (
          <Table caption={t('tokensTitle')}>
            <Thead columns={[t('name'), t('created'), t('lastUsed'), t('status')]} actions={canWrite && t('actions')} />
            <tbody>
              {items.map((k) => (
                <Tr key={k.id}>
                  <Td id={`scim-token-${k.id}`} className="font-medium">
                    {k.name}
                  </Td>
                  <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(k.created_at)}</Td>
                  <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.relative(k.last_used_at)}</Td>
                  <Td>
                    <Badge tone={k.revoked_at ? 'neutral' : 'green'}>{k.revoked_at ? t('revoked') : t('active')}</Badge>
                  </Td>
                  {canWrite &&
                    (k.revoked_at ? (
                      <Td />
                    ) : (
                      <ActionCell onClick={() => setRevoking(k)} aria-describedby={`scim-token-${k.id}`}>
                        {t('revoke')}
                      </ActionCell>
                    ))}
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardList>
      <Groups base={base} roles={roles} />
      <Users base={base} />
      {creating && (
        <CreateTokenDialog
          path={`${base}/scim_tokens`}
          onClose={() => setCreating(false)}
          onCreated={(token) => {
            setCreating(false);
            setCreated(token);
            void invalidate(`${base}/scim_tokens`);
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
        {(token) => (
          <>
            <CopyField label={t('endpoint')} value={endpoint} />
            <SecretValue value={token.token} label={t('token')} />
          </>
        )}
      </ShownOnceDialog>
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={t('revokeTitle')}
        description={t('revokeDescription', { name: revoking?.name ?? '' })}
        confirmLabel={t('revoke')}
        onConfirm={async () => {
          if (revoking) await mutate('POST', `${base}/scim_tokens/${encodeURIComponent(revoking.id)}/revoke`);
          void invalidate(`${base}/scim_tokens`);
        }}
      />
    </Card>
  );
}

/** The directory's live status (GET …/scim_status): users and groups synced, failed requests and the last one. */
function DirectoryStatus({ base }: { base: string }) {
  const t = useTranslations('directory');
  const dates = useDates();
  const status = useDashboard<InstanceResponse<'GET /organizations/{id}/scim_status'>>(`${base}/scim_status`);
  const s = status.data;
  if (!s) return null;
  const last = s.last_error;
  return (
    <div className="flex flex-col gap-2 px-5 pt-4" role="region" aria-label={t('statusTitle')}>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">{t('lastRequest')}</dt>
          <dd>{s.last_request_at ? dates.relative(s.last_request_at) : t('never')}</dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">{t('usersSynced')}</dt>
          <dd>{s.users_count}</dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">{t('groupsSynced')}</dt>
          <dd>{s.groups_count}</dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">{t('errorsCount')}</dt>
          <dd data-testid="scim-errors-count">
            {s.errors_count > 0 ? <Badge tone="red">{s.errors_count}</Badge> : <Badge tone="green">{s.errors_count}</Badge>}
          </dd>
        </div>
      </dl>
      {last && (
        <div className="rounded-md bg-red-50 p-3 text-sm dark:bg-red-950/40" role="group" aria-label={t('lastError')}>
          <p className="font-medium text-red-800 dark:text-red-200">
            {t('lastError')} · {dates.relative(last.at)}
          </p>
          <p className="font-mono text-xs break-all text-zinc-700 dark:text-zinc-300">
            {last.method} {last.path} → {last.status}
            {last.scim_type ? ` (${last.scim_type})` : ''}
          </p>
          <p className="text-zinc-700 dark:text-zinc-300">{last.detail}</p>
        </div>
      )}
    </div>
  );
}

function CreateTokenDialog({ path, onClose, onCreated }: { path: string; onClose: () => void; onCreated: (t: CreatedToken) => void }) {
  const t = useTranslations('directory');
  const form = useFormError(['name']);
  const [name, setName] = useState('');
  const submit = form.handleSubmit(async () => onCreated(await mutate<CreatedToken>('POST', path, { name: name.trim() })));
  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('createToken')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('createSubmit')}
      busy={form.busy}
    >
      <Field label={t('name')} hint={t('nameHint')} error={form.fieldError('name')}>
        {(p) => <Input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Okta" autoFocus />}
      </Field>
    </FormDialog>
  );
}

function Groups({ base, roles }: { base: string; roles: RoleChoice[] }) {
  const t = useTranslations('directory');
  const { canWrite } = useConsole();
  const errorMessage = useErrorMessage();
  const groups = useDashboard<InstanceResponse<'GET /organizations/{id}/scim_groups'>>(`${base}/scim_groups?limit=100`);
  const invalidate = useInvalidate();
  const [error, setError] = useState<string | null>(null);

  async function map(g: ScimGroup, role: string) {
    setError(null);
    try {
      await mutate('PATCH', `${base}/scim_groups/${encodeURIComponent(g.id)}`, { role: role || null });
      void invalidate(`${base}/scim_groups`);
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <div className="border-t border-zinc-200 dark:border-zinc-800">
      <h3 className="px-5 pt-4 text-sm font-semibold">{t('groupsTitle')}</h3>
      <p className="px-5 text-xs text-zinc-600 dark:text-zinc-400">{t('groupsDescription')}</p>
      {error && <p className="px-5 pt-2 text-sm text-red-600">{error}</p>}
      <CardList
        data={groups.data?.data}
        error={groups.error}
        onRetry={groups.reload}
        columns={3}
        rows={1}
        emptyTitle={t('noGroupsTitle')}
        emptyDescription={t('noGroupsDescription')}
      >
        {(items) => (
          <Table caption={t('groupsTitle')}>
            <Thead columns={[t('group'), t('members'), t('role')]} />
            <tbody>
              {items.map((g) => (
                <Tr key={g.id}>
                  <Td className="font-medium">{g.display_name}</Td>
                  <Td>{g.members_count}</Td>
                  <Td>
                    {canWrite ? (
                      <Select
                        aria-label={t('roleOf', { group: g.display_name })}
                        value={g.role ?? ''}
                        onChange={(e) => void map(g, e.target.value)}
                        className="h-8 min-w-36 text-sm"
                      >
                        <option value="">{t('noRole')}</option>
                        {(g.role && !roles.some((r) => r.key === g.role) ? [{ key: g.role, name: g.role }, ...roles] : roles).map((r) => (
                          <option key={r.key} value={r.key}>
                            {r.name}
                          </option>
                        ))}
                      </Select>
                    ) : (
                      <Badge tone="indigo">{g.role ? roleName(roles, g.role) : t('noRole')}</Badge>
                    )}
                  </Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardList>
    </div>
  );
}

function Users({ base }: { base: string }) {
  const t = useTranslations('directory');
  const dates = useDates();
  const users = useDashboard<InstanceResponse<'GET /organizations/{id}/scim_users'>>(`${base}/scim_users?limit=100`);
  return (
    <div className="border-t border-zinc-200 dark:border-zinc-800">
      <h3 className="px-5 pt-4 text-sm font-semibold">{t('usersTitle')}</h3>
      <CardList
        data={users.data?.data}
        error={users.error}
        onRetry={users.reload}
        columns={4}
        rows={2}
        emptyTitle={t('noUsersTitle')}
        emptyDescription={t('noUsersDescription')}
      >
        {(items) => (
          <Table caption={t('usersTitle')}>
            <Thead columns={[t('userName'), t('displayName'), t('status'), t('updated')]} />
            <tbody>
              {items.map((u) => (
                <Tr key={u.id}>
                  <Td className="break-all">{u.user_name}</Td>
                  <Td>{u.display_name ?? '—'}</Td>
                  <Td>
                    <span className="flex flex-wrap gap-1">
                      <Badge tone={u.active ? 'green' : 'amber'}>{u.active ? t('active') : t('suspended')}</Badge>
                      {u.created_by_directory && <Badge>{t('createdByDirectory')}</Badge>}
                    </span>
                  </Td>
                  <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.relative(u.updated_at)}</Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardList>
      {users.data?.has_more && <p className="px-5 pb-4 text-xs text-zinc-500 dark:text-zinc-400">{t('moreUsers')}</p>}
    </div>
  );
}
