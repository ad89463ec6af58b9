'use client';

import { personLabel, usePeople } from './person';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import {
  ActionCell,
  Alert,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  ConfirmDialog,
  Dialog,
  FactList,
  Field,
  SecretValue,
  ShownOnce,
  Skeleton,
  Td,
  Textarea,
  Tr,
} from '@/components/ui';
import { displayName, initials, primaryEmail, useDates } from '@/lib/console/format';
import { api, pages } from '@/lib/console/paths';
import { deviceParts } from '@/lib/session-activity';
import type { ActorToken, EmailAddress, InstanceResponse, Session, User } from '@/lib/console/types';
import { isObject, mergePatch } from '@/lib/console/merge-patch';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { Breadcrumbs } from './breadcrumbs';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { CardTable, ErrorState } from './states';
import { useActions } from './use-actions';
import { useFormError } from './use-form-error';
import {
  AccessTokensCard,
  AddIdentifierDialog,
  ApiKeysCard,
  EditProfileDialog,
  OrganizationsCard,
  SecurityCard,
  useUserChanged,
} from './user-account-cards';
import { PasskeysCard } from './user-passkeys-card';

/** How long an impersonation link can be used: an hour (the API's default), stated before it is made. */
const IMPERSONATION_LINK_SECONDS = 3600;

/**
 * `…/users/[userId]`: profile (names, username), contact details (add, verify, make primary,
 * remove), security (password, two-step verification, lock), sessions, organizations,
 * personal access tokens, API keys, ban, delete, metadata and impersonation. After a write
 * a card refetches what it changed: the user and everything below it, and the API keys (`useUserChanged`).
 */
export function UserDetail({ userId }: { userId: string }) {
  const { account } = useConsole();
  const instance = useInstance();
  const base = `${api.instance(account.id, instance.id)}/users/${encodeURIComponent(userId)}`;
  const user = useDashboard<User>(base);

  if (user.error) return <ErrorState error={user.error} onRetry={user.reload} />;
  if (!user.data) return <UserSkeleton />;
  const props = { user: user.data, base };
  return (
    <div className="flex flex-col gap-8">
      <UserHeader {...props} />
      <div className="grid gap-8 lg:grid-cols-2">
        <Identifiers {...props} />
        <Facts {...props} />
      </div>
      <SecurityCard {...props} />
      <Sessions {...props} />
      <OrganizationsCard {...props} />
      <div className="grid gap-8 xl:grid-cols-2">
        <PasskeysCard {...props} />
        <AccessTokensCard {...props} />
        <ApiKeysCard {...props} />
      </div>
      <MetadataEditor user={user.data} base={base} onSaved={user.setData} />
    </div>
  );
}

type PageProps = { user: User; base: string };

function UserSkeleton() {
  return (
    <div className="flex flex-col gap-8" aria-busy>
      <div className="flex items-center gap-4">
        <Skeleton className="size-14 rounded-full" />
        <div className="flex flex-col gap-2">
          <Skeleton className="h-7 w-56" />
          <Skeleton className="h-4 w-72" />
        </div>
      </div>
      <div className="grid gap-8 lg:grid-cols-2">
        <Skeleton className="h-40 w-full" />
        <Skeleton className="h-40 w-full" />
      </div>
      <Skeleton className="h-48 w-full" />
    </div>
  );
}

