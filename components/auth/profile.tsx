'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useId, useState, type ReactNode } from 'react';
import {
  Alert,
  AsyncContent,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  Checkbox,
  ConfirmDialog,
  Field,
  FormDialog,
  Input,
  Skeleton,
  cn,
  focusRing,
} from '@/components/ui';
import { useDates } from '@/lib/console/format';
import type { ApiToken, Me, MeSession, MeWithImpersonator } from '@/lib/fapi/types';
import type { FapiResponse } from '@/lib/generated/fapi';
import { deviceParts } from '@/lib/session-activity';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { PasskeysSection } from './passkeys';
import { ConnectedAppsSection } from './connected-apps';
import { ApiKeysSection } from './api-keys-section';
import { CreateOwnSecretDialog, OwnSecretsSection } from './own-secrets-section';
import { BillingSection } from './billing-section';
import { ConnectedAccountsSection, DeleteAccountSection, IdentifiersSection, PasswordSection } from './account-sections';
import { ProfilePhoto } from './profile-photo';
import { OrganizationSwitcher } from './organizations';
import { appName, needsMfaSetup, useEndSession, useHosted } from './hosted-context';
import { SectionError, useFapi, useList, useMeChanged } from './hosted-list';
import { HostedPage, InstanceMark, LoadError, LockIcon } from './shell';
import { BackupCodes, TotpEnrollment } from './totp';
import { ReverificationBoundary } from './reverification';
import { useFormErrors } from './use-form-errors';

/** `{fapi}/profile`: the signed-in user's account — names, email addresses, MFA, devices, personal access tokens. */
export function ProfilePage() {
  const t = useTranslations('hosted.profile');
  const { env, client, loadError, href } = useHosted();
  const router = useRouter();
  const session = client?.session ?? null;
  const signedIn = session?.status === 'active';

  useEffect(() => {
    if (!client) return;
    if (needsMfaSetup(session)) router.replace(href('/sign-in/setup-mfa'));
    else if (!signedIn) router.replace(href('/sign-in'));
  }, [client, session, signedIn, router, href]);

  if (loadError) {
    return (
      <HostedPage>
        <Card>
          <CardBody className="p-6">
            <LoadError />
          </CardBody>
        </Card>
      </HostedPage>
    );
  }
  return (
    <HostedPage wide>
      <div className="flex min-w-0 flex-col gap-6 [&>*]:min-w-0">
        <ProfileHeader />
        {!env || !client || !signedIn ? (
          <span className="sr-only" role="status">
            {t('loading')}
          </span>
        ) : null}
        {env && signedIn ? (
          <ReverificationBoundary key={session.id}>
            <Sections />
          </ReverificationBoundary>
        ) : (
          <SectionSkeletons />
        )}
      </div>
    </HostedPage>
  );
}

function ProfileHeader() {
  const t = useTranslations('hosted.profile');
  const { env, client, href } = useHosted();
  const { busy, error, endSession: signOut } = useEndSession(() => window.location.assign(href('/sign-in')), { stayBusy: true });
  const session = client?.session;

  return (
    <header className="flex flex-col gap-4">
      <div className="flex items-center justify-between gap-3">
        <div className="flex min-w-0 items-center gap-2 text-sm font-medium text-zinc-600 dark:text-zinc-400">
          {env ? (
            <InstanceMark name={appName(env)} logoUrl={env.branding?.logo_url} small />
          ) : (
            <span aria-hidden className="flex size-8 shrink-0 items-center justify-center rounded-md bg-indigo-600 text-white">
              <LockIcon className="size-4" />
            </span>
          )}
          {env ? <span className="truncate">{appName(env)}</span> : <Skeleton className="h-5 w-24" />}
        </div>
        <Button variant="secondary" size="sm" onClick={signOut} loading={busy} disabled={session?.status !== 'active'}>
          {t('signOut')}
        </Button>
      </div>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{t('title')}</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t('subtitle')}</p>
      </div>
      {env && session?.status === 'active' && <OrganizationSwitcher />}
      {error && <Alert tone="error">{error}</Alert>}
    </header>
  );
}

