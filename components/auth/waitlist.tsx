'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Field } from '@/components/ui';
import { EmailInput } from './fields';
import { appName, useHosted } from './hosted-context';
import { AuthCard, AuthForm, PendingAuthCard, TextLink, strong } from './shell';
import { useFormErrors } from './use-form-errors';

const FIELDS = ['email_address'] as const;

/**
 * `{fapi}/waitlist`: join the waitlist of an instance in waitlist mode (POST /v1/waitlist).
 * The answer is the same for everyone, so the page says the same to everyone: you're on the list.
 */
export function WaitlistPage() {
  const t = useTranslations('waitlist.hosted');
  const th = useTranslations('hosted.signUp');
  const { env, client, loadError, href } = useHosted();
  const [joined, setJoined] = useState<string | null>(null);
  const footer = (
    <>
      {th('haveAccount')} <TextLink href={href('/sign-in')}>{th('signInLink')}</TextLink>
    </>
  );
  if (loadError || !env || !client) return <PendingAuthCard title={t('title')} footer={footer} fields={1} />;
  if (env.user_settings.sign_up.mode !== 'waitlist') {
    return (
      <AuthCard title={t('title')} footer={footer}>
        <Alert tone="info" title={t('noWaitlistTitle')}>
          {t('noWaitlist')}
        </Alert>
        {env.user_settings.sign_up.open && (
          <p className="mt-4 text-center text-sm">
            <TextLink href={href('/sign-up')}>{t('signUpLink')}</TextLink>
          </p>
        )}
      </AuthCard>
    );
  }
  if (joined) {
    return (
      <AuthCard title={t('joinedTitle')} subtitle={t.rich('joined', { address: joined, name: appName(env), strong })} footer={footer}>
        <p className="text-center text-sm text-zinc-600 dark:text-zinc-400">{t('joinedNext')}</p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t('title')} subtitle={t('subtitle', { name: appName(env) })} footer={footer}>
      <JoinForm onJoined={setJoined} />
    </AuthCard>
  );
}

function JoinForm({ onJoined }: { onJoined(address: string): void }) {
  const t = useTranslations('waitlist.hosted');
  const tf = useTranslations('hosted.fields');
  const te = useTranslations('hosted.errors');
  const { call } = useHosted();
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(FIELDS);
  const [email, setEmail] = useState('');
  const address = email.trim();

  const submit = handleSubmit(
    async () => {
      await call('/v1/waitlist', { json: { email_address: address } });
      onJoined(address);
    },
    { check: () => (!address ? { email_address: te('required') } : !address.includes('@') && { email_address: te('emailInvalid') }) },
  );

  return (
    <AuthForm onSubmit={submit} error={formError} submitLabel={t('submit')} busy={busy}>
      <Field label={tf('email')} error={fieldErrors.email_address}>
        {(p) => <EmailInput {...p} name="email_address" autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />}
      </Field>
    </AuthForm>
  );
}
