'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Card, CardBody, CardHeader, Checkbox } from '@/components/ui';
import type { SignInMethods } from '@/lib/console/types';
import { mutate } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { useFormError } from './use-form-error';

const METHODS = ['password', 'email_code', 'username'] as const;

/** How users sign in on the hosted pages and the Frontend API: password, emailed code, username. */
export function SignInMethodsSettings() {
  const t = useTranslations('console.signInMethods');
  const { canWrite, reloadInstances } = useConsole();
  const instance = useInstance();
  const base = useInstanceApi();
  const form = useFormError(['sign_in_methods']);
  const [methods, setMethods] = useState<SignInMethods>(instance.settings.sign_in_methods);
  const [saved, setSaved] = useState(false);
  const noFactor = !methods.password && !methods.email_code;

  function save(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    if (noFactor) return;
    void form.run(async () => {
      await mutate('PATCH', `${base}/settings`, { sign_in_methods: methods });
      reloadInstances();
      setSaved(true);
    });
  }

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody>
        <form onSubmit={save} noValidate className="flex flex-col gap-4">
          {(form.formError ?? form.fieldError('sign_in_methods')) && <Alert tone="error">{form.formError ?? form.fieldError('sign_in_methods')}</Alert>}
          {saved && <Alert tone="success">{t('saved')}</Alert>}
          <fieldset className="flex flex-col gap-3" aria-describedby={noFactor ? 'sign-in-methods-error' : undefined}>
            <legend className="sr-only">{t('title')}</legend>
            {METHODS.map((m) => (
              <div key={m} className="flex flex-col gap-0.5">
                <Checkbox
                  label={t(`methods.${m}`)}
                  checked={methods[m]}
                  disabled={!canWrite}
                  onChange={(e) => {
                    setSaved(false);
                    setMethods((current) => ({ ...current, [m]: e.target.checked }));
                  }}
                />
                <p className="pl-6 text-xs text-zinc-600 dark:text-zinc-400">{t(`hints.${m}`)}</p>
              </div>
            ))}
          </fieldset>
          {noFactor && (
            <p id="sign-in-methods-error" role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
              {t('noFactor')}
            </p>
          )}
          {canWrite && (
            <div>
              <Button type="submit" loading={form.busy} disabled={noFactor}>
                {t('save')}
              </Button>
            </div>
          )}
        </form>
      </CardBody>
    </Card>
  );
}