/** Two grey section cards (of 3 and 2 rows) holding the sections' place while they load. */
function SectionSkeletons() {
  return [3, 2].map((rows) => (
    <Card key={rows} aria-hidden>
      <div className="border-b border-zinc-200 px-5 py-4 dark:border-zinc-800">
        <Skeleton className="h-5 w-40" />
        <Skeleton className="mt-2 h-4 w-64 max-w-full" />
      </div>
      <div className="flex flex-col gap-3 px-5 py-4">
        {Array.from({ length: rows }, (_, i) => (
          <Skeleton key={i} className="h-10 w-full rounded-md" />
        ))}
      </div>
    </Card>
  ));
}

/** GET /v1/me for the sections (a section's write refetches it: useMeChanged); each section loads its own list. */
function Sections() {
  const t = useTranslations('hosted.profile');
  const loaded = useFapi<Me | MeWithImpersonator>('/v1/me');
  const me = loaded.data;

  if (loaded.message) return <Alert tone="error">{loaded.message}</Alert>;
  if (!me) return <SectionSkeletons />;
  const impersonator = 'impersonator' in me ? me.impersonator : null;
  return (
    <>
      {impersonator && (
        <Alert tone="warning" title={t('impersonatedTitle')}>
          <span title={impersonator.ref}>
            {t('impersonated', { actor: impersonator.name ?? impersonator.email ?? impersonator.ref })}
            {impersonator.name && impersonator.email ? ` (${impersonator.email})` : ''}
          </span>
        </Alert>
      )}
      <ProfileTabs
        account={
          <>
            <ProfileSection me={me} onSaved={loaded.setData} />
            <IdentifiersSection kind="email" me={me} />
            <IdentifiersSection kind="phone" me={me} />
            <ConnectedAccountsSection />
            <BillingSection />
            <DeleteAccountSection />
          </>
        }
        security={
          <>
            <PasswordSection me={me} />
            <MfaSection me={me} />
            <PasskeysSection />
            <SessionsSection />
            <TokensSection />
            <ConnectedAppsSection />
            <ApiKeysSection />
          </>
        }
      />
    </>
  );
}

const TABS = ['account', 'security'] as const;
type Tab = (typeof TABS)[number];

/**
 * The profile in two tabs: Account (who the user is: names, photo, addresses, connected
 * accounts, plans, deletion) and Security (how they sign in: password, two-step, devices,
 * tokens, apps, keys). `#security` in the URL opens the second, so it can be linked to.
 */
function ProfileTabs({ account, security }: { account: ReactNode; security: ReactNode }) {
  const t = useTranslations('hosted.profile.tabs');
  const id = useId();
  const [tab, setTab] = useState<Tab>('account');
  useEffect(() => {
    // On load, and when a link on this page (or the address bar) moves to #security without a reload.
    const fromHash = () => window.location.hash === '#security' && setTab('security');
    fromHash();
    window.addEventListener('hashchange', fromHash);
    return () => window.removeEventListener('hashchange', fromHash);
  }, []);
  const choose = (next: Tab, focus = false) => {
    setTab(next);
    window.history.replaceState(null, '', next === 'security' ? '#security' : window.location.pathname + window.location.search);
    if (focus) document.getElementById(`${id}-${next}-tab`)?.focus();
  };
  return (
    <>
      <div role="tablist" aria-label={t('label')} className="flex gap-1 border-b border-zinc-200 dark:border-zinc-800">
        {TABS.map((name) => (
          <button
            key={name}
            type="button"
            role="tab"
            id={`${id}-${name}-tab`}
            aria-selected={tab === name}
            aria-controls={`${id}-${name}-panel`}
            tabIndex={tab === name ? 0 : -1}
            onClick={() => choose(name)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') choose(TABS[(TABS.indexOf(name) + 1) % TABS.length]!, true);
            }}
            className={cn(
              '-mb-px border-b-2 px-4 py-2 text-sm font-medium',
              focusRing,
              tab === name
                ? 'border-indigo-600 text-zinc-900 dark:border-indigo-400 dark:text-zinc-100'
                : 'border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100',
            )}
          >
            {t(name)}
          </button>
        ))}
      </div>
      {TABS.map((name) => (
        <div
          key={name}
          role="tabpanel"
          id={`${id}-${name}-panel`}
          aria-labelledby={`${id}-${name}-tab`}
          hidden={tab !== name}
          className="flex min-w-0 flex-col gap-6 [&>*]:min-w-0"
        >
          {name === 'account' ? account : security}
        </div>
      ))}
    </>
  );
}

