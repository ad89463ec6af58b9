'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Card, CardBody, CardHeader, Checkbox } from '@/components/ui';
import type { SignInMethods } from '@/lib/console/types';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { SettingsForm, useSettingsPatch } from './settings-form';

const METHODS = ['password', 'email_code', 'email_link', 'email_link_same_browser', 'username', 'phone_code'] as const;

/** How users sign in on the hosted pages and the Frontend API: password, emailed code or link (optionally only in the browser that asked), username, phone number with an SMS code. */
export function SignInMethodsSettings() {
  const t = useTranslations('console.signInMethods');
  const tp = useTranslations('passkeys.settings');
  const { canWrite } = useConsole();
  const instance = useInstance();
  const settings = useSettingsPatch(['sign_in_methods']);
  const { form, setSaved } = settings;
  const [methods, setMethods] = useState<SignInMethods>(instance.settings.sign_in_methods);
  const noFactor = !methods.password && !methods.email_code && !methods.phone_code && !methods.email_link;

  const save = () => !noFactor && settings.save({ sign_in_methods: methods });

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody>
        <SettingsForm settings={settings} onSubmit={save} savedLabel={t('saved')} saveLabel={t('save')} disabled={noFactor}>
          {form.fieldError('sign_in_methods') && <Alert tone="error">{form.fieldError('sign_in_methods')}</Alert>}
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
            <div className="flex flex-col gap-0.5">
              <Checkbox
                label={tp('label')}
                checked={methods.passkey ?? false}
                disabled={!canWrite}
                onChange={(e) => {
                  setSaved(false);
                  setMethods((current) => ({ ...current, passkey: e.target.checked }));
                }}
              />
              <p className="pl-6 text-xs text-zinc-600 dark:text-zinc-400">{tp('hint')}</p>
            </div>
          </fieldset>
          {noFactor && (
            <p id="sign-in-methods-error" role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
              {t('noFactor')}
            </p>
          )}
        </SettingsForm>
      </CardBody>
    </Card>
  );
}
