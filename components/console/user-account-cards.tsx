'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { useCallback, useState, type ReactNode } from 'react';
import {
  ActionCell,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  Checkbox,
  ConfirmDialog,
  FactList,
  Field,
  FormDialog,
  Input,
  Td,
  Tr,
} from '@/components/ui';
import { displayName, primaryEmail, useDates } from '@/lib/console/format';
import { api, pages, query } from '@/lib/console/paths';
import type { InstanceResponse, User } from '@/lib/console/types';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { CardTable } from './states';
import { useActions } from './use-actions';
import { useFormError } from './use-form-error';
import type { ApiKey, ApiToken } from '@/lib/generated/dashboard';

/**
 * The user page's cards beyond profile and contact details: security (password, two-step
 * verification, lock), organizations, personal access tokens and API keys. A write refetches
 * what it changed (`useInvalidate`): the user and everything below `base`, or the API keys.
 */

export type UserPageProps = { user: User; base: string };

/** After a write to the user: the user and all below it, and the instance's API keys (a ban revokes the user's), fetched again. */
export function useUserChanged(base: string): () => Promise<void> {
  const invalidate = useInvalidate();
  const keys = useInstanceApi('api_keys');
  return useCallback(async () => {
    await Promise.all([invalidate(base), invalidate(keys)]);
  }, [invalidate, base, keys]);
}

export function SecurityCard({ user, base }: UserPageProps) {
  const userChanged = useUserChanged(base);
  const t = useTranslations('console.user');
  const dates = useDates();
  const { canWrite } = useConsole();
  const [dialog, setDialog] = useState<'password' | 'mfa' | null>(null);
  const { act, alert } = useActions();
  const name = displayName(user) ?? primaryEmail(user) ?? user.id;
  const lockState = !user.locked
    ? t('notLocked')
    : user.locked_until === null
      ? t('lockedForever')
      : t('lockedUntilDate', { date: dates.dateTime(user.locked_until) });
  const facts: Array<[string, ReactNode]> = [
    [t('passwordLabel'), user.password_enabled ? t('passwordSet') : t('passwordNone')],
    [t('twoStep'), user.two_factor_enabled ? <Badge tone="green">{t('twoStepOn')}</Badge> : <Badge>{t('twoStepOff')}</Badge>],
    [t('lockState'), lockState],
  ];
  return (
    <Card>
      <CardHeader
        title={t('securityTitle')}
        description={t('securityDescription')}
        actions={
          canWrite && (
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" size="sm" onClick={() => setDialog('password')}>
                {user.password_enabled ? t('resetPassword') : t('setPassword')}
              </Button>
              {user.two_factor_enabled && (
                <Button variant="secondary" size="sm" onClick={() => setDialog('mfa')}>
                  {t('disableMfa')}
                </Button>
              )}
            </div>
          )
        }
      />
      <CardBody className="flex flex-col gap-4">
        {alert}
        <FactList facts={facts} className="grid-cols-[auto_1fr] gap-x-6 gap-y-2.5" />
      </CardBody>
      {dialog === 'password' && (
        <PasswordDialog
          base={base}
          onClose={() => setDialog(null)}
          onSaved={(signedOut) => {
            setDialog(null);
            void act('password', async () => {
              await userChanged();
              return signedOut ? t('passwordSavedSignedOut') : t('passwordSaved');
            });
          }}
        />
      )}
      <ConfirmDialog
        open={dialog === 'mfa'}
        onClose={() => setDialog(null)}
        title={t('disableMfaTitle')}
        description={t('disableMfaDescription', { name })}
        confirmLabel={t('disableMfa')}
        onConfirm={async () => {
          await mutate('DELETE', `${base}/mfa`);
          await userChanged();
        }}
      />
    </Card>
  );
}

function PasswordDialog({ base, onClose, onSaved }: { base: string; onClose: () => void; onSaved: (signedOut: boolean) => void }) {
  const t = useTranslations('console.user');
  const form = useFormError(['password']);
  const [password, setPassword] = useState('');
  const [signOut, setSignOut] = useState(false);
  const [tooShort, setTooShort] = useState(false);
  const submit = form.handleSubmit(async () => {
    if (password.length < 8) {
      setTooShort(true);
      return;
    }
    await mutate('PUT', `${base}/password`, { password, sign_out_of_all_sessions: signOut });
    onSaved(signOut);
  });
  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('passwordTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('savePassword')}
      busy={form.busy}
    >
      <Field label={t('newPassword')} hint={t('passwordHint')} error={(tooShort && t('passwordTooShort')) || form.fieldError('password')}>
        {(p) => (
          <Input
            {...p}
            type="password"
            autoComplete="new-password"
            autoFocus
            value={password}
            onChange={(e) => {
              setPassword(e.target.value);
              if (tooShort && e.target.value.length >= 8) setTooShort(false);
            }}
            onBlur={() => setTooShort(password.length > 0 && password.length < 8)}
          />
        )}
      </Field>
      <Checkbox label={t('signOutEverywhere')} checked={signOut} onChange={(e) => setSignOut(e.target.checked)} />
    </FormDialog>
  );
}

