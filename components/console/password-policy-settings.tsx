'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Card, CardBody, CardHeader, Checkbox, Field, Input } from '@/components/ui';
import { pages } from '@/lib/console/paths';
import type { PasswordPolicy } from '@/lib/console/types';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { SettingsForm, useSettingsPatch } from './settings-form';

const RULES = ['require_uppercase', 'require_lowercase', 'require_digit', 'require_symbol'] as const;

/** The instance's password policy: minimum length and required kinds of characters (the breach check lives on the Protection page). */
export function PasswordPolicySettings() {
  const t = useTranslations('console.passwordPolicy');
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const settings = useSettingsPatch(['password_policy']);
  const { form } = settings;
  const [policy, setPolicy] = useState<PasswordPolicy>(instance.settings.password_policy);
  const [minText, setMinText] = useState(String(instance.settings.password_policy.min_length));
  const [minError, setMinError] = useState<string | null>(null);

  const checkMin = () => {
    const ok = /^\d+$/.test(minText.trim()) && Number(minText) >= 8 && Number(minText) <= 128;
    setMinError(ok ? null : t('minInvalid'));
    return ok;
  };

  const save = () => checkMin() && settings.save({ password_policy: { ...policy, min_length: Number(minText) } });

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody>
        <SettingsForm settings={settings} onSubmit={save} savedLabel={t('saved')} saveLabel={t('save')}>
          <div className="max-w-48">
            <Field label={t('minLength')} hint={t('minLengthHint')} error={minError ?? form.fieldError('password_policy')}>
              {(p) => (
                <Input
                  {...p}
                  inputMode="numeric"
                  value={minText}
                  disabled={!canWrite}
                  onChange={(e) => {
                    setMinText(e.target.value);
                    if (minError) setMinError(null);
                  }}
                  onBlur={checkMin}
                />
              )}
            </Field>
          </div>
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-2 text-sm font-medium">{t('require')}</legend>
            {RULES.map((rule) => (
              <Checkbox key={rule} label={t(`rules.${rule}`)} checked={policy[rule]} disabled={!canWrite} onChange={(e) => setPolicy((p) => ({ ...p, [rule]: e.target.checked }))} />
            ))}
          </fieldset>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            {t('breachCheck')}{' '}
            <Link className="text-indigo-700 underline dark:text-indigo-300" href={pages.instance(account.id, instance.id, 'protection')}>
              {t('protectionLink')}
            </Link>
          </p>
        </SettingsForm>
      </CardBody>
    </Card>
  );
}
