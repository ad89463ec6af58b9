'use client';

import { useRouter, useSearchParams } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { Alert, Button, Field, Input, Skeleton } from '@/components/ui';
import { clearFlow, readFlow, writeFlow, type FlowState } from '@/lib/fapi/flow';
import type { SignUpAnswer } from '@/lib/fapi/types';
import { CodeForm } from './code-form';
import { EmailInput, IdentifierInput, PasswordInput, PhoneInput, usePasswordHint } from './fields';
import { useFragmentTicket } from './fragment-ticket';
import { appName, useHosted } from './hosted-context';
import { AuthCard, AuthForm, PendingAuthCard, TextLink, WhenReady, strong } from './shell';
import { useFormErrors } from './use-form-errors';
import { isSsoRequired, useIdentityProvider } from './identity-provider';
import { SocialButtons } from './social-buttons';
import { useInvitationPreview, type InvitationPreview } from './organization-invitation';

const FIELDS = ['first_name', 'last_name', 'username', 'email_address', 'phone_number', 'password'] as const;
type Values = Record<(typeof FIELDS)[number], string>;
type Identifier = 'email_address' | 'phone_number';

/**
 * `{fapi}/sign-up`: the fields the instance asks for, then the code by email (or by SMS for a
 * phone number, when the environment offers phone sign-up). In waitlist mode
 * only with a waitlist invitation's `#ticket=…`; without one the page points to `/waitlist`.
 */
export function SignUpPage() {
  const t = useTranslations('hosted.signUp');
  const tw = useTranslations('waitlist.hosted');
  const { env, client, loadError, href } = useHosted();
  const ticket = useFragmentTicket();
  // From an organization invitation: its address is prefilled, locked, and verified by the link.
  const invitationToken = useSearchParams().get('invitation_token');
  const preview = useInvitationPreview(invitationToken);
  const invitation = preview?.status === 'pending' && invitationToken ? { token: invitationToken, preview } : null;
  const footer = (
    <>
      {t('haveAccount')} <TextLink href={href('/sign-in')}>{t('signInLink')}</TextLink>
    </>
  );
  if (loadError || !env || !client || preview === undefined) return <PendingAuthCard title={t('title')} footer={footer} fields={2} />;
  const waitlist = env.user_settings.sign_up.mode === 'waitlist';
  if (waitlist && !ticket) {
    return (
      <AuthCard title={t('title')} footer={footer}>
        <Alert tone="info" title={tw('signUpClosedTitle')}>
          {tw('signUpClosed', { name: appName(env) })}
        </Alert>
        <p className="mt-4 text-center text-sm">
          <TextLink href={href('/waitlist')}>{tw('joinLink')}</TextLink>
        </p>
      </AuthCard>
    );
  }
  if (!env.user_settings.sign_up.open && !(waitlist && ticket)) {
    return (
      <AuthCard title={t('title')} footer={footer}>
        <Alert tone="info" title={t('closedTitle')}>
          {t('closed')}
        </Alert>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title={t('title')}
      subtitle={
        invitation ? t('invitedSubtitle', { organization: invitation.preview.organization.name }) : t('subtitle', { name: appName(env) })
      }
      footer={footer}
    >
      {!invitation && <SocialButtons flow="sign_up" />}
      <SignUpForm ticket={waitlist ? ticket : null} invitation={invitation} />
    </AuthCard>
  );
}

/**
 * `ticket`: a waitlist invitation's, sent with the sign-up. `invitation`: an organization
 * invitation's token, sent as the ticket: the invited address is locked, and the sign-up
 * completes without a code (the server verifies it only for that address).
 */
function SignUpForm({ ticket, invitation }: { ticket: string | null; invitation: { token: string; preview: InvitationPreview } | null }) {
  const t = useTranslations('hosted.signUp');
  const tf = useTranslations('hosted.fields');
  const passwordHint = usePasswordHint();
  const te = useTranslations('hosted.errors');
  const router = useRouter();
  const { instanceId, env, call, href, setClient, afterAuth } = useHosted();
  const toIdentityProvider = useIdentityProvider();
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(FIELDS);
  const required = new Set(env?.user_settings.sign_up.required_fields ?? []);
  const askName = required.has('first_name') || required.has('last_name');
  const askUsername = required.has('username');
  const askPassword = required.has('password');
  const phoneOffered = env?.user_settings.sign_up.identifiers.includes('phone_number') ?? false;
  const [chosen, setChosen] = useState<Identifier>('email_address');
  const identifier: Identifier = phoneOffered && !invitation ? chosen : 'email_address';
  const [values, setValues] = useState<Values>({
    first_name: '',
    last_name: '',
    username: '',
    email_address: invitation?.preview.email_address ?? '',
    phone_number: '',
    password: '',
  });
  const set = (k: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));

  const asked: (keyof Values)[] = [
    ...(askName ? (['first_name', 'last_name'] as const) : []),
    ...(askUsername ? (['username'] as const) : []),
    identifier,
    ...(askPassword ? (['password'] as const) : []),
  ];

  const submit = handleSubmit(
    async () => {
      const body: Record<string, string> = {};
      for (const k of asked) body[k] = k === 'password' ? values[k] : values[k].trim();
      // The language the page speaks becomes the user's: later emails (reset codes, invitations) follow it.
      if (env?.localization) body.locale = env.localization.locale;
      if (ticket) body.ticket = ticket;
      if (invitation) {
        body.ticket = invitation.token;
        body.email_address = invitation.preview.email_address;
      }
      const created = await call<SignUpAnswer>('/v1/client/sign_ups', { json: body }).catch(async (err: unknown) => {
        // An address at a domain with SSO signs up through its IdP (just-in-time), not here.
        if (isSsoRequired(err) && (await toIdentityProvider(values.email_address).catch(() => false))) return null;
        throw err;
      });
      if (!created) return;
      setClient(created.client);
      if (created.response.status === 'complete') return afterAuth(created.client, created.response.created_session_id);
      const id = created.response.id;
      const strategy = identifier === 'phone_number' ? 'phone_code' : 'email_code';
      await call(`/v1/client/sign_ups/${id}/prepare_verification`, { json: { strategy } });
      writeFlow(instanceId, 'sign_up', {
        id,
        identifier: created.response.phone_number ?? created.response.email_address ?? '',
        sentAt: Date.now(),
        strategy,
      });
      router.push(href('/sign-up/verify'));
    },
    { stayBusy: true, check: () => Object.fromEntries(asked.filter((k) => !values[k].trim()).map((k) => [k, te('required')])) },
  );

  return (
    <AuthForm onSubmit={submit} error={formError} submitLabel={t('submit')} busy={busy}>
      {askName && (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field label={tf('firstName')} error={fieldErrors.first_name}>
            {(p) => (
              <Input {...p} name="first_name" autoComplete="given-name" autoFocus value={values.first_name} onChange={set('first_name')} />
            )}
          </Field>
          <Field label={tf('lastName')} error={fieldErrors.last_name}>
            {(p) => <Input {...p} name="last_name" autoComplete="family-name" value={values.last_name} onChange={set('last_name')} />}
          </Field>
        </div>
      )}
      {askUsername && (
        <Field label={tf('username')} hint={tf('usernameHint')} error={fieldErrors.username}>
          {(p) => (
            <IdentifierInput
              {...p}
              name="username"
              autoComplete="username"
              autoFocus={!askName}
              value={values.username}
              onChange={set('username')}
            />
          )}
        </Field>
      )}
      {identifier === 'phone_number' ? (
        <Field label={tf('phone')} hint={tf('phoneHint')} error={fieldErrors.phone_number}>
          {(p) => (
            <PhoneInput
              {...p}
              name="phone_number"
              autoFocus={!askName && !askUsername}
              value={values.phone_number}
              onChange={set('phone_number')}
            />
          )}
        </Field>
      ) : (
        <Field label={tf('email')} hint={invitation ? t('invitedAddress') : undefined} error={fieldErrors.email_address}>
          {(p) => (
            <EmailInput
              {...p}
              name="email_address"
              autoFocus={!askName && !askUsername && !invitation}
              readOnly={!!invitation}
              value={values.email_address}
              onChange={set('email_address')}
            />
          )}
        </Field>
      )}
      {phoneOffered && !invitation && (
        <Button
          variant="ghost"
          size="sm"
          onClick={() => setChosen(identifier === 'phone_number' ? 'email_address' : 'phone_number')}
          className="self-start px-1.5 text-indigo-600 dark:text-indigo-400"
        >
          {identifier === 'phone_number' ? t('useEmail') : t('usePhone')}
        </Button>
      )}
      {askPassword && (
        <Field label={tf('password')} hint={passwordHint} error={fieldErrors.password}>
          {(p) => <PasswordInput {...p} name="password" autoComplete="new-password" value={values.password} onChange={set('password')} />}
        </Field>
      )}
    </AuthForm>
  );
}

