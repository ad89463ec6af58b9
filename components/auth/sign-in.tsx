'use client';

import { useRouter, useSearchParams } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Alert, Button, Field, Skeleton } from '@/components/ui';
import { clearFlow, writeFlow } from '@/lib/fapi/flow';
import type { Me, SignInAnswer } from '@/lib/fapi/types';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { IdentifierInput, PasswordInput } from './fields';
import { forgetFragmentTicket, useFragmentTicket } from './fragment-ticket';
import { appName, needsMfaSetup, useEndSession, useHosted } from './hosted-context';
import { AuthCard, AuthForm, Divider, Working, PendingAuthCard, TextLink, strong } from './shell';
import { useFormErrors } from './use-form-errors';
import { isSsoRequired, useIdentityProvider } from './identity-provider';
import { SocialButtons } from './social-buttons';
import { PasskeySignInButton, usePasskeyAutofill, usePasskeysOffered } from './passkeys';

const FIELDS = ['identifier', 'password'] as const;

/** Sends a finished or half-finished sign-in where it goes next. */
export function useSignInStep() {
  const router = useRouter();
  const { instanceId, href, afterAuth, setClient } = useHosted();
  return (res: SignInAnswer, identifier: string) => {
    setClient(res.client);
    const attempt = res.response;
    if (attempt.status === 'complete') {
      clearFlow(instanceId, 'sign_in');
      afterAuth(res.client, attempt.created_session_id);
    } else if (attempt.status === 'needs_second_factor') {
      writeFlow(instanceId, 'sign_in', { id: attempt.id, identifier });
      router.push(href('/sign-in/factor-two'));
    }
  };
}

export function SignInPage() {
  const t = useTranslations('hosted.signIn');
  const tw = useTranslations('waitlist.hosted');
  const { env, client, loadError, href } = useHosted();
  const router = useRouter();
  const ticket = useFragmentTicket();
  // prompt=login: the OpenID Provider asks for a fresh sign-in, so the session the browser has is not offered.
  const freshSignIn = useSearchParams().get('prompt') === 'login';
  const [anotherAccount, setAnotherAccount] = useState(freshSignIn);

  const session = client?.session ?? null;
  const pendingSetup = needsMfaSetup(session);
  useEffect(() => {
    if (pendingSetup && !ticket) router.replace(href('/sign-in/setup-mfa'));
  }, [pendingSetup, ticket, router, href]);

  const signUpLink = env?.user_settings.sign_up.open ? (
    <>
      {t('noAccount')} <TextLink href={href('/sign-up')}>{t('signUpLink')}</TextLink>
    </>
  ) : env?.user_settings.sign_up.mode === 'waitlist' ? (
    <>
      {t('noAccount')} <TextLink href={href('/waitlist')}>{tw('joinLink')}</TextLink>
    </>
  ) : undefined;

  if (loadError || !env || !client) return <PendingAuthCard title={t('title')} fields={2} buttons={2} />;
  if (ticket) return <TicketRedemption ticket={ticket} />;
  if (session?.status === 'active' && !anotherAccount) return <AlreadySignedIn onAnotherAccount={() => setAnotherAccount(true)} />;
  return (
    <AuthCard title={t('title')} subtitle={t('subtitle', { name: appName(env) })} footer={signUpLink}>
      <SocialButtons flow="sign_in" />
      <SignInForm />
    </AuthCard>
  );
}