export function OrganizationsCard({ base }: UserPageProps) {
  const t = useTranslations('console.user');
  const dates = useDates();
  const { account } = useConsole();
  const instance = useInstance();
  const cursor = useCursorPages([]);
  const memberships = useDashboard<InstanceResponse<'GET /users/{id}/organization_memberships'>>(
    `${base}/organization_memberships${query({ limit: 20, starting_after: cursor.current })}`,
  );
  return (
    <Card>
      <CardHeader title={t('orgsTitle')} description={t('orgsDescription')} />
      <CardTable
        data={memberships.data?.data}
        error={memberships.error}
        onRetry={memberships.reload}
        columns={3}
        rows={1}
        emptyTitle={t('noOrgsTitle')}
        emptyDescription={t('noOrgsDescription')}
        caption={t('orgsTitle')}
        headings={[t('organization'), t('role'), t('joined')]}
        row={(m) => (
          <Tr key={m.id}>
            <Td>
              <Link
                href={pages.instance(account.id, instance.id, `organizations/${encodeURIComponent(m.organization.id)}`)}
                title={m.organization.id}
                className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
              >
                {m.organization.name}
              </Link>
            </Td>
            <Td>
              <span title={m.role}>{m.role_name ?? m.role}</span>
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(m.created_at)}</Td>
          </Tr>
        )}
      />
      <Pager state={cursor} page={memberships.data} loading={memberships.loading} />
    </Card>
  );
}

export function AccessTokensCard({ base }: UserPageProps) {
  const userChanged = useUserChanged(base);
  const t = useTranslations('console.user');
  const dates = useDates();
  const { canWrite } = useConsole();
  const tokens = useDashboard<InstanceResponse<'GET /users/{id}/api_tokens'>>(`${base}/api_tokens`);
  const [confirm, setConfirm] = useState<ApiToken | null>(null);
  return (
    <Card>
      <CardHeader title={t('tokensTitle')} description={t('tokensDescription')} />
      <CardTable
        data={tokens.data?.data}
        error={tokens.error}
        onRetry={tokens.reload}
        columns={5}
        rows={1}
        emptyTitle={t('noTokensTitle')}
        emptyDescription={t('noTokensDescription')}
        caption={t('tokensTitle')}
        headings={[t('name'), t('scopes'), t('lastUsed'), t('expires'), t('created')]}
        actions={canWrite && t('actions')}
        row={(token) => (
          <Tr key={token.id}>
            <Td>
              <span className="font-medium" title={token.id}>
                {token.name}
              </span>
              {token.status === 'expired' && (
                <span className="ml-2">
                  <Badge>{t('expired')}</Badge>
                </span>
              )}
            </Td>
            <Td className="font-mono text-xs">{token.scopes.join(' ')}</Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.relative(token.last_used_at)}</Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">
              {token.expires_at ? dates.dateTime(token.expires_at) : t('noExpiry')}
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(token.created_at)}</Td>
            {canWrite && (
              <ActionCell onClick={() => setConfirm(token)} aria-label={t('revokeToken', { name: token.name })}>
                {t('revoke')}
              </ActionCell>
            )}
          </Tr>
        )}
      />
      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title={t('revokeTokenTitle')}
        description={t('revokeTokenDescription', { name: confirm?.name ?? '' })}
        confirmLabel={t('revoke')}
        onConfirm={async () => {
          await mutate('POST', `${base}/api_tokens/${encodeURIComponent(confirm!.id)}/revoke`);
          await userChanged();
        }}
      />
    </Card>
  );
}

