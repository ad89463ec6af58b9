'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { Alert, Card, CardBody, CardHeader, Checkbox } from '@/components/ui';
import type { SignInMethods } from '@/lib/console/types';
import { ipHostOf } from '@/lib/ip-host';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { useSettingsPart } from './settings-draft';

const METHODS = ['password', 'email_code', 'email_link', 'email_link_same_browser', 'username', 'phone_code'] as const;

/** How users sign in on the hosted pages and the Frontend API: password, emailed code or link (optionally only in the browser that asked), username, phone number with an SMS code. */
export function SignInMethodsSettings() {
  const t = useTranslations('console.signInMethods');
  const tp = useTranslations('passkeys.settings');
  const { canWrite } = useConsole();
  const instance = useInstance();
  const [methods, setMethods] = useState<SignInMethods>(instance.settings.sign_in_methods);
  const part = useSettingsPart('sign-in-methods', {
    draft: methods,
    saved: instance.settings.sign_in_methods,
    setDraft: setMethods,
    body: (m) => ({ sign_in_methods: m }),
    // At least one way to prove who one is (shown below the switches).
    validate: (m) => m.password || m.email_code || m.phone_code || m.email_link,
    fields: ['sign_in_methods'],
  });
  // The hosted pages live at the instance's FAPI URL; an operator reaching the console by IP likely serves users that way too.
  const [ipHost, setIpHost] = useState<string | null>(null);
  useEffect(() => setIpHost(ipHostOf(instance.fapi_url) ?? ipHostOf(window.location.href)), [instance.fapi_url]);
  const noFactor = !methods.password && !methods.email_code && !methods.phone_code && !methods.email_link;

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody>
        <div className="flex flex-col gap-5">
          {part.fieldError('sign_in_methods') && <Alert tone="error">{part.fieldError('sign_in_methods')}</Alert>}
          <fieldset className="flex flex-col gap-3" aria-describedby={noFactor ? 'sign-in-methods-error' : undefined}>
            <legend className="sr-only">{t('title')}</legend>
            {METHODS.map((m) => (
              <div key={m} className="flex flex-col gap-0.5">
                <Checkbox
                  label={t(`methods.${m}`)}
                  checked={methods[m]}
                  disabled={!canWrite}
                  onChange={(e) => setMethods((current) => ({ ...current, [m]: e.target.checked }))}
                />
                <p className="pl-6 text-xs text-zinc-600 dark:text-zinc-400">{t(`hints.${m}`)}</p>
              </div>
            ))}
            <div className="flex flex-col gap-0.5">
              <Checkbox
                label={tp('label')}
                checked={methods.passkey ?? false}
                disabled={!canWrite}
                onChange={(e) => setMethods((current) => ({ ...current, passkey: e.target.checked }))}
              />
              <p className="pl-6 text-xs text-zinc-600 dark:text-zinc-400">{tp('hint')}</p>
              {methods.passkey && ipHost && <Alert tone="warning">{tp('ipHost', { host: ipHost })}</Alert>}
            </div>
          </fieldset>
          {noFactor && (
            <p id="sign-in-methods-error" role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
              {t('noFactor')}
            </p>
          )}
        </div>
      </CardBody>
    </Card>
  );
}