function UserHeader({ user, base }: PageProps) {
  const userChanged = useUserChanged(base);
  const t = useTranslations('console.user');
  const tUsers = useTranslations('console.users');
  const tConfirm = useTranslations('console.confirm');
  const router = useRouter();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const name = displayName(user);
  const email = primaryEmail(user);
  const [confirm, setConfirm] = useState<'ban' | 'lock' | 'delete' | 'impersonate' | null>(null);
  const dates = useDates();
  const tProtection = useTranslations('protection');
  const { busy, act, alert } = useActions<'unban' | 'unlock'>();
  const [ticket, setTicket] = useState<ActorToken | null>(null);
  /** Unban or unlock: a POST answering the user; the page then reloads what it shows. */
  const lift = (action: 'unban' | 'unlock') =>
    act(action, async () => {
      await mutate<User>('POST', `${base}/${action}`);
      await userChanged();
    });
  const impersonate = async () =>
    setTicket(await mutate<ActorToken>('POST', `${base}/impersonate`, { expires_in_seconds: IMPERSONATION_LINK_SECONDS }));

  const deleteConfirmText = email ?? user.id;
  const ticketLink = (ticket: ActorToken) => `${instance.fapi_url}/sign-in#ticket=${encodeURIComponent(ticket.token)}`;
  return (
    <div className="flex flex-col gap-4">
      <Breadcrumbs segment="users" current={name ?? email ?? user.id} />
      <header className="flex flex-wrap items-center justify-between gap-4">
        <div className="flex min-w-0 items-center gap-4">
          <span
            aria-hidden
            className="grid size-14 shrink-0 place-items-center rounded-full bg-indigo-100 text-lg font-semibold text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300"
          >
            {initials(name, email)}
          </span>
          <div className="min-w-0">
            <h1 className="flex flex-wrap items-center gap-2 text-2xl font-semibold tracking-tight">
              <span className="truncate">{name ?? email ?? user.id}</span>
              {user.banned && <Badge tone="red">{tUsers('banned')}</Badge>}
              {user.locked && <Badge tone="amber">{t('locked')}</Badge>}
            </h1>
            <p className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{user.id}</p>
          </div>
        </div>
        {canWrite && (
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" onClick={() => setConfirm('impersonate')} disabled={user.banned}>
              {t('impersonate')}
            </Button>
            {user.banned ? (
              <Button variant="secondary" loading={busy === 'unban'} onClick={() => lift('unban')}>
                {t('unban')}
              </Button>
            ) : (
              <Button variant="secondary" onClick={() => setConfirm('ban')}>
                {t('ban')}
              </Button>
            )}
            {user.locked ? (
              <Button variant="secondary" loading={busy === 'unlock'} onClick={() => lift('unlock')}>
                {tProtection('unlock')}
              </Button>
            ) : (
              <Button variant="secondary" onClick={() => setConfirm('lock')}>
                {t('lock')}
              </Button>
            )}
            <Button variant="danger" onClick={() => setConfirm('delete')}>
              {t('delete')}
            </Button>
          </div>
        )}
      </header>
      {alert}

      <ConfirmDialog
        open={confirm === 'ban'}
        onClose={() => setConfirm(null)}
        title={t('banTitle')}
        description={t('banDescription', { name: name ?? email ?? user.id })}
        confirmLabel={t('ban')}
        onConfirm={async () => {
          await mutate<User>('POST', `${base}/ban`);
          await userChanged();
        }}
      />
      <ConfirmDialog
        open={confirm === 'lock'}
        onClose={() => setConfirm(null)}
        title={t('lockTitle')}
        description={t('lockDescription', { name: name ?? email ?? user.id })}
        confirmLabel={t('lock')}
        onConfirm={async () => {
          await mutate<User>('POST', `${base}/lock`);
          await userChanged();
        }}
      />
      <ConfirmDialog
        open={confirm === 'delete'}
        onClose={() => setConfirm(null)}
        title={t('deleteTitle')}
        description={t('deleteDescription', { name: name ?? email ?? user.id })}
        confirmLabel={t('deleteConfirm')}
        confirmText={deleteConfirmText}
        confirmTextLabel={tConfirm('typeToConfirm', { text: deleteConfirmText })}
        onConfirm={async () => {
          await mutate('DELETE', base);
          router.replace(pages.instance(account.id, instance.id, 'users'));
        }}
      />
      <ConfirmDialog
        open={confirm === 'impersonate'}
        onClose={() => setConfirm(null)}
        title={t('impersonateConfirmTitle', { name: name ?? email ?? user.id })}
        description={t('impersonateConfirm', { minutes: IMPERSONATION_LINK_SECONDS / 60 })}
        confirmLabel={t('impersonateConfirmButton')}
        onConfirm={impersonate}
      />
      <Dialog open={ticket !== null} onClose={() => setTicket(null)} title={t('impersonateTitle')}>
        {ticket && (
          <ShownOnce
            warning={`${t('impersonateWarning')}${ticket.expires_at ? ` ${t('impersonateExpires', { time: dates.dateTime(ticket.expires_at) })}` : ''}`}
            actions={
              <>
                <Button variant="secondary" onClick={() => setTicket(null)}>
                  {t('done')}
                </Button>
                <a
                  href={ticketLink(ticket)}
                  target="_blank"
                  rel="noreferrer"
                  className="inline-flex h-10 items-center rounded-md bg-indigo-600 px-4 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
                >
                  {t('openSignIn')} ↗
                </a>
              </>
            }
          >
            <SecretValue value={ticket.token} label={t('actorToken')} />
            <SecretValue value={ticketLink(ticket)} label={t('signInLink')} />
          </ShownOnce>
        )}
      </Dialog>
    </div>
  );
}

