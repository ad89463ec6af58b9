'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Card, CardBody, CardHeader, Checkbox, Field, Input, Select } from '@/components/ui';
import type { Settings } from '@/lib/console/types';
import { errorParam, errorReason } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { toDuration, toSeconds, type Duration } from '@/lib/console/duration';
import { isLocale, LOCALES } from '@/i18n/locales';
import { DurationInput } from './duration-input';
import { useInstance } from './instance-context';
import { ListEditor } from './list-editor';
import { useSettingsPart } from './settings-draft';

/** The settings each sub-page of the settings section edits (and PATCHes, nothing else). */
const SECTION_FIELDS = {
  general: ['default_locale', 'allowed_origins', 'redirect_urls'],
  signUp: ['sign_up_mode', 'allowlist', 'username_required', 'name_required', 'password_required', 'mfa_required', 'delete_self_enabled'],
  sessions: [
    'session_lifetime_seconds',
    'session_inactivity_timeout_seconds',
    'session_token_lifetime_seconds',
    'reverification_window_minutes',
  ],
} as const;
export type SettingsSection = keyof typeof SECTION_FIELDS;
type SettingsField = (typeof SECTION_FIELDS)[SettingsSection][number];

/** What the settings schema accepts (server/instances/settings.ts), in seconds. */
const RANGES = {
  lifetime: [300, 10 * 365 * 86400],
  inactivity: [300, 365 * 86400],
  token: [30, 3600],
  /** Minutes. */
  reverification: [1, 1440],
} as const;

type Draft = Omit<Settings, 'session_lifetime_seconds' | 'session_inactivity_timeout_seconds' | 'session_token_lifetime_seconds'> & {
  lifetime: Duration;
  inactivityEnabled: boolean;
  inactivity: Duration;
  tokenLifetime: Duration;
};

const draftOf = (s: Settings): Draft => ({
  ...s,
  lifetime: toDuration(s.session_lifetime_seconds, ['minutes', 'hours', 'days']),
  inactivityEnabled: s.session_inactivity_timeout_seconds !== null,
  inactivity: toDuration(s.session_inactivity_timeout_seconds ?? 86400, ['minutes', 'hours', 'days']),
  tokenLifetime: toDuration(s.session_token_lifetime_seconds, ['seconds', 'minutes']),
});

/** A section's settings of a draft as the API takes them (durations in seconds, null when not a number). */
function sectionBody(section: SettingsSection, d: Draft): Record<string, unknown> {
  if (section === 'general')
    return { default_locale: d.default_locale, allowed_origins: d.allowed_origins, redirect_urls: d.redirect_urls };
  if (section === 'signUp') {
    return {
      sign_up_mode: d.sign_up_mode,
      allowlist: d.allowlist,
      username_required: d.username_required,
      name_required: d.name_required,
      password_required: d.password_required,
      mfa_required: d.mfa_required,
      delete_self_enabled: d.delete_self_enabled,
    };
  }
  return {
    session_lifetime_seconds: toSeconds(d.lifetime),
    session_inactivity_timeout_seconds: d.inactivityEnabled ? toSeconds(d.inactivity) : null,
    session_token_lifetime_seconds: toSeconds(d.tokenLifetime),
    reverification_window_minutes: d.reverification_window_minutes,
  };
}

/**
 * One sub-page's form of an instance's settings: General (language, origins, redirect URLs),
 * Sign-up and sign-in (mode, required fields, MFA, self-deletion) or Sessions (lifetimes).
 * A part of the page's draft (SettingsDraft): the page's bar saves it with the page's other cards.
 */
