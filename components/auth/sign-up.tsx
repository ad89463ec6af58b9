'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { Alert, Field, Input, Skeleton } from '@/components/ui';
import { clearFlow, readFlow, writeFlow, type FlowState } from '@/lib/fapi/flow';
import type { SignUpAnswer } from '@/lib/fapi/types';
import { CodeForm } from './code-form';
import { EmailInput, IdentifierInput, PasswordInput, usePasswordHint } from './fields';
import { useFragmentTicket } from './fragment-ticket';
import { appName, useHosted } from './hosted-context';
import { AuthCard, AuthForm, PendingAuthCard, TextLink, WhenReady, strong } from './shell';
import { useFormErrors } from './use-form-errors';
import { SocialButtons } from './social-buttons';

const FIELDS = ['first_name', 'last_name', 'username', 'email_address', 'password'] as const;
type Values = Record<(typeof FIELDS)[number], string>;

/**
 * `{fapi}/sign-up`: the fields the instance asks for, then the email code. In waitlist mode
 * only with a waitlist invitation's `#ticket=…`; without one the page points to `/waitlist`.
 */
export function SignUpPage() {
  const t = useTranslations('hosted.signUp');
  const tw = useTranslations('waitlist.hosted');
  const { env, client, loadError, href } = useHosted();
  const ticket = useFragmentTicket();
  const footer = (
    <>
      {t('haveAccount')} <TextLink href={href('/sign-in')}>{t('signInLink')}</TextLink>
    </>
  );
  if (loadError || !env || !client) return <PendingAuthCard title={t('title')} footer={footer} fields={2} />;
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
    <AuthCard title={t('title')} subtitle={t('subtitle', { name: appName(env) })} footer={footer}>
      <SocialButtons flow="sign_up" />
      <SignUpForm ticket={waitlist ? ticket : null} />
    </AuthCard>
  );
}

/** `ticket`: a waitlist invitation's, sent with the sign-up. */
function SignUpForm({ ticket }: { ticket: string | null }) {
  const t = useTranslations('hosted.signUp');
  const tf = useTranslations('hosted.fields');
  const passwordHint = usePasswordHint();
  const te = useTranslations('hosted.errors');
  const router = useRouter();
  const { instanceId, env, call, href, setClient } = useHosted();
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(FIELDS);
  const required = new Set(env?.user_settings.sign_up.required_fields ?? []);
  const askName = required.has('first_name') || required.has('last_name');
  const askUsername = required.has('username');
  const askPassword = required.has('password');
  const [values, setValues] = useState<Values>({ first_name: '', last_name: '', username: '', email_address: '', password: '' });
  const set = (k: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));

  const asked: (keyof Values)[] = [
    ...(askName ? (['first_name', 'last_name'] as const) : []),
    ...(askUsername ? (['username'] as const) : []),
    'email_address',
    ...(askPassword ? (['password'] as const) : []),
  ];

  const submit = handleSubmit(
    async () => {
      const body: Record<string, string> = { email_address: values.email_address.trim() };
      for (const k of asked) if (k !== 'email_address') body[k] = k === 'password' ? values[k] : values[k].trim();
      // The language the page speaks becomes the user's: later emails (reset codes, invitations) follow it.
      if (env?.localization) body.locale = env.localization.locale;
      if (ticket) body.ticket = ticket;
      const created = await call<SignUpAnswer>('/v1/client/sign_ups', { json: body });
      setClient(created.client);
      const id = created.response.id;
      await call(`/v1/client/sign_ups/${id}/prepare_verification`, { json: { strategy: 'email_code' } });
      writeFlow(instanceId, 'sign_up', { id, identifier: created.response.email_address ?? '', sentAt: Date.now() });
      router.push(href('/sign-up/verify'));
    },
    { stayBusy: true, check: () => Object.fromEntries(asked.filter((k) => !values[k].trim()).map((k) => [k, te('required')])) },
  );

  return (
    <AuthForm onSubmit={submit} error={formError} submitLabel={t('submit')} busy={busy}>
      {askName && (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field label={tf('firstName')} error={fieldErrors.first_name}>
            {(p) => <Input {...p} name="first_name" autoComplete="given-name" autoFocus value={values.first_name} onChange={set('first_name')} />}
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
      <Field label={tf('email')} error={fieldErrors.email_address}>
        {(p) => (
          <EmailInput
            {...p}
            name="email_address"
            autoFocus={!askName && !askUsername}
            value={values.email_address}
            onChange={set('email_address')}
          />
        )}
      </Field>
      {askPassword && (
        <Field label={tf('password')} hint={passwordHint} error={fieldErrors.password}>
          {(p) => <PasswordInput {...p} name="password" autoComplete="new-password" value={values.password} onChange={set('password')} />}
        </Field>
      )}
    </AuthForm>
  );
}

/** `{fapi}/sign-up/verify`: the email code that creates the account. */
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
  return (
    <AuthCard
      title={ts('verifyTitle')}
      subtitle={
        flow ? (
          t.rich('sentTo', { address: flow.identifier, strong })
        ) : (
          <Skeleton className="mx-auto h-5 w-48" />
        )
      }
      footer={<TextLink href={href('/sign-up')}>{ts('changeEmail')}</TextLink>}
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
              await call(`/v1/client/sign_ups/${flow.id}/prepare_verification`, { json: { strategy: 'email_code' } });
              writeFlow(instanceId, 'sign_up', { ...flow, sentAt: Date.now() });
            }}
          />
        )}
      </WhenReady>
    </AuthCard>
  );
}
