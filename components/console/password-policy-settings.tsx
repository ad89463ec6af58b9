'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Card, CardBody, CardHeader, Checkbox, Field, Input } from '@/components/ui';
import { pages } from '@/lib/console/paths';
import type { PasswordPolicy } from '@/lib/console/types';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { useSettingsPart } from './settings-draft';

const RULES = ['require_uppercase', 'require_lowercase', 'require_digit', 'require_symbol'] as const;

/** The instance's password policy: minimum length and required kinds of characters (the breach check lives on the Protection page). */
export function PasswordPolicySettings() {
  const t = useTranslations('console.passwordPolicy');
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const saved = instance.settings.password_policy;
  const [policy, setPolicy] = useState<PasswordPolicy>(saved);
  const [minText, setMinText] = useState(String(saved.min_length));
  const [minError, setMinError] = useState<string | null>(null);
  const validMin = (text: string) => /^\d+$/.test(text.trim()) && Number(text) >= 8 && Number(text) <= 128;
  const checkMin = (text = minText) => {
    setMinError(validMin(text) ? null : t('minInvalid'));
    return validMin(text);
  };
  const part = useSettingsPart('password-policy', {
    draft: { policy, minText },
    saved: { policy: saved, minText: String(saved.min_length) },
    setDraft: (d) => {
      setPolicy(d.policy);
      setMinText(d.minText);
      setMinError(null);
    },
    body: (d) => ({ password_policy: { ...d.policy, min_length: validMin(d.minText) ? Number(d.minText) : d.minText } }),
    validate: (d) => checkMin(d.minText),
    fields: ['password_policy'],
  });

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody>
        <div className="flex flex-col gap-5">
          <div className="max-w-48">
            <Field label={t('minLength')} hint={t('minLengthHint')} error={minError ?? part.fieldError('password_policy')}>
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
                  onBlur={() => checkMin()}
                />
              )}
            </Field>
          </div>
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-2 text-sm font-medium">{t('require')}</legend>
            {RULES.map((rule) => (
              <Checkbox
                key={rule}
                label={t(`rules.${rule}`)}
                checked={policy[rule]}
                disabled={!canWrite}
                onChange={(e) => setPolicy((p) => ({ ...p, [rule]: e.target.checked }))}
              />
            ))}
          </fieldset>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            {t('breachCheck')}{' '}
            <Link className="text-indigo-700 underline dark:text-indigo-300" href={pages.instance(account.id, instance.id, 'protection')}>
              {t('protectionLink')}
            </Link>
          </p>
        </div>
      </CardBody>
    </Card>
  );
}
