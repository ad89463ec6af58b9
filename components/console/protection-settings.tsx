'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState, type FormEvent } from 'react';
import { Alert, AsyncContent, Button, Card, CardBody, CardHeader, Checkbox, Field, Input, PageHeader, Skeleton } from '@/components/ui';
import { api } from '@/lib/console/paths';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { ErrorState } from './states';
import { useFormError } from './use-form-error';
import type { AttackProtection, RiskBasedMfa } from '@/lib/generated/dashboard';

/** GET/PATCH …/attack_protection (server/instances/protection-settings.ts). */

const FIELDS = [
  'user_lockout.max_attempts',
  'user_lockout.window_minutes',
  'user_lockout.lockout_minutes',
  'breached_passwords.range_api_url',
] as const;
/** The bounds the API enforces, shown as hints. */
const BOUNDS = { max_attempts: [3, 100], window_minutes: [1, 1440], lockout_minutes: [1, 10080] } as const;

type Draft = {
  lockoutEnabled: boolean;
  max_attempts: string;
  window_minutes: string;
  lockout_minutes: string;
  breachedEnabled: boolean;
  range_api_url: string;
  riskEnabled: boolean;
};

const draftOf = (p: AttackProtection, r: RiskBasedMfa): Draft => ({
  lockoutEnabled: p.user_lockout.enabled,
  max_attempts: String(p.user_lockout.max_attempts),
  window_minutes: String(p.user_lockout.window_minutes),
  lockout_minutes: String(p.user_lockout.lockout_minutes),
  breachedEnabled: p.breached_passwords.enabled,
  range_api_url: p.breached_passwords.range_api_url ?? '',
  riskEnabled: r.enabled,
});

/** `…/protection`: user lockout, breached passwords and risk-based MFA of an instance. */
export function ProtectionSettings() {
  const t = useTranslations('protection');
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const base = api.instance(account.id, instance.id);
  const protection = useDashboard<AttackProtection>(`${base}/attack_protection`);
  const invalidate = useInvalidate();
  const risk = useDashboard<RiskBasedMfa>(`${base}/risk_based_mfa`);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState(false);
  const form = useFormError(FIELDS);

  useEffect(() => {
    if (protection.data && risk.data) setDraft((d) => d ?? draftOf(protection.data!, risk.data!));
  }, [protection.data, risk.data]);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setSaved(false);
    setDraft((d) => (d ? { ...d, [key]: value } : d));
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!draft) return;
    setSaved(false);
    void form.run(async () => {
      const p = await mutate<AttackProtection>('PATCH', `${base}/attack_protection`, {
        user_lockout: {
          enabled: draft.lockoutEnabled,
          max_attempts: Number(draft.max_attempts),
          window_minutes: Number(draft.window_minutes),
          lockout_minutes: Number(draft.lockout_minutes),
        },
        breached_passwords: { enabled: draft.breachedEnabled, range_api_url: draft.range_api_url.trim() || null },
      });
      const r = await mutate<RiskBasedMfa>('PATCH', `${base}/risk_based_mfa`, { enabled: draft.riskEnabled });
      protection.setData(p);
      risk.setData(r);
      setDraft(draftOf(p, r));
      setSaved(true);
    });
  }

  const disabled = !canWrite;
  const error = protection.error ?? risk.error;
  const number = (key: 'max_attempts' | 'window_minutes' | 'lockout_minutes') => (
    <Field
      label={t(`lockout.${key}`)}
      hint={t('bounds', { min: BOUNDS[key][0], max: BOUNDS[key][1] })}
      error={form.fieldError(`user_lockout.${key}`)}
    >
      {(p) => (
        <Input
          {...p}
          type="number"
          inputMode="numeric"
          className="max-w-[10rem]"
          min={BOUNDS[key][0]}
          max={BOUNDS[key][1]}
          value={draft?.[key] ?? ''}
          disabled={disabled || !draft?.lockoutEnabled}
          onChange={(e) => set(key, e.target.value)}
        />
      )}
    </Field>
  );

  return (
    <form className="flex flex-col gap-8" onSubmit={submit} noValidate>
      <PageHeader title={t('title')} description={t('description', { name: instance.name })} />
      {!canWrite && <Alert tone="info">{t('readOnly')}</Alert>}
      {form.formError && <Alert tone="error">{form.formError}</Alert>}
      {saved && <Alert tone="success">{t('saved')}</Alert>}
      <AsyncContent
        data={draft}
        error={
          error ? (
            <ErrorState
              error={error}
              onRetry={() => {
                void invalidate(`${base}/attack_protection`);
                void invalidate(`${base}/risk_based_mfa`);
              }}
            />
          ) : undefined
        }
        loading={<Skeleton className="h-64" />}
      >
        {(d) => (
          <>
            <Card>
              <CardHeader title={t('lockout.title')} description={t('lockout.description')} />
              <CardBody className="flex flex-col gap-5">
                <Checkbox
                  label={t('lockout.enabled')}
                  checked={d.lockoutEnabled}
                  disabled={disabled}
                  onChange={(e) => set('lockoutEnabled', e.target.checked)}
                />
                {number('max_attempts')}
                {number('window_minutes')}
                {number('lockout_minutes')}
              </CardBody>
            </Card>
            <Card>
              <CardHeader title={t('breached.title')} description={t('breached.description')} />
              <CardBody className="flex flex-col gap-5">
                <Checkbox
                  label={t('breached.enabled')}
                  checked={d.breachedEnabled}
                  disabled={disabled}
                  onChange={(e) => set('breachedEnabled', e.target.checked)}
                />
                <Field
                  label={t('breached.rangeApiUrl')}
                  hint={t('breached.rangeApiUrlHint')}
                  error={form.fieldError('breached_passwords.range_api_url')}
                >
                  {(p) => (
                    <Input
                      {...p}
                      type="url"
                      placeholder="https://api.pwnedpasswords.com/range"
                      value={d.range_api_url}
                      disabled={disabled || !d.breachedEnabled}
                      onChange={(e) => set('range_api_url', e.target.value)}
                    />
                  )}
                </Field>
              </CardBody>
            </Card>
            <Card>
              <CardHeader title={t('risk.title')} description={t('risk.description')} />
              <CardBody className="flex flex-col gap-2">
                <Checkbox
                  label={t('risk.enabled')}
                  checked={d.riskEnabled}
                  disabled={disabled}
                  onChange={(e) => set('riskEnabled', e.target.checked)}
                />
                <p className="pl-6 text-xs text-zinc-500 dark:text-zinc-400">
                  {risk.data?.geoip_enabled ? t('risk.geoipOn') : t('risk.geoipOff')}
                </p>
              </CardBody>
            </Card>
            {canWrite && (
              <div className="flex justify-end">
                <Button type="submit" loading={form.busy}>
                  {t('save')}
                </Button>
              </div>
            )}
          </>
        )}
      </AsyncContent>
    </form>
  );
}