type Kind = 'email_address' | 'phone_number';
/** An email address or phone number as the contact list shows it: its id, the address or number, its verification. */
type ContactItem = Pick<EmailAddress, 'id' | 'verification'> & { value: string };

function Identifiers({ user, base }: PageProps) {
  const userChanged = useUserChanged(base);
  const t = useTranslations('console.user');
  const { canWrite } = useConsole();
  const [adding, setAdding] = useState<Kind | null>(null);
  const [removing, setRemoving] = useState<{ kind: Kind; item: ContactItem } | null>(null);
  const { busy, act, alert } = useActions();
  const path = (kind: Kind) => `${base}/${kind === 'email_address' ? 'email_addresses' : 'phone_numbers'}`;
  const verify = (kind: Kind, item: ContactItem) =>
    act(`verify:${item.id}`, async () => {
      await mutate('POST', `${path(kind)}/${encodeURIComponent(item.id)}/verify`);
      await userChanged();
      return t('identifierVerified', { value: item.value });
    });
  const makePrimary = (kind: Kind, item: ContactItem) =>
    act(`primary:${item.id}`, async () => {
      await mutate('PATCH', base, kind === 'email_address' ? { primary_email_address_id: item.id } : { primary_phone_number_id: item.id });
      await userChanged();
      return t('madePrimary', { value: item.value });
    });
  const list = (kind: Kind) => ({
    kind,
    canWrite,
    busy,
    onVerify: (item: ContactItem) => verify(kind, item),
    onMakePrimary: (item: ContactItem) => makePrimary(kind, item),
    onRemove: (item: ContactItem) => setRemoving({ kind, item }),
  });
  return (
    <Card>
      <CardHeader
        title={t('contactTitle')}
        actions={
          canWrite && (
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" size="sm" onClick={() => setAdding('email_address')}>
                {t('addEmail')}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => setAdding('phone_number')}>
                {t('addPhone')}
              </Button>
            </div>
          )
        }
      />
      <CardBody className="flex flex-col gap-4">
        {alert}
        <ContactList
          {...list('email_address')}
          title={t('emails')}
          empty={t('noEmails')}
          items={user.email_addresses.map((e) => ({ id: e.id, value: e.email_address, verification: e.verification }))}
          primaryId={user.primary_email_address_id}
          valueClassName="min-w-0 break-all"
        />
        <ContactList
          {...list('phone_number')}
          title={t('phones')}
          empty={t('noPhones')}
          items={user.phone_numbers.map((p) => ({ id: p.id, value: p.phone_number, verification: p.verification }))}
          primaryId={user.primary_phone_number_id}
          valueClassName="font-mono"
        />
      </CardBody>
      {adding && (
        <AddIdentifierDialog
          kind={adding}
          base={base}
          onClose={() => setAdding(null)}
          onAdded={() => {
            setAdding(null);
            void userChanged();
          }}
        />
      )}
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title={t('removeIdentifierTitle', { value: removing?.item.value ?? '' })}
        description={t('removeIdentifierDescription')}
        confirmLabel={t('remove')}
        onConfirm={async () => {
          await mutate('DELETE', `${path(removing!.kind)}/${encodeURIComponent(removing!.item.id)}`);
          await userChanged();
        }}
      />
    </Card>
  );
}