const NAME_FIELDS = ['first_name', 'last_name', 'username'] as const;

function ProfileSection({ me, onSaved }: { me: Me; onSaved(me: Me): void }) {
  const t = useTranslations('hosted.profile');
  const tf = useTranslations('hosted.fields');
  const { call } = useHosted();
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(NAME_FIELDS);
  const [first, setFirst] = useState(me.first_name ?? '');
  const [last, setLast] = useState(me.last_name ?? '');
  const [saved, setSaved] = useState(false);
  const dirty = first.trim() !== (me.first_name ?? '') || last.trim() !== (me.last_name ?? '');

  const save = handleSubmit(async () => {
    setSaved(false);
    const updated = await call<Me>('/v1/me', {
      method: 'PATCH',
      json: { first_name: first.trim() || null, last_name: last.trim() || null },
    });
    onSaved(updated);
    setSaved(true);
  });

  return (
    <Card>
      <CardHeader title={t('profileTitle')} description={t('profileDescription')} />
      <CardBody className="flex flex-col gap-6">
        <ProfilePhoto me={me} onSaved={onSaved} />
        <form onSubmit={save} noValidate className="flex flex-col gap-4">
          {formError && <Alert tone="error">{formError}</Alert>}
          {saved && !dirty && <Alert tone="success">{t('saved')}</Alert>}
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
            <Field label={tf('firstName')} error={fieldErrors.first_name}>
              {(p) => <Input {...p} name="first_name" autoComplete="given-name" value={first} onChange={(e) => setFirst(e.target.value)} />}
            </Field>
            <Field label={tf('lastName')} error={fieldErrors.last_name}>
              {(p) => <Input {...p} name="last_name" autoComplete="family-name" value={last} onChange={(e) => setLast(e.target.value)} />}
            </Field>
          </div>
          {me.username && (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              {tf('username')}: <span className="font-mono text-zinc-900 dark:text-zinc-100">{me.username}</span>
            </p>
          )}
          <div className="flex justify-end">
            <Button type="submit" loading={busy} disabled={!dirty}>
              {t('save')}
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}

function MfaSection({ me }: { me: Me }) {
  const meChanged = useMeChanged();
  const t = useTranslations('hosted.mfa');
  const { env } = useHosted();
  const [mode, setMode] = useState<'idle' | 'enroll' | 'disable' | 'regenerate'>('idle');
  const [codes, setCodes] = useState<string[] | null>(null);
  const name = env ? appName(env) : '';

  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={me.totp_enabled ? <Badge tone="green">{t('on')}</Badge> : <Badge>{t('off')}</Badge>}
      />
      <CardBody className="flex flex-col gap-4">
        {codes && (
          <>
            <BackupCodes codes={codes} instanceName={name} />
            <div className="flex justify-end">
              <Button variant="secondary" onClick={() => setCodes(null)}>
                {t('savedCodes')}
              </Button>
            </div>
          </>
        )}
        {!codes && mode === 'enroll' && (
          <TotpEnrollment
            onCancel={() => setMode('idle')}
            onEnabled={(backup) => {
              setCodes(backup);
              setMode('idle');
              meChanged();
            }}
          />
        )}
        {!codes && mode !== 'enroll' && (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <div className="min-w-0 text-sm">
              <p className="font-medium">{t('authenticatorApp')}</p>
              <p className="text-zinc-600 dark:text-zinc-400">{me.totp_enabled ? t('enabledHint') : t('disabledHint')}</p>
            </div>
            {me.totp_enabled ? (
              <div className="flex flex-wrap gap-2">
                <Button variant="secondary" size="sm" onClick={() => setMode('regenerate')}>
                  {t('regenerate')}
                </Button>
                {!env?.user_settings.mfa_required && (
                  <Button variant="danger" size="sm" onClick={() => setMode('disable')}>
                    {t('disable')}
                  </Button>
                )}
              </div>
            ) : (
              <Button size="sm" onClick={() => setMode('enroll')}>
                {t('setUp')}
              </Button>
            )}
          </div>
        )}
      </CardBody>
      <RegenerateDialog
        open={mode === 'regenerate'}
        onClose={() => setMode('idle')}
        onDone={(backup) => {
          setMode('idle');
          setCodes(backup);
          meChanged();
        }}
      />
      <DisableDialog
        open={mode === 'disable'}
        onClose={() => setMode('idle')}
        onDone={() => {
          setMode('idle');
          meChanged();
        }}
      />
    </Card>
  );
}

