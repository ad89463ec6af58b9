'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Card, CardBody, Field, Input } from '@/components/ui';
import { requestJson } from '@/lib/api-client';
import { api, pages } from '@/lib/console/paths';
import { errorReason } from '@/lib/console/use-dashboard';
import type { Me } from '@/lib/console/types';
import { Centered } from './centered';
import { useFormError } from './use-form-error';

const FIELDS = ['email_address', 'password', 'first_name', 'last_name', 'account_name'] as const;

/** First run: claims the console with the one-time setup link. */
export function SetupForm({ token }: { token: string | null }) {
  const t = useTranslations('console.setup');
  const router = useRouter();
  const form = useFormError(FIELDS);
  const [busy, setBusy] = useState(false);
  const [values, setValues] = useState({ email_address: '', password: '', first_name: '', last_name: '', account_name: '' });
  const set = (key: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  const invalidToken = !token || errorReason(form.error) === 'setup_token_invalid';

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    form.clear();
    try {
      const body = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
      const { body: me } = await requestJson<Me>(api.setup, { method: 'POST', json: { token, ...body } });
      const first = me.accounts[0];
      router.replace(first ? pages.account(first.id) : pages.home);
    } catch (err) {
      form.setError(err);
      setBusy(false);
    }
  }

  return (
    <Centered>
      <Card>
        <CardBody className="flex flex-col gap-5 p-6 sm:p-8">
          <div>
            <h1 className="text-xl font-semibold tracking-tight">{t('title')}</h1>
            <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t('description')}</p>
          </div>
          {invalidToken ? (
            <Alert tone="error" title={t('invalidTitle')}>
              <p>{t('invalidDescription')}</p>
              <code className="mt-2 block rounded bg-red-100 px-2 py-1 font-mono text-xs dark:bg-red-900/50">npm run cli -- setup-link</code>
            </Alert>
          ) : (
            <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
              {form.formError && <Alert tone="error">{form.formError}</Alert>}
              <div className="grid gap-4 sm:grid-cols-2">
                <Field label={t('firstName')} error={form.fieldError('first_name')}>
                  {(p) => <Input {...p} name="first_name" autoComplete="given-name" value={values.first_name} onChange={set('first_name')} />}
                </Field>
                <Field label={t('lastName')} error={form.fieldError('last_name')}>
                  {(p) => <Input {...p} name="last_name" autoComplete="family-name" value={values.last_name} onChange={set('last_name')} />}
                </Field>
              </div>
              <Field label={t('email')} error={form.fieldError('email_address')}>
                {(p) => <Input {...p} type="email" name="email" autoComplete="email" required value={values.email_address} onChange={set('email_address')} />}
              </Field>
              <Field label={t('password')} hint={t('passwordHint')} error={form.fieldError('password')}>
                {(p) => <Input {...p} type="password" name="password" autoComplete="new-password" required minLength={8} value={values.password} onChange={set('password')} />}
              </Field>
              <Field label={t('accountName')} hint={t('accountNameHint')} error={form.fieldError('account_name')}>
                {(p) => <Input {...p} name="account_name" autoComplete="organization" value={values.account_name} onChange={set('account_name')} />}
              </Field>
              <Button type="submit" loading={busy} className="mt-2 w-full">
                {t('submit')}
              </Button>
            </form>
          )}
        </CardBody>
      </Card>
    </Centered>
  );
}