export function InstanceSettings({ section }: { section: SettingsSection }) {
  const t = useTranslations('console.settings');
  const tl = useTranslations('common.languages');
  const { canWrite } = useConsole();
  const instance = useInstance();
  const [draft, setDraft] = useState<Draft>(() => draftOf(instance.settings));
  const [local, setLocal] = useState<Partial<Record<SettingsField, string>>>({});
  const part = useSettingsPart(`settings-${section}`, {
    draft,
    saved: draftOf(instance.settings),
    setDraft: (d) => {
      setDraft(d);
      setLocal({});
    },
    body: (d) => sectionBody(section, d),
    validate: section === 'sessions' ? validateSessions : undefined,
    fields: SECTION_FIELDS[section],
  });
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    if (local[key as SettingsField]) setLocal((l) => ({ ...l, [key]: undefined }));
  };
  const fieldError = (f: SettingsField) => local[f] ?? listEntryError(f) ?? part.fieldError(f);

  /** The API names a bad list entry (`allowed_origins.2`, reason invalid_origin): say which, in the reader's language. */
  function listEntryError(f: SettingsField): string | undefined {
    const param = errorParam(part.error);
    const reason = errorReason(part.error);
    if (!param?.startsWith(`${f}.`) || (reason !== 'invalid_origin' && reason !== 'invalid_url')) return undefined;
    const list = f === 'allowed_origins' ? draft.allowed_origins : f === 'redirect_urls' ? draft.redirect_urls : [];
    const value = list[Number(param.slice(f.length + 1))] ?? '';
    return reason === 'invalid_origin' ? t('invalidOrigin', { value }) : t('invalidUrl', { value });
  }

  /** The session durations in range (each error shown under its field). */
  function validateSessions(d: Draft): boolean {
    const body = sectionBody('sessions', d);
    const errors: typeof local = {};
    const outside = (v: number, [min, max]: readonly [number, number]) => v < min || v > max;
    const lifetime = body.session_lifetime_seconds as number | null;
    const inactivity = body.session_inactivity_timeout_seconds as number | null;
    const token = body.session_token_lifetime_seconds as number | null;
    if (lifetime === null) errors.session_lifetime_seconds = t('positiveNumber');
    else if (outside(lifetime, RANGES.lifetime)) errors.session_lifetime_seconds = t('lifetimeRange');
    if (d.inactivityEnabled && inactivity === null) errors.session_inactivity_timeout_seconds = t('positiveNumber');
    else if (inactivity !== null && outside(inactivity, RANGES.inactivity))
      errors.session_inactivity_timeout_seconds = t('inactivityRange');
    if (token === null) errors.session_token_lifetime_seconds = t('positiveNumber');
    else if (outside(token, RANGES.token)) errors.session_token_lifetime_seconds = t('tokenRange');
    const window = d.reverification_window_minutes;
    if (!Number.isInteger(window) || outside(window, RANGES.reverification))
      errors.reverification_window_minutes = t('reverificationRange');
    setLocal(errors);
    return Object.keys(errors).length === 0;
  }

  const disabled = !canWrite;
  return (
    <div className="flex flex-col gap-8">
      {!canWrite && <Alert tone="info">{t('readOnly')}</Alert>}

      {section === 'general' && (
        <Card>
          <CardHeader title={t('generalTitle')} description={t('generalDescription')} />
          <CardBody className="flex flex-col gap-5">
            <Field label={t('defaultLocale')} hint={t('defaultLocaleHint')} error={fieldError('default_locale')}>
              {(p) => (
                <Select
                  {...p}
                  className="max-w-xs"
                  value={draft.default_locale}
                  disabled={disabled}
                  onChange={(e) => set('default_locale', e.target.value)}
                  options={[...new Set([...LOCALES, draft.default_locale])]}
                  optionLabel={(l) => (isLocale(l) ? tl(l) : l)}
                />
              )}
            </Field>
            <ListEditor
              label={t('allowedOrigins')}
              hint={t('allowedOriginsHint')}
              placeholder="https://app.example.com"
              values={draft.allowed_origins}
              onChange={(v) => set('allowed_origins', v)}
              error={fieldError('allowed_origins')}
              disabled={disabled}
            />
            <ListEditor
              label={t('redirectUrls')}
              hint={t('redirectUrlsHint')}
              placeholder="https://app.example.com/after-sign-in"
              values={draft.redirect_urls}
              onChange={(v) => set('redirect_urls', v)}
              error={fieldError('redirect_urls')}
              disabled={disabled}
            />
          </CardBody>
        </Card>
      )}

      {section === 'signUp' && (
        <>
          <Card>
            <CardHeader title={t('signUpTitle')} description={t('signUpDescription')} />
            <CardBody className="flex flex-col gap-5">
              <Field label={t('signUpMode')} hint={t(`signUpModeHint.${draft.sign_up_mode}`)} error={fieldError('sign_up_mode')}>
                {(p) => (
                  <Select
                    {...p}
                    className="max-w-xs"
                    value={draft.sign_up_mode}
                    disabled={disabled}
                    onChange={(e) => set('sign_up_mode', e.target.value as Settings['sign_up_mode'])}
                    options={['public', 'restricted', 'waitlist'] as const}
                    optionLabel={(m) => t(`signUpModes.${m}`)}
                  />
                )}
              </Field>
              {draft.sign_up_mode === 'restricted' && (
                <ListEditor
                  label={t('allowlist')}
                  hint={t('allowlistHint')}
                  placeholder="acme.com"
                  values={draft.allowlist}
                  onChange={(v) => set('allowlist', v)}
                  error={fieldError('allowlist')}
                  disabled={disabled}
                />
              )}
              <div className="flex flex-col gap-3">
                <p className="text-sm font-medium">{t('requiredAtSignUp')}</p>
                <Checkbox
                  label={t('passwordRequired')}
                  checked={draft.password_required}
                  disabled={disabled}
                  onChange={(e) => set('password_required', e.target.checked)}
                />
                <Checkbox
                  label={t('nameRequired')}
                  checked={draft.name_required}
                  disabled={disabled}
                  onChange={(e) => set('name_required', e.target.checked)}
                />
                <Checkbox
                  label={t('usernameRequired')}
                  checked={draft.username_required}
                  disabled={disabled}
                  onChange={(e) => set('username_required', e.target.checked)}
                />
              </div>
            </CardBody>
          </Card>
          <Card>
            <CardHeader title={t('securityTitle')} description={t('securityDescription')} />
            <CardBody className="flex flex-col gap-5">
              <div className="flex flex-col gap-1">
                <Checkbox
                  label={t('mfaRequired')}
                  checked={draft.mfa_required}
                  disabled={disabled}
                  onChange={(e) => set('mfa_required', e.target.checked)}
                />
                <p className="pl-6 text-xs text-zinc-500 dark:text-zinc-400">{t('mfaRequiredHint')}</p>
              </div>
              <MfaMethods passkeys={instance.settings.sign_in_methods.passkey ?? false} />
              <div className="flex flex-col gap-1">
                <Checkbox
                  label={t('deleteSelf')}
                  checked={draft.delete_self_enabled}
                  disabled={disabled}
                  onChange={(e) => set('delete_self_enabled', e.target.checked)}
                />
                <p className="pl-6 text-xs text-zinc-500 dark:text-zinc-400">{t('deleteSelfHint')}</p>
              </div>
            </CardBody>
          </Card>
        </>
      )}

      {section === 'sessions' && (
        <Card>
          <CardHeader title={t('sessionsTitle')} description={t('sessionsDescription')} />
          <CardBody className="flex flex-col gap-5">
            <Field label={t('sessionLifetime')} hint={t('sessionLifetimeHint')} error={fieldError('session_lifetime_seconds')}>
              {(p) => (
                <DurationInput
                  control={p}
                  value={draft.lifetime}
                  onChange={(d) => set('lifetime', d)}
                  units={['minutes', 'hours', 'days']}
                  disabled={disabled}
                />
              )}
            </Field>
            <div className="flex flex-col gap-3">
              <Checkbox
                label={t('inactivityEnabled')}
                checked={draft.inactivityEnabled}
                disabled={disabled}
                onChange={(e) => set('inactivityEnabled', e.target.checked)}
              />
              {draft.inactivityEnabled && (
                <Field
                  label={t('inactivityTimeout')}
                  hint={t('inactivityTimeoutHint')}
                  error={fieldError('session_inactivity_timeout_seconds')}
                >
                  {(p) => (
                    <DurationInput
                      control={p}
                      value={draft.inactivity}
                      onChange={(d) => set('inactivity', d)}
                      units={['minutes', 'hours', 'days']}
                      disabled={disabled}
                    />
                  )}
                </Field>
              )}
            </div>
            <Field label={t('tokenLifetime')} hint={t('tokenLifetimeHint')} error={fieldError('session_token_lifetime_seconds')}>
              {(p) => (
                <DurationInput
                  control={p}
                  value={draft.tokenLifetime}
                  onChange={(d) => set('tokenLifetime', d)}
                  units={['seconds', 'minutes']}
                  disabled={disabled}
                />
              )}
            </Field>
            <Field
              label={t('reverificationWindow')}
              hint={t('reverificationWindowHint')}
              error={fieldError('reverification_window_minutes')}
            >
              {(p) => (
                <Input
                  {...p}
                  type="number"
                  inputMode="numeric"
                  min={RANGES.reverification[0]}
                  max={RANGES.reverification[1]}
                  className="w-32"
                  value={Number.isNaN(draft.reverification_window_minutes) ? '' : draft.reverification_window_minutes}
                  disabled={disabled}
                  onChange={(e) => set('reverification_window_minutes', e.target.valueAsNumber)}
                />
              )}
            </Field>
          </CardBody>
        </Card>
      )}
    </div>
  );
}

/** The second factors the instance takes (server/auth/sign-ins.ts, secondFactorsOfInstance): TOTP and backup codes always, passkeys when they are on. */
function MfaMethods({ passkeys }: { passkeys: boolean }) {
  const t = useTranslations('console.settings');
  const methods = [
    ['totp', true],
    ['backup_code', true],
    ['passkey', passkeys],
  ] as const;
  return (
    <section aria-label={t('mfaMethods')} className="flex flex-col gap-2">
      <p className="text-sm font-medium">{t('mfaMethods')}</p>
      <ul className="flex flex-col gap-1 text-sm">
        {methods.map(([method, on]) => (
          <li key={method} className="flex items-center gap-2">
            <span aria-hidden className={on ? 'text-emerald-600 dark:text-emerald-400' : 'text-zinc-400'}>
              {on ? '✓' : '○'}
            </span>
            <span>{t(`mfaMethod.${method}`)}</span>
            <span className="text-xs text-zinc-500 dark:text-zinc-400">— {on ? t('mfaAllowed') : t('mfaOff')}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
