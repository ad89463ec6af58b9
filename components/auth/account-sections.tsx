'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useRef, useState } from 'react';
import { Badge, Button, Card, CardBody, CardHeader, Checkbox, ConfirmDialog, EmptyState, Field, FormDialog, Input } from '@/components/ui';
import type { Me } from '@/lib/fapi/types';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { CodeInput, PasswordInput, usePasswordHint } from './fields';
import { useHosted } from './hosted-context';
import { useList, useMeChanged } from './hosted-list';
import { useFormErrors } from './use-form-errors';
import type { FapiItem } from '@/lib/generated/fapi';

/** The hosted profile's own-account sections: email addresses, password, account deletion. */

/** Email addresses or phone numbers: the same list, dialogs and endpoints. */
const KINDS = {
  email: {
    path: '/v1/me/email_addresses',
    field: 'email_address',
    primaryField: 'primary_email_address_id',
    strategy: 'email_code',
    inputType: 'email',
    autoComplete: 'email',
    items: (me: Me) =>
      me.email_addresses.map((a) => ({ id: a.id, value: a.email_address, verified: a.verification?.status === 'verified' })),
    primary: (me: Me) => me.primary_email_address_id,
  },
  phone: {
    path: '/v1/me/phone_numbers',
    field: 'phone_number',
    primaryField: 'primary_phone_number_id',
    strategy: 'phone_code',
    inputType: 'tel',
    autoComplete: 'tel',
    items: (me: Me) =>
      (me.phone_numbers ?? []).map((p) => ({ id: p.id, value: p.phone_number, verified: p.verification?.status === 'verified' })),
    primary: (me: Me) => me.primary_phone_number_id ?? null,
  },
} as const;
type KindName = keyof typeof KINDS;
type Identifier = { id: string; value: string };