function SignInForm() {
  const t = useTranslations('hosted.signIn');
  const tf = useTranslations('hosted.fields');
  const te = useTranslations('hosted.errors');
  const router = useRouter();
  const { env, instanceId, call, href } = useHosted();
  const step = useSignInStep();
  const { formError, fieldErrors, setFieldErrors, show, reset } = useFormErrors(FIELDS);
  // The instance's sign-in methods: a password, an emailed code, a username besides the email address.
  const factors = env?.user_settings.first_factors ?? ['password', 'email_code'];
  const withPassword = factors.includes('password');
  const withCode = factors.includes('email_code');
  const withPhone = factors.includes('phone_code');
  const withLink = factors.includes('email_link');
  const withUsername = env?.user_settings.identifiers.includes('username') ?? true;
  const identifierLabel = withPhone
    ? withUsername
      ? tf('identifierPhone')
      : tf('emailOrPhone')
    : withUsername
      ? tf('identifier')
      : tf('email');

  const identityProvider = useIdentityProvider();
  const toIdentityProvider = () => identityProvider(identifier);
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState<'password' | 'code' | 'link' | null>(null);
  // Passkeys: the browser's autofill offers them in the identifier field, and a button opens its dialog.
  const withPasskey = usePasskeysOffered();
  const passkeyDone = (res: SignInAnswer) => step(res, '');
  usePasskeyAutofill(withPasskey, passkeyDone, show);

  function requireFields(withPassword: boolean): boolean {
    const missing: Record<string, string> = {};
    if (!identifier.trim()) missing.identifier = te('required');
    if (withPassword && !password) missing.password = te('required');
    setFieldErrors(missing);
    return Object.keys(missing).length === 0;
  }

  /** Signs in one way (`password`, a `code`, an emailed `link`): the fields it needs checked, its button loading until the page moves on. */
  async function attempt(way: 'password' | 'code' | 'link', action: () => Promise<void>) {
    reset();
    if (!requireFields(false)) return;
    setBusy(way);
    try {
      // After the email alone (no password typed yet), or when a password is refused for an SSO domain: the IdP.
      if (way === 'password' && !password && (await toIdentityProvider())) return;
      if (!requireFields(way === 'password')) return setBusy(null);
      await action();
    } catch (err) {
      if (isSsoRequired(err) && (await toIdentityProvider().catch(() => false))) return;
      show(err);
      setBusy(null);
    }
  }

  function signInWithPassword(e: FormEvent) {
    e.preventDefault();
    void attempt('password', async () => {
      const res = await call<SignInAnswer>('/v1/client/sign_ins', { json: { identifier: identifier.trim(), password } });
      step(res, identifier.trim());
    });
  }

  /** A one-time code: by SMS to a phone number the instance takes as an identifier, else by email. */
  const sendCode = () =>
    attempt('code', async () => {
      const created = await call<SignInAnswer>('/v1/client/sign_ins', { json: { identifier: identifier.trim() } });
      const id = created.response.id;
      const offered = created.response.supported_first_factors;
      const strategy = offered.some((f) => f.strategy === 'phone_code') ? 'phone_code' : 'email_code';
      await call(`/v1/client/sign_ins/${id}/prepare_first_factor`, { json: { strategy } });
      const safe = offered.find((f) => f.strategy === strategy)?.safe_identifier;
      writeFlow(instanceId, 'sign_in', { id, identifier: safe ?? identifier.trim(), sentAt: Date.now(), strategy });
      router.push(href('/sign-in/verify'));
    });
  const sendLink = () =>
    attempt('link', async () => {
      const created = await call<SignInAnswer>('/v1/client/sign_ins', { json: { identifier: identifier.trim() } });
      const id = created.response.id;
      await call(`/v1/client/sign_ins/${id}/prepare_first_factor`, { json: { strategy: 'email_link' } });
      const safe = created.response.supported_first_factors.find((f) => f.strategy === 'email_link')?.safe_identifier;
      writeFlow(instanceId, 'sign_in', { id, identifier: safe ?? identifier.trim(), sentAt: Date.now(), strategy: 'email_link' });
      router.push(href('/sign-in/verify'));
    });
  const codeLabel = withPhone ? t('sendCode') : t('emailCode');
  // Without a password, the first of the code and the link is the form's own button; the others follow it.
  const ways = [
    ...(withCode || withPhone ? [{ way: 'code' as const, label: codeLabel, run: sendCode }] : []),
    ...(withLink ? [{ way: 'link' as const, label: t('emailLink'), run: sendLink }] : []),
  ];
  const primary = withPassword ? null : (ways[0] ?? null);
  const others = ways.filter((w) => w !== primary);

  return (
    <AuthForm
      onSubmit={
        primary
          ? (e: FormEvent) => {
              e.preventDefault();
              void primary.run();
            }
          : signInWithPassword
      }
      error={formError}
      submitLabel={primary ? primary.label : t('submit')}
      busy={busy === (primary ? primary.way : 'password')}
      disabled={busy !== null}
      after={
        (others.length > 0 || withPasskey) && (
          <>
            <Divider label={t('or')} />
            {others.map((w) => (
              <Button key={w.way} variant="secondary" onClick={w.run} loading={busy === w.way} disabled={busy !== null}>
                {w.label}
              </Button>
            ))}
            {withPasskey && <PasskeySignInButton identifier={identifier} disabled={busy !== null} onAnswer={passkeyDone} onError={show} />}
          </>
        )
      }
    >
      <Field label={identifierLabel} error={fieldErrors.identifier}>
        {(p) => (
          <IdentifierInput
            {...p}
            name="identifier"
            type="text"
            autoComplete={withPasskey ? 'username webauthn' : 'username'}
            autoFocus
            value={identifier}
            onChange={(e) => setIdentifier(e.target.value)}
          />
        )}
      </Field>
      {withPassword && (
        <div className="flex flex-col gap-1.5">
          <Field label={tf('password')} error={fieldErrors.password}>
            {(p) => (
              <PasswordInput
                {...p}
                name="password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          <TextLink href={href('/forgot-password')} className="self-end text-sm">
            {t('forgotPassword')}
          </TextLink>
        </div>
      )}
    </AuthForm>
  );
}

/** `#ticket=…` (an impersonation or sign-in token): redeemed once, then on as any sign-in. */
function TicketRedemption({ ticket }: { ticket: string }) {
  const t = useTranslations('hosted.signIn');
  const { call, href } = useHosted();
  const describe = useFapiError();
  const step = useSignInStep();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    forgetFragmentTicket();
    call<SignInAnswer>('/v1/client/sign_ins', { json: { strategy: 'ticket', ticket } }).then(
      (res) => step(res, ''),
      (e: unknown) => setError(describe(e).message),
    );
  }, [call, ticket, step, describe]);

  return (
    <AuthCard title={t('ticketTitle')}>
      <Working
        label={t('ticketRedeeming')}
        error={error}
        actionLabel={t('backToSignIn')}
        onAction={() => window.location.assign(href('/sign-in'))}
      />
    </AuthCard>
  );
}