/**
 * A titled list of a user's email addresses or phone numbers, marking the primary one and each
 * verification; for admins, verify (unverified ones), make primary (verified ones) and remove
 * (all but the primary one).
 */
function ContactList({
  title,
  empty,
  items,
  primaryId,
  valueClassName,
  canWrite,
  busy,
  onVerify,
  onMakePrimary,
  onRemove,
}: {
  title: string;
  empty: string;
  items: ContactItem[];
  primaryId: string | null;
  valueClassName: string;
  canWrite: boolean;
  busy: string | null;
  onVerify: (item: ContactItem) => void;
  onMakePrimary: (item: ContactItem) => void;
  onRemove: (item: ContactItem) => void;
}) {
  const t = useTranslations('console.user');
  return (
    <section aria-label={title} className="flex flex-col gap-2">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{title}</h3>
      {items.length === 0 ? (
        <p className="text-sm text-zinc-500 dark:text-zinc-400">{empty}</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {items.map((item) => {
            const verified = item.verification?.status === 'verified';
            const primary = item.id === primaryId;
            return (
              <li key={item.id} className="flex flex-wrap items-center gap-2 text-sm">
                <span className={valueClassName}>{item.value}</span>
                {primary && <Badge tone="indigo">{t('primary')}</Badge>}
                {verified ? <Badge tone="green">{t('verified')}</Badge> : <Badge>{t('unverified')}</Badge>}
                {canWrite && (
                  <span className="ml-auto flex flex-wrap gap-1">
                    {!verified && (
                      <Button
                        variant="ghost"
                        size="sm"
                        loading={busy === `verify:${item.id}`}
                        onClick={() => onVerify(item)}
                        aria-label={t('verifyItem', { value: item.value })}
                      >
                        {t('verify')}
                      </Button>
                    )}
                    {verified && !primary && (
                      <Button
                        variant="ghost"
                        size="sm"
                        loading={busy === `primary:${item.id}`}
                        onClick={() => onMakePrimary(item)}
                        aria-label={t('makePrimaryItem', { value: item.value })}
                      >
                        {t('makePrimary')}
                      </Button>
                    )}
                    {!primary && (
                      <Button variant="ghost" size="sm" onClick={() => onRemove(item)} aria-label={t('removeItem', { value: item.value })}>
                        {t('remove')}
                      </Button>
                    )}
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function Facts({ user, base }: PageProps) {
  const userChanged = useUserChanged(base);
  const t = useTranslations('console.user');
  const { canWrite } = useConsole();
  const dates = useDates();
  const [editing, setEditing] = useState(false);
  const rows: Array<[string, string]> = [
    [t('firstName'), user.first_name ?? '—'],
    [t('lastName'), user.last_name ?? '—'],
    [t('username'), user.username ?? '—'],
    [t('externalId'), user.external_id ?? '—'],
    [t('created'), dates.dateTime(user.created_at)],
    [t('lastSignIn'), dates.dateTime(user.last_sign_in_at)],
  ];
  return (
    <Card>
      <CardHeader
        title={t('profileTitle')}
        actions={
          canWrite && (
            <Button variant="secondary" size="sm" onClick={() => setEditing(true)}>
              {t('editProfile')}
            </Button>
          )
        }
      />
      <CardBody>
        <FactList facts={rows} className="grid-cols-[auto_1fr] gap-x-6 gap-y-2.5" />
      </CardBody>
      {editing && (
        <EditProfileDialog
          user={user}
          base={base}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            void userChanged();
          }}
        />
      )}
    </Card>
  );
}

const LIVE_STATUSES = new Set(['active', 'pending']);

function Sessions({ base }: PageProps) {
  const userChanged = useUserChanged(base);
  const t = useTranslations('console.user');
  const dates = useDates();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const sessions = useDashboard<InstanceResponse<'GET /users/{id}/sessions'>>(`${base}/sessions?limit=100`);
  const people = usePeople(sessions.data?.data.map((x) => x.impersonated_by) ?? []);
  const [confirm, setConfirm] = useState<Session | 'all' | null>(null);
  const live = sessions.data?.data.filter((s) => LIVE_STATUSES.has(s.status)) ?? [];

  return (
    <Card>
      <CardHeader
        title={t('sessionsTitle')}
        description={t('sessionsDescription')}
        actions={
          canWrite && (
            <Button variant="secondary" disabled={live.length === 0} onClick={() => setConfirm('all')}>
              {t('revokeAll')}
            </Button>
          )
        }
      />
      <CardTable
        data={sessions.data?.data}
        error={sessions.error}
        onRetry={sessions.reload}
        columns={6}
        rows={2}
        emptyTitle={t('noSessionsTitle')}
        emptyDescription={t('noSessionsDescription')}
        caption={t('sessionsTitle')}
        headings={[t('session'), t('device'), t('status'), t('created'), t('lastActive'), t('expires')]}
        actions={canWrite && t('actions')}
        row={(s) => (
          <Tr key={s.id}>
            <Td>
              <span className="font-mono text-xs">{s.id}</span>
              {s.impersonated_by && (
                <span className="mt-1 block">
                  <Badge tone="amber">
                    <span title={s.impersonated_by}>{t('impersonatedBy', { actor: personLabel(people, s.impersonated_by) })}</span>
                  </Badge>
                </span>
              )}
            </Td>
            <Td>
              <SessionDevice session={s} />
            </Td>
            <Td>
              <Badge tone={s.status === 'active' ? 'green' : s.status === 'pending' ? 'amber' : 'neutral'}>
                {t.has(`sessionStatus.${s.status}`) ? t(`sessionStatus.${s.status}`) : s.status}
              </Badge>
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.dateTime(s.created_at)}</Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.relative(s.last_active_at)}</Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.dateTime(s.expire_at)}</Td>
            {canWrite && (
              <ActionCell show={LIVE_STATUSES.has(s.status)} onClick={() => setConfirm(s)} aria-label={t('revokeSession', { id: s.id })}>
                {t('revoke')}
              </ActionCell>
            )}
          </Tr>
        )}
      />
      <ConfirmDialog
        open={confirm !== null}
        onClose={() => setConfirm(null)}
        title={confirm === 'all' ? t('revokeAllTitle') : t('revokeTitle')}
        description={confirm === 'all' ? t('revokeAllDescription') : t('revokeDescription')}
        confirmLabel={confirm === 'all' ? t('revokeAll') : t('revoke')}
        onConfirm={async () => {
          if (confirm === 'all') await mutate('POST', `${base}/sessions/revoke`);
          else if (confirm) await mutate('POST', `${api.instance(account.id, instance.id)}/sessions/${confirm.id}/revoke`);
          await userChanged();
        }}
      />
    </Card>
  );
}

/** "Chrome 131 on macOS", a desktop/mobile/tablet hint and the IP; "Unknown device" for headless sessions. */
function SessionDevice({ session }: { session: Session }) {
  const t = useTranslations('console.user');
  const activity = session.latest_activity;
  const parts = deviceParts(activity, { version: true });
  const name =
    parts?.browser && parts.os
      ? t('deviceOn', { browser: parts.browser, os: parts.os })
      : (parts?.browser ?? parts?.os ?? t('unknownDevice'));
  const type = activity?.device_type;
  return (
    <div className="text-sm">
      <span className="flex flex-wrap items-center gap-2">
        {name}
        {type && type !== 'unknown' && <Badge tone="neutral">{t(`deviceType.${type}`)}</Badge>}
      </span>
      {activity?.ip_address && (
        <span className="block font-mono text-xs text-zinc-600 dark:text-zinc-400" title={t('ipAddress', { ip: activity.ip_address })}>
          {activity.ip_address}
        </span>
      )}
    </div>
  );
}

type MetaKey = 'public_metadata' | 'private_metadata' | 'unsafe_metadata';
const META_KEYS: MetaKey[] = ['public_metadata', 'private_metadata', 'unsafe_metadata'];

/** Each metadata object as indented JSON, for its textarea. */
const textOf = (user: User) =>
  Object.fromEntries(META_KEYS.map((k) => [k, JSON.stringify(user[k] ?? {}, null, 2)])) as Record<MetaKey, string>;

function MetadataEditor({ user, base, onSaved }: { user: User; base: string; onSaved: (u: User) => void }) {
  const t = useTranslations('console.user');
  const tCommon = useTranslations('common');
  const { canWrite } = useConsole();
  const form = useFormError(META_KEYS);
  const [text, setText] = useState<Record<MetaKey, string>>(() => textOf(user));
  const [invalid, setInvalid] = useState<Partial<Record<MetaKey, string>>>({});
  const [saved, setSaved] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    form.clear();
    setSaved(false);
    const parsed: Partial<Record<MetaKey, Record<string, unknown>>> = {};
    const errors: Partial<Record<MetaKey, string>> = {};
    for (const key of META_KEYS) {
      try {
        const value: unknown = JSON.parse(text[key] || '{}');
        if (!isObject(value)) errors[key] = t('metadataObject');
        else parsed[key] = value;
      } catch {
        errors[key] = tCommon('errors.invalidJson');
      }
    }
    setInvalid(errors);
    if (Object.keys(errors).length > 0) return;
    const body: Record<string, unknown> = {};
    for (const key of META_KEYS) {
      const patch = mergePatch(user[key] ?? {}, parsed[key]!);
      if (Object.keys(patch).length > 0 && JSON.stringify(user[key] ?? {}) !== JSON.stringify(parsed[key])) body[key] = patch;
    }
    if (Object.keys(body).length === 0) {
      setSaved(true);
      return;
    }
    void form.run(async () => {
      const updated = await mutate<User>('PATCH', base, body);
      onSaved(updated);
      setText(textOf(updated));
      setSaved(true);
    });
  }

  return (
    <Card>
      <CardHeader title={t('metadataTitle')} description={t('metadataDescription')} />
      <form onSubmit={submit} noValidate>
        <CardBody className="flex flex-col gap-5">
          {form.formError && <Alert tone="error">{form.formError}</Alert>}
          {saved && <Alert tone="success">{t('metadataSaved')}</Alert>}
          <div className="grid gap-5 lg:grid-cols-3">
            {META_KEYS.map((key) => (
              <Field key={key} label={t(`metadata.${key}`)} hint={t(`metadataHint.${key}`)} error={invalid[key] ?? form.fieldError(key)}>
                {(p) => (
                  <Textarea
                    {...p}
                    rows={8}
                    spellCheck={false}
                    readOnly={!canWrite}
                    value={text[key]}
                    onChange={(e) => {
                      setSaved(false);
                      setText((s) => ({ ...s, [key]: e.target.value }));
                    }}
                  />
                )}
              </Field>
            ))}
          </div>
          {canWrite && (
            <div className="flex justify-end">
              <Button type="submit" loading={form.busy}>
                {t('saveMetadata')}
              </Button>
            </div>
          )}
        </CardBody>
      </form>
    </Card>
  );
}