export function IdentifiersSection({ me, kind }: { me: Me; kind: KindName }) {
  const meChanged = useMeChanged();
  const t = useTranslations('hosted.profile');
  const ta = useTranslations(`hosted.account.${kind}`);
  const tc = useTranslations('hosted.account');
  const { call } = useHosted();
  const describe = useFapiError();
  const k = KINDS[kind];
  const [adding, setAdding] = useState(false);
  const [verifying, setVerifying] = useState<Identifier | null>(null);
  const [removing, setRemoving] = useState<Identifier | null>(null);
  const [error, setError] = useState<string | null>(null);
  const items = k.items(me);
  const primaryId = k.primary(me);

  async function makePrimary(id: string) {
    setError(null);
    try {
      await call('/v1/me', { method: 'PATCH', json: { [k.primaryField]: id } });
      meChanged();
    } catch (e) {
      setError(describe(e).message);
    }
  }

  return (
    <Card>
      <CardHeader
        title={ta('title')}
        description={ta('description')}
        actions={
          <Button size="sm" variant="secondary" onClick={() => setAdding(true)}>
            {ta('add')}
          </Button>
        }
      />
      {error && (
        <CardBody>
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {error}
          </p>
        </CardBody>
      )}
      {items.length === 0 ? (
        <EmptyState title={ta('none')} />
      ) : (
        <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
          {items.map((a) => {
            const primary = a.id === primaryId;
            return (
              <li key={a.id} aria-label={a.value} className="flex flex-wrap items-center justify-between gap-2 px-5 py-3">
                <span className="flex min-w-0 flex-wrap items-center gap-1.5">
                  <span className="break-all text-sm font-medium">{a.value}</span>
                  {primary && <Badge tone="indigo">{t('primary')}</Badge>}
                  {a.verified ? <Badge tone="green">{t('verified')}</Badge> : <Badge tone="amber">{t('unverified')}</Badge>}
                </span>
                <span className="flex flex-wrap gap-2">
                  {!a.verified && (
                    <Button size="sm" variant="secondary" onClick={() => setVerifying(a)}>
                      {tc('verify')}
                    </Button>
                  )}
                  {a.verified && !primary && (
                    <Button size="sm" variant="secondary" onClick={() => makePrimary(a.id)}>
                      {tc('makePrimary')}
                    </Button>
                  )}
                  {!primary && (
                    <Button size="sm" variant="ghost" onClick={() => setRemoving(a)}>
                      {tc('remove')}
                    </Button>
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {adding && (
        <AddIdentifierDialog
          kind={kind}
          onClose={() => setAdding(false)}
          onAdded={(added) => {
            setAdding(false);
            meChanged();
            setVerifying(added);
          }}
        />
      )}
      {verifying && (
        <VerifyIdentifierDialog
          kind={kind}
          identifier={verifying}
          onClose={() => setVerifying(null)}
          onVerified={() => {
            setVerifying(null);
            meChanged();
          }}
        />
      )}
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title={ta('removeTitle')}
        description={ta('removeDescription', { value: removing?.value ?? '' })}
        confirmLabel={tc('remove')}
        describeError={(e) => describe(e).message}
        onConfirm={async () => {
          await call(`${k.path}/${encodeURIComponent(removing!.id)}`, { method: 'DELETE' });
          setRemoving(null);
          meChanged();
        }}
      />
    </Card>
  );
}

function AddIdentifierDialog({ kind, onClose, onAdded }: { kind: KindName; onClose(): void; onAdded(added: Identifier): void }) {
  const ta = useTranslations(`hosted.account.${kind}`);
  const te = useTranslations('hosted.errors');
  const { call } = useHosted();
  const k = KINDS[kind];
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors([k.field]);
  const [value, setValue] = useState('');

  const submit = handleSubmit(
    async () => {
      const added = await call<Record<string, string> & { id: string }>(k.path, { json: { [k.field]: value.trim() } });
      onAdded({ id: added.id, value: added[k.field]! });
    },
    { check: () => !value.trim() && { [k.field]: te('required') } },
  );

  return (
    <FormDialog open onClose={onClose} title={ta('addTitle')} onSubmit={submit} error={formError} submitLabel={ta('addSubmit')} busy={busy}>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{ta('addDescription')}</p>
      <Field label={ta('label')} hint={ta('hint')} error={fieldErrors[k.field]}>
        {(p) => (
          <Input
            {...p}
            type={k.inputType}
            name={k.field}
            autoComplete={k.autoComplete}
            autoFocus
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        )}
      </Field>
    </FormDialog>
  );
}

const CODE_FIELDS = ['code'] as const;

/** Sends a code once `when` holds, once per dialog (a development double mount sends no second one). */
function useSendOnce(when: boolean, send: () => Promise<void>) {
  const sent = useRef(false);
  const latest = useRef(send);
  latest.current = send;
  useEffect(() => {
    if (!when || sent.current) return;
    sent.current = true;
    void latest.current();
  }, [when]);
}

/** Sends a code to the address or number when it opens, then checks the code typed. */
function VerifyIdentifierDialog({
  kind,
  identifier,
  onClose,
  onVerified,
}: {
  kind: KindName;
  identifier: Identifier;
  onClose(): void;
  onVerified(): void;
}) {
  const ta = useTranslations(`hosted.account.${kind}`);
  const tc = useTranslations('hosted.account');
  const te = useTranslations('hosted.errors');
  const { call } = useHosted();
  const { formError, fieldErrors, busy, handleSubmit, run } = useFormErrors(CODE_FIELDS);
  const [code, setCode] = useState('');
  const k = KINDS[kind];
  const path = `${k.path}/${encodeURIComponent(identifier.id)}`;

  useSendOnce(true, () => run(() => call(`${path}/prepare_verification`, { json: { strategy: k.strategy } }).then(() => undefined)));

  const submit = handleSubmit(
    async () => {
      await call(`${path}/attempt_verification`, { json: { code } });
      onVerified();
    },
    { check: () => code.length !== 6 && { code: te('codeFormat') } },
  );

  return (
    <FormDialog open onClose={onClose} title={ta('verifyTitle')} onSubmit={submit} error={formError} submitLabel={tc('verify')} busy={busy}>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{ta('verifyDescription', { value: identifier.value })}</p>
      <Field label={tc('codeLabel')} error={fieldErrors.code}>
        {(p) => <CodeInput {...p} name="code" autoFocus value={code} onChange={setCode} />}
      </Field>
    </FormDialog>
  );
}

export function PasswordSection({ me }: { me: Me }) {
  const meChanged = useMeChanged();
  const ta = useTranslations('hosted.account');
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState(false);
  return (
    <Card>
      <CardHeader
        title={ta('passwordTitle')}
        description={me.password_enabled ? ta('passwordSet') : ta('passwordNotSet')}
        actions={
          <Button
            size="sm"
            variant="secondary"
            onClick={() => {
              setDone(false);
              setOpen(true);
            }}
          >
            {me.password_enabled ? ta('changePassword') : ta('setPassword')}
          </Button>
        }
      />
      {done && (
        <CardBody>
          <p role="status" className="text-sm text-green-700 dark:text-green-400">
            {ta('passwordChanged')}
          </p>
        </CardBody>
      )}
      {open && (
        <ChangePasswordDialog
          hasPassword={me.password_enabled}
          onClose={() => setOpen(false)}
          onDone={() => {
            setOpen(false);
            setDone(true);
            meChanged();
          }}
        />
      )}
    </Card>
  );
}

const PASSWORD_FIELDS = ['current_password', 'code', 'password', 'new_password'] as const;

/** With the current password, or (forgotten, or none yet) a code emailed to the primary address. */
function ChangePasswordDialog({ hasPassword, onClose, onDone }: { hasPassword: boolean; onClose(): void; onDone(): void }) {
  const ta = useTranslations('hosted.account');
  const te = useTranslations('hosted.errors');
  const { call } = useHosted();
  const { formError, fieldErrors, busy, handleSubmit, run, reset } = useFormErrors(PASSWORD_FIELDS);
  const [withCode, setWithCode] = useState(!hasPassword);
  const [proof, setProof] = useState('');
  const [next, setNext] = useState('');
  const [signOutOthers, setSignOutOthers] = useState(true);
  const passwordHint = usePasswordHint();

  useSendOnce(withCode, () => run(() => call('/v1/me/change_password/prepare', { json: {} }).then(() => undefined)));

  const submit = handleSubmit(
    async () => {
      await call('/v1/me/change_password', {
        json: {
          ...(withCode ? { code: proof } : { current_password: proof }),
          new_password: next,
          sign_out_of_other_sessions: signOutOthers,
        },
      });
      onDone();
    },
    {
      check: () => {
        const errors: Record<string, string> = {};
        if (withCode ? proof.length !== 6 : !proof)
          errors[withCode ? 'code' : 'current_password'] = withCode ? te('codeFormat') : te('required');
        if (!next) errors.password = te('required');
        return Object.keys(errors).length > 0 && errors;
      },
    },
  );

  return (
    <FormDialog
      open
      onClose={onClose}
      title={hasPassword ? ta('changePassword') : ta('setPassword')}
      onSubmit={submit}
      error={formError}
      submitLabel={ta('savePassword')}
      busy={busy}
    >
      {withCode ? (
        <>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{ta('codeSent')}</p>
          <Field key="code" label={ta('codeLabel')} error={fieldErrors.code}>
            {(p) => <CodeInput {...p} name="code" autoFocus value={proof} onChange={setProof} />}
          </Field>
        </>
      ) : (
        <Field key="current" label={ta('currentPassword')} error={fieldErrors.current_password}>
          {(p) => (
            <PasswordInput
              {...p}
              name="current_password"
              autoComplete="current-password"
              autoFocus
              value={proof}
              onChange={(e) => setProof(e.target.value)}
            />
          )}
        </Field>
      )}
      <Field label={ta('newPassword')} hint={passwordHint} error={fieldErrors.password ?? fieldErrors.new_password}>
        {(p) => (
          <PasswordInput {...p} name="new_password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
        )}
      </Field>
      <Checkbox label={ta('signOutOthers')} checked={signOutOthers} onChange={(e) => setSignOutOthers(e.target.checked)} />
      {hasPassword && !withCode && (
        <Button
          variant="ghost"
          size="sm"
          className="self-start"
          onClick={() => {
            reset();
            setProof('');
            setWithCode(true);
          }}
        >
          {ta('forgotCurrent')}
        </Button>
      )}
    </FormDialog>
  );
}

/** Shown when the instance lets users delete their own account; typing the confirmation word arms it. */
export function DeleteAccountSection() {
  const ta = useTranslations('hosted.account');
  const { env, call, href } = useHosted();
  const describe = useFapiError();
  const [open, setOpen] = useState(false);
  if (!env?.user_settings.actions?.delete_self) return null;
  return (
    <Card>
      <CardHeader
        title={ta('deleteTitle')}
        description={ta('deleteDescription')}
        actions={
          <Button size="sm" variant="danger" onClick={() => setOpen(true)}>
            {ta('deleteAccount')}
          </Button>
        }
      />
      <ConfirmDialog
        open={open}
        onClose={() => setOpen(false)}
        title={ta('deleteConfirmTitle')}
        description={ta('deleteConfirmDescription', { word: ta('deleteWord') })}
        confirmLabel={ta('deleteAccount')}
        confirmText={ta('deleteWord')}
        confirmTextLabel={ta('deleteConfirmLabel', { word: ta('deleteWord') })}
        describeError={(e) => describe(e).message}
        onConfirm={async () => {
          await call('/v1/me', { method: 'DELETE' });
          window.location.assign(href('/sign-in'));
        }}
      />
    </Card>
  );
}

type ConnectedAccount = FapiItem<'GET /v1/me/connected_accounts'>;

/** Social and enterprise SSO accounts the user signs in with; social ones can be disconnected. Hidden while there are none. */
export function ConnectedAccountsSection() {
  const ta = useTranslations('hosted.account');
  const { call } = useHosted();
  const describe = useFapiError();
  const { list, load } = useList<ConnectedAccount>('/v1/me/connected_accounts');
  const [removing, setRemoving] = useState<ConnectedAccount | null>(null);
  if (!list || list.length === 0) return null;
  return (
    <Card>
      <CardHeader title={ta('connectedTitle')} description={ta('connectedDescription')} />
      <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
        {list.map((a) => (
          <li key={a.id} aria-label={a.provider_name} className="flex flex-wrap items-center justify-between gap-2 px-5 py-3">
            <span className="min-w-0 text-sm">
              <span className="font-medium">{a.provider_name}</span>
              {a.email_address && <span className="block break-all text-zinc-600 dark:text-zinc-400">{a.email_address}</span>}
              {a.organization && (
                <span className="block text-zinc-600 dark:text-zinc-400">{ta('enterpriseOf', { organization: a.organization.name })}</span>
              )}
            </span>
            {a.removable && (
              <Button size="sm" variant="ghost" onClick={() => setRemoving(a)}>
                {ta('disconnect')}
              </Button>
            )}
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title={ta('disconnectTitle', { provider: removing?.provider_name ?? '' })}
        description={ta('disconnectDescription', { provider: removing?.provider_name ?? '' })}
        confirmLabel={ta('disconnect')}
        describeError={(e) => describe(e).message}
        onConfirm={async () => {
          await call(`/v1/me/connected_accounts/${encodeURIComponent(removing!.id)}`, { method: 'DELETE' });
          setRemoving(null);
          load();
        }}
      />
    </Card>
  );
}