/** A visitor whose browser already holds an active session: continue, sign out, or add another account. */
function AlreadySignedIn({ onAnotherAccount }: { onAnotherAccount(): void }) {
  const t = useTranslations('hosted.signIn');
  const { call, client, setClient, goToDestination } = useHosted();
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const { busy, error, endSession: signOut } = useEndSession(setClient);
  const sessionId = client?.session?.id;

  useEffect(() => {
    call<Me>('/v1/me').then(setMe, () => setMe(null));
  }, [call, sessionId]);

  const email = me?.email_addresses.find((a) => a.id === me.primary_email_address_id)?.email_address ?? me?.username;
  return (
    <AuthCard
      title={t('alreadyTitle')}
      subtitle={
        me === undefined ? <Skeleton className="mx-auto h-5 w-48" /> : email ? t.rich('alreadyAs', { who: email, strong }) : undefined
      }
    >
      <div className="flex flex-col gap-3">
        {error && <Alert tone="error">{error}</Alert>}
        <Button onClick={goToDestination}>{t('continue')}</Button>
        <Button variant="secondary" onClick={onAnotherAccount}>
          {t('anotherAccount')}
        </Button>
        <Button variant="ghost" onClick={signOut} loading={busy}>
          {t('signOut')}
        </Button>
      </div>
    </AuthCard>
  );
}