export function ApiKeysCard({ user }: UserPageProps) {
  const invalidate = useInvalidate();
  const t = useTranslations('console.user');
  const dates = useDates();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const cursor = useCursorPages([]);
  const keysBase = `${api.instance(account.id, instance.id)}/api_keys`;
  const keys = useDashboard<InstanceResponse<'GET /api_keys'>>(
    `${keysBase}${query({ subject: user.id, revoked: 'false', limit: 20, starting_after: cursor.current })}`,
  );
  const [confirm, setConfirm] = useState<ApiKey | null>(null);
  return (
    <Card>
      <CardHeader
        title={t('apiKeysTitle')}
        description={t('apiKeysDescription')}
        actions={
          <Link
            href={pages.instance(account.id, instance.id, 'api-keys')}
            className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
          >
            {t('allApiKeys')}
          </Link>
        }
      />
      <CardTable
        data={keys.data?.data}
        error={keys.error}
        onRetry={keys.reload}
        columns={4}
        rows={1}
        emptyTitle={t('noApiKeysTitle')}
        emptyDescription={t('noApiKeysDescription')}
        caption={t('apiKeysTitle')}
        headings={[t('name'), t('scopes'), t('lastUsed'), t('created')]}
        actions={canWrite && t('actions')}
        row={(key) => (
          <Tr key={key.id}>
            <Td>
              <span className="font-medium" title={key.id}>
                {key.name}
              </span>
            </Td>
            <Td className="font-mono text-xs">{key.scopes.length ? key.scopes.join(' ') : '—'}</Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.relative(key.last_used_at)}</Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(key.created_at)}</Td>
            {canWrite && (
              <ActionCell onClick={() => setConfirm(key)} aria-label={t('revokeApiKey', { name: key.name })}>
                {t('revoke')}
              </ActionCell>
            )}
          </Tr>
        )}
      />
      <Pager state={cursor} page={keys.data} loading={keys.loading} />
      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title={t('revokeApiKeyTitle')}
        description={t('revokeApiKeyDescription', { name: confirm?.name ?? '' })}
        confirmLabel={t('revoke')}
        onConfirm={async () => {
          await mutate('POST', `${keysBase}/${encodeURIComponent(confirm!.id)}/revoke`, {});
          await invalidate(keysBase);
        }}
      />
    </Card>
  );
}

/** Names and username (PATCH …/users/:id); an empty username clears it. */
export function EditProfileDialog({
  user,
  base,
  onClose,
  onSaved,
}: {
  user: User;
  base: string;
  onClose: () => void;
  onSaved: () => void;
}) {
  const t = useTranslations('console.user');
  const form = useFormError(['first_name', 'last_name', 'username']);
  const [v, setV] = useState({ first_name: user.first_name ?? '', last_name: user.last_name ?? '', username: user.username ?? '' });
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) => setV((x) => ({ ...x, [k]: e.target.value }));
  const submit = form.handleSubmit(async () => {
    const clean = (s: string) => (s.trim() ? s.trim() : null);
    await mutate('PATCH', base, { first_name: clean(v.first_name), last_name: clean(v.last_name), username: clean(v.username) });
    onSaved();
  });
  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('editProfileTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('save')}
      busy={form.busy}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label={t('firstName')} error={form.fieldError('first_name')}>
          {(p) => <Input {...p} value={v.first_name} onChange={set('first_name')} autoFocus />}
        </Field>
        <Field label={t('lastName')} error={form.fieldError('last_name')}>
          {(p) => <Input {...p} value={v.last_name} onChange={set('last_name')} />}
        </Field>
      </div>
      <Field label={t('username')} hint={t('usernameHint')} error={form.fieldError('username')}>
        {(p) => <Input {...p} value={v.username} onChange={set('username')} spellCheck={false} autoComplete="off" />}
      </Field>
    </FormDialog>
  );
}

/** Adds an email address or phone number, verified at once when the operator says so. */
export function AddIdentifierDialog({
  kind,
  base,
  onClose,
  onAdded,
}: {
  kind: 'email_address' | 'phone_number';
  base: string;
  onClose: () => void;
  onAdded: () => void;
}) {
  const t = useTranslations('console.user');
  const form = useFormError([kind]);
  const [value, setValue] = useState('');
  const [verified, setVerified] = useState(true);
  const [invalid, setInvalid] = useState(false);
  const email = kind === 'email_address';
  const bad = (s: string) => (email ? !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s.trim()) : !/^\+[1-9]\d{6,14}$/.test(s.trim()));
  const submit = form.handleSubmit(async () => {
    if (bad(value)) {
      setInvalid(true);
      return;
    }
    await mutate('POST', `${base}/${email ? 'email_addresses' : 'phone_numbers'}`, { [kind]: value.trim(), verified });
    onAdded();
  });
  return (
    <FormDialog
      open
      onClose={onClose}
      title={email ? t('addEmailTitle') : t('addPhoneTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('add')}
      busy={form.busy}
    >
      <Field
        label={email ? t('emailLabel') : t('phoneLabel')}
        hint={email ? undefined : t('phoneHint')}
        error={(invalid && (email ? t('invalidEmail') : t('invalidPhone'))) || form.fieldError(kind)}
      >
        {(p) => (
          <Input
            {...p}
            type={email ? 'email' : 'tel'}
            autoFocus
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
              // Fixed: the message goes as the entry becomes valid, not at the next blur (which would move the form under the pointer).
              if (invalid && !bad(e.target.value)) setInvalid(false);
            }}
            onBlur={() => setInvalid(value.trim() !== '' && bad(value))}
          />
        )}
      </Field>
      <Checkbox label={t('markVerified')} checked={verified} onChange={(e) => setVerified(e.target.checked)} />
    </FormDialog>
  );
}
