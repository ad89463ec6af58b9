'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Field } from '@/components/ui';
import type { SignInAnswer } from '@/lib/fapi/types';
import { CodeForm } from './code-form';
import { EmailInput, PasswordInput, usePasswordHint } from './fields';
import { useHosted } from './hosted-context';
import { useSignInStep } from './sign-in';
import { AuthCard, AuthForm, TextLink, WhenReady, strong } from './shell';
import { useFormErrors } from './use-form-errors';

const EMAIL_FIELDS = ['identifier', 'email_address'] as const;
const PASSWORD_FIELDS = ['password'] as const;

type Stage =
  { step: 'email' } | { step: 'code'; id: string; email: string; sentAt: number } | { step: 'password'; id: string; email: string };

/**
 * `{fapi}/forgot-password`: the email address → the emailed code → a new password, which
 * signs in (revoking the other sessions; a second factor is still asked for when the user has one).
 */
export function ForgotPasswordPage() {
  const t = useTranslations('hosted.forgotPassword');
  const { env, client, href } = useHosted();
  const [stage, setStage] = useState<Stage>({ step: 'email' });

  const title = stage.step === 'email' ? t('title') : stage.step === 'code' ? t('codeTitle') : t('passwordTitle');
  const subtitle =
    stage.step === 'email'
      ? t('subtitle')
      : stage.step === 'code'
        ? t.rich('codeSubtitle', { address: stage.email, strong })
        : t('passwordSubtitle');

  return (
    <AuthCard title={title} subtitle={subtitle} footer={<TextLink href={href('/sign-in')}>{t('backToSignIn')}</TextLink>}>
      <WhenReady value={env && client} fields={1}>
        {() =>
          stage.step === 'email' ? (
            <EmailStep onSent={(id, email) => setStage({ step: 'code', id, email, sentAt: Date.now() })} />
          ) : stage.step === 'code' ? (
            <CodeStep stage={stage} onVerified={() => setStage({ step: 'password', id: stage.id, email: stage.email })} />
          ) : (
            <NewPasswordStep stage={stage} />
          )
        }
      </WhenReady>
    </AuthCard>
  );
}

function EmailStep({ onSent }: { onSent(id: string, email: string): void }) {
  const t = useTranslations('hosted.forgotPassword');
  const tf = useTranslations('hosted.fields');
  const te = useTranslations('hosted.errors');
  const { call } = useHosted();
  const { formError, fieldErrors, setFieldErrors, busy, handleSubmit } = useFormErrors(EMAIL_FIELDS);
  const [email, setEmail] = useState('');

  const address = email.trim();
  const submit = handleSubmit(
    async () => {
      const created = await call<SignInAnswer>('/v1/client/sign_ins', { json: { identifier: address } });
      await call(`/v1/client/sign_ins/${created.response.id}/prepare_first_factor`, { json: { strategy: 'reset_password_email_code' } });
      onSent(created.response.id, address);
    },
    {
      stayBusy: true,
      check: () => (!address ? { identifier: te('required') } : !address.includes('@') && { identifier: te('emailInvalid') }),
      onFailed: (info) => info.param === 'email_address' && setFieldErrors({ identifier: info.message }),
    },
  );

  return (
    <AuthForm onSubmit={submit} error={formError} submitLabel={t('sendCode')} busy={busy}>
      <Field label={tf('email')} error={fieldErrors.identifier}>
        {(p) => <EmailInput {...p} name="email_address" autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />}
      </Field>
    </AuthForm>
  );
}

function CodeStep({ stage, onVerified }: { stage: { id: string; sentAt: number }; onVerified(): void }) {
  const t = useTranslations('hosted.forgotPassword');
  const { call } = useHosted();
  return (
    <CodeForm
      sentAt={stage.sentAt}
      submitLabel={t('verifyCode')}
      onSubmit={async (code) => {
        const res = await call<SignInAnswer>(`/v1/client/sign_ins/${stage.id}/attempt_first_factor`, {
          json: { strategy: 'reset_password_email_code', code },
        });
        if (res.response.status === 'needs_new_password') onVerified();
      }}
      onResend={async () => {
        await call(`/v1/client/sign_ins/${stage.id}/prepare_first_factor`, { json: { strategy: 'reset_password_email_code' } });
      }}
    />
  );
}

function NewPasswordStep({ stage }: { stage: { id: string; email: string } }) {
  const t = useTranslations('hosted.forgotPassword');
  const tf = useTranslations('hosted.fields');
  const passwordHint = usePasswordHint();
  const te = useTranslations('hosted.errors');
  const { call } = useHosted();
  const step = useSignInStep();
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(PASSWORD_FIELDS);
  const [password, setPassword] = useState('');

  const submit = handleSubmit(
    async () => {
      const res = await call<SignInAnswer>(`/v1/client/sign_ins/${stage.id}/reset_password`, { json: { password } });
      step(res, stage.email);
    },
    { stayBusy: true, check: () => !password && { password: te('required') } },
  );

  return (
    <AuthForm onSubmit={submit} error={formError} submitLabel={t('submit')} busy={busy}>
      {/* Lets password managers file the new password under the right account. */}
      <input type="text" name="username" autoComplete="username" value={stage.email} readOnly hidden />
      <Field label={tf('newPassword')} hint={passwordHint} error={fieldErrors.password}>
        {(p) => (
          <PasswordInput
            {...p}
            name="password"
            autoComplete="new-password"
            autoFocus
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      <Alert tone="info">{t('signsOutEverywhere')}</Alert>
    </AuthForm>
  );
}