/**
 * New backup codes, or TOTP turned off: the server asks the session to be verified recently
 * (the profile's ReverificationBoundary opens that dialog), so these only confirm.
 */
function RegenerateDialog({ open, onClose, onDone }: { open: boolean; onClose(): void; onDone(codes: string[]): void }) {
  const t = useTranslations('hosted.mfa');
  const { call } = useHosted();
  const { formError, busy, handleSubmit } = useFormErrors(NO_FIELDS);
  const submit = handleSubmit(async () => {
    const res = await call<FapiResponse<'POST /v1/me/backup_codes'>>('/v1/me/backup_codes', { json: {} });
    onDone(res.backup_codes);
  });
  return (
    <FormDialog
      open={open}
      onClose={onClose}
      title={t('regenerateTitle')}
      onSubmit={submit}
      error={formError}
      submitLabel={t('regenerateConfirm')}
      busy={busy}
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('regenerateDescription')}</p>
    </FormDialog>
  );
}

function DisableDialog({ open, onClose, onDone }: { open: boolean; onClose(): void; onDone(): void }) {
  const t = useTranslations('hosted.mfa');
  const { call } = useHosted();
  const { formError, busy, handleSubmit } = useFormErrors(NO_FIELDS);
  const submit = handleSubmit(async () => {
    await call('/v1/me/totp', { method: 'DELETE', json: {} });
    onDone();
  });
  return (
    <FormDialog
      open={open}
      onClose={onClose}
      title={t('disableTitle')}
      onSubmit={submit}
      error={formError}
      submitLabel={t('disableConfirm')}
      busy={busy}
      danger
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('disableDescription')}</p>
    </FormDialog>
  );
}
const NO_FIELDS = [] as const;

function RowsSkeleton({ height }: { height: string }) {
  return (
    <div className="flex flex-col gap-3 px-5 py-4" aria-hidden>
      <Skeleton className={`${height} w-full rounded-md`} />
      <Skeleton className={`${height} w-full rounded-md`} />
    </div>
  );
}