/** `{fapi}/sign-up/verify`: the email (or SMS) code that creates the account. */
export function SignUpVerifyPage() {
  const t = useTranslations('hosted.verify');
  const ts = useTranslations('hosted.signUp');
  const { instanceId, env, client, call, href, afterAuth } = useHosted();
  const router = useRouter();
  const [flow, setFlow] = useState<FlowState | null>(null);

  useEffect(() => {
    const found = readFlow(instanceId, 'sign_up');
    if (found) setFlow(found);
    else router.replace(href('/sign-up'));
  }, [instanceId, router, href]);

  const ready = env && client && flow;
  const strategy = flow?.strategy === 'phone_code' ? 'phone_code' : 'email_code';
  return (
    <AuthCard
      title={strategy === 'phone_code' ? ts('verifyPhoneTitle') : ts('verifyTitle')}
      subtitle={flow ? t.rich('sentTo', { address: flow.identifier, strong }) : <Skeleton className="mx-auto h-5 w-48" />}
      footer={<TextLink href={href('/sign-up')}>{strategy === 'phone_code' ? ts('changePhone') : ts('changeEmail')}</TextLink>}
    >
      <WhenReady value={ready} fields={1}>
        {(flow) => (
          <CodeForm
            sentAt={flow.sentAt}
            submitLabel={ts('verifySubmit')}
            onSubmit={async (code) => {
              const res = await call<SignUpAnswer>(`/v1/client/sign_ups/${flow.id}/attempt_verification`, { json: { code } });
              if (res.response.status === 'complete') {
                clearFlow(instanceId, 'sign_up');
                afterAuth(res.client, res.response.created_session_id);
              }
            }}
            onResend={async () => {
              await call(`/v1/client/sign_ups/${flow.id}/prepare_verification`, { json: { strategy } });
              writeFlow(instanceId, 'sign_up', { ...flow, sentAt: Date.now() });
            }}
          />
        )}
      </WhenReady>
    </AuthCard>
  );
}
