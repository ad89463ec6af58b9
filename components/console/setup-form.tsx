'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Button, Field, Input } from '@/components/ui';
import { requestJson } from '@/lib/api-client';
import { api, pages } from '@/lib/console/paths';
import { errorReason } from '@/lib/console/use-dashboard';
import type { Me } from '@/lib/console/types';
import { CenteredCard } from './centered';
import { NameFields, NewPasswordField } from './operator-fields';
import { useFormError } from './use-form-error';
import type { DashboardResponse } from '@/lib/generated/dashboard';

const FIELDS = ['email_address', 'password', 'first_name', 'last_name', 'account_name'] as const;

/**
 * Where a new operator lands: the overview of their account's test instance (the first run's
 * "Development" one), else the account, else the console's home.
 */
async function landingOf(me: Me): Promise<string> {
  const account = me.accounts[0];
  if (!account) return pages.home;
  const instances = await requestJson<DashboardResponse<'GET /accounts/{accountId}/instances'>>(
    `${api.account(account.id)}/instances`,
  ).then(
    ({ body }) => body.data,
    () => [],
  );
  const development = instances.find((i) => i.environment === 'test') ?? instances[0];
  return development ? pages.instance(account.id, development.id) : pages.account(account.id);
}

/** First run: claims the console with the one-time setup link. */
export function SetupForm({ token }: { token: string | null }) {
  const t = useTranslations('console.setup');
  const router = useRouter();
  const form = useFormError(FIELDS);
  const [values, setValues] = useState({ email_address: '', password: '', first_name: '', last_name: '', account_name: '' });
  const set = (key: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  const invalidToken = !token || errorReason(form.error) === 'setup_token_invalid';

  const submit = form.handleSubmit(
    async () => {
      const body = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
      const { body: me } = await requestJson<Me>(api.setup, { method: 'POST', json: { token, ...body } });
      router.replace(await landingOf(me));
    },
    { stayBusy: true },
  );

  return (
    <CenteredCard title={t('title')} description={t('description')}>
      {invalidToken ? (
        <Alert tone="error" title={t('invalidTitle')}>
          <p>{t('invalidDescription')}</p>
          <code className="mt-2 block rounded bg-red-100 px-2 py-1 font-mono text-xs dark:bg-red-900/50">npm run cli -- setup-link</code>
        </Alert>
      ) : (
        <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
          {form.formError && <Alert tone="error">{form.formError}</Alert>}
          <NameFields
            labels={{ firstName: t('firstName'), lastName: t('lastName') }}
            values={values}
            onChange={set}
            fieldError={form.fieldError}
          />
          <Field label={t('email')} error={form.fieldError('email_address')}>
            {(p) => (
              <Input
                {...p}
                type="email"
                name="email"
                autoComplete="email"
                required
                value={values.email_address}
                onChange={set('email_address')}
              />
            )}
          </Field>
          <NewPasswordField
            label={t('password')}
            hint={t('passwordHint')}
            value={values.password}
            onChange={set('password')}
            error={form.fieldError('password')}
          />
          <Field label={t('accountName')} hint={t('accountNameHint')} error={form.fieldError('account_name')}>
            {(p) => (
              <Input {...p} name="account_name" autoComplete="organization" value={values.account_name} onChange={set('account_name')} />
            )}
          </Field>
          <Button type="submit" loading={form.busy} className="mt-2 w-full">
            {t('submit')}
          </Button>
        </form>
      )}
    </CenteredCard>
  );
}