function SessionsSection() {
  const t = useTranslations('hosted.sessions');
  const { call } = useHosted();
  const describe = useFapiError();
  const dates = useDates();
  const { list, setList, error } = useList<MeSession>('/v1/me/sessions');
  const [confirm, setConfirm] = useState<{ kind: 'one'; session: MeSession } | { kind: 'others' } | null>(null);

  async function run() {
    if (!confirm) return;
    if (confirm.kind === 'others') {
      setList((await call<FapiResponse<'POST /v1/me/sessions/revoke_others'>>('/v1/me/sessions/revoke_others', { method: 'POST' })).data);
    } else {
      await call(`/v1/me/sessions/${confirm.session.id}/revoke`, { method: 'POST' });
      setList((l) => l?.filter((s) => s.id !== confirm.session.id) ?? null);
    }
  }

  const others = list?.filter((s) => !s.current).length ?? 0;
  /** "Chrome on macOS · 203.0.113.7" when the session's device is known. */
  const deviceLabel = (s: MeSession) => {
    const parts = deviceParts(s.latest_activity);
    if (!parts) return null;
    const device = parts.browser && parts.os ? t('deviceOn', { browser: parts.browser, os: parts.os }) : (parts.browser ?? parts.os)!;
    const ip = s.latest_activity?.ip_address;
    return ip ? t('deviceWithIp', { device, ip }) : device;
  };
  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={
          <Button variant="secondary" size="sm" disabled={!list || others === 0} onClick={() => setConfirm({ kind: 'others' })}>
            {t('signOutOthers')}
          </Button>
        }
      />
      <AsyncContent data={list} error={error && <SectionError message={error} />} loading={<RowsSkeleton height="h-12" />}>
        {(list) => (
          <ul aria-label={t('listLabel')} className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {list.map((s) => {
              const device = deviceLabel(s);
              return (
                <li key={s.id} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
                  <div className="min-w-0 text-sm">
                    <p className="flex flex-wrap items-center gap-2 font-medium">
                      {device ? device : s.this_client ? t('thisDevice') : t('otherDevice')}
                      {device && s.this_client && <Badge tone="neutral">{t('thisDevice')}</Badge>}
                      {s.current && <Badge tone="green">{t('current')}</Badge>}
                      {s.status === 'pending' && <Badge tone="amber">{t('pending')}</Badge>}
                      {s.impersonated_by && <Badge tone="amber">{t('impersonated')}</Badge>}
                    </p>
                    <p className="text-zinc-600 dark:text-zinc-400">
                      {t('signedInAt', { date: dates.dateTime(s.created_at) })} ·{' '}
                      {t('lastActive', { when: dates.relative(s.last_active_at) })}
                    </p>
                  </div>
                  {!s.current && (
                    <Button
                      variant="secondary"
                      size="sm"
                      aria-label={t('signOutSessionLabel', { date: dates.dateTime(s.created_at) })}
                      onClick={() => setConfirm({ kind: 'one', session: s })}
                    >
                      {t('signOutSession')}
                    </Button>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </AsyncContent>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.kind === 'others' ? t('confirmOthersTitle') : t('confirmOneTitle')}
        description={confirm?.kind === 'others' ? t('confirmOthersBody', { count: others }) : t('confirmOneBody')}
        confirmLabel={confirm?.kind === 'others' ? t('confirmOthers') : t('confirmOne')}
        describeError={(e) => describe(e).message}
        onConfirm={run}
        onClose={() => setConfirm(null)}
      />
    </Card>
  );
}

const TOKENS = 'hosted.tokens';

function TokensSection() {
  const t = useTranslations(TOKENS);
  const dates = useDates();
  return (
    <OwnSecretsSection<ApiToken>
      ns={TOKENS}
      list={{ path: '/v1/client/me/api_tokens' }}
      revokePath={(id) => `/v1/client/me/api_tokens/${id}/revoke`}
      columns={[
        {
          header: t('name'),
          className: 'font-medium',
          cell: (token) => (
            <>
              {token.name}
              {token.status === 'expired' && (
                <span className="ml-2">
                  <Badge tone="red">{t('expired')}</Badge>
                </span>
              )}
            </>
          ),
        },
        { header: t('scopes'), className: 'font-mono text-xs', cell: (token) => token.scopes.join(', ') },
        {
          header: t('expires'),
          className: 'whitespace-nowrap',
          cell: (token) => (token.expires_at ? dates.dateTime(token.expires_at) : t('neverExpires')),
        },
        {
          header: t('lastUsed'),
          className: 'whitespace-nowrap',
          cell: (token) => (token.last_used_at ? dates.relative(token.last_used_at) : t('neverUsed')),
        },
      ]}
      createDialog={(done) => <CreateTokenDialog {...done} />}
    />
  );
}

function CreateTokenDialog(done: { onClose(): void; onCreated(): void }) {
  const t = useTranslations(TOKENS);
  const { call } = useHosted();
  const [write, setWrite] = useState(false);
  return (
    <CreateOwnSecretDialog
      ns={TOKENS}
      fields={['name', 'scopes', 'expires_in_seconds']}
      nameMaxLength={128}
      expiryDays={[7, 30, 90, 365]}
      create={async (input) => {
        const json = { ...input, scopes: write ? ['me:read', 'me:write'] : ['me:read'] };
        return (await call<ApiToken & { token: string }>('/v1/client/me/api_tokens', { json })).token;
      }}
      {...done}
    >
      {(errors) => (
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium text-zinc-800 dark:text-zinc-200">{t('scopes')}</legend>
          <Checkbox label={t('scopeRead')} checked disabled readOnly />
          <Checkbox label={t('scopeWrite')} checked={write} onChange={(e) => setWrite(e.target.checked)} />
          {errors.scopes && <p className="text-xs font-medium text-red-600 dark:text-red-400">{errors.scopes}</p>}
        </fieldset>
      )}
    </CreateOwnSecretDialog>
  );
}
