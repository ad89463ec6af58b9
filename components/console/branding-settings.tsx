'use client';

import { useTranslations } from 'next-intl';
import { useState, type ChangeEvent } from 'react';
import { Button, Card, CardBody, CardHeader, Field, Input } from '@/components/ui';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { fileBase64, IMAGE_UPLOAD_MAX_BYTES as LOGO_MAX_BYTES, IMAGE_UPLOAD_TYPES as LOGO_TYPES } from '@/lib/file-base64';
import { useErrorMessage } from '@/lib/use-error-message';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { useSettingsPart } from './settings-draft';
import type { Branding } from '@/lib/generated/dashboard';

const HEX = /^#[0-9a-fA-F]{6}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** WCAG contrast of white text on a #rrggbb colour (what the hosted pages' buttons draw). */
function contrastWithWhite(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 1.05 / (0.2126 * r! + 0.7152 * g! + 0.0722 * b! + 0.05);
}

/**
 * The instance's branding: the application name end users see (else the instance's name), the
 * logo (uploaded, checked, served by the FAPI), the primary colour of the hosted pages and the
 * support address of the hosted pages and messages.
 */
export function BrandingSettings() {
  const t = useTranslations('console.branding');
  const errorMessage = useErrorMessage();
  const { canWrite } = useConsole();
  const instance = useInstance();
  const base = useInstanceApi();
  const branding = useDashboard<Branding>(`${base}/branding`);
  const invalidate = useInvalidate();
  const initial = instance.settings.branding ?? { application_name: null, primary_color: null, support_email: null, email_from: null };
  const saved = {
    appName: initial.application_name ?? '',
    color: initial.primary_color ?? '',
    support: initial.support_email ?? '',
    emailFrom: initial.email_from ?? '',
  };
  const [draft, setDraft] = useState(saved);
  const { appName, color, support } = draft;
  const setAppName = (v: string) => setDraft((d) => ({ ...d, appName: v }));
  const setColor = (v: string) => setDraft((d) => ({ ...d, color: v }));
  const setSupport = (v: string) => setDraft((d) => ({ ...d, support: v }));
  const setEmailFrom = (v: string) => setDraft((d) => ({ ...d, emailFrom: v }));
  const [local, setLocal] = useState<{ appName?: string; color?: string; support?: string }>({});
  const [logoError, setLogoError] = useState<string | null>(null);
  const [logoBusy, setLogoBusy] = useState(false);

  const checkColor = (v = color) =>
    v && !HEX.test(v) ? t('colorInvalid') : v && contrastWithWhite(v) < 4.5 ? t('colorContrast') : undefined;
  const checkAppName = (v = appName) => (v.trim().length > 100 ? t('appNameInvalid') : undefined);
  const checkSupport = (v = support) => (v && !EMAIL.test(v) ? t('emailInvalid') : undefined);

  // A part of the page's draft (SettingsDraft): the page's bar saves it; the logo is uploaded or removed at once.
  const part = useSettingsPart('branding', {
    draft,
    saved,
    setDraft: (d) => {
      setDraft(d);
      setLocal({});
    },
    body: (d) => ({
      branding: {
        application_name: d.appName.trim() || null,
        primary_color: d.color || null,
        support_email: d.support.trim() || null,
        email_from: d.emailFrom.trim() || null,
      },
    }),
    validate: (d) => {
      const problems = { appName: checkAppName(d.appName), color: checkColor(d.color), support: checkSupport(d.support) };
      setLocal(problems);
      return !problems.appName && !problems.color && !problems.support;
    },
    fields: ['branding.application_name', 'branding.primary_color', 'branding.support_email', 'branding.email_from', 'branding'],
  });

  async function upload(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setLogoError(null);
    if (!LOGO_TYPES.includes(file.type)) return setLogoError(t('logoType'));
    if (file.size > LOGO_MAX_BYTES) return setLogoError(t('logoSize'));
    setLogoBusy(true);
    try {
      await mutate('PUT', `${base}/branding/logo`, { content_type: file.type, data: await fileBase64(file) });
      void invalidate(`${base}/branding`);
    } catch (err) {
      setLogoError(errorMessage(err));
    } finally {
      setLogoBusy(false);
    }
  }

  async function removeLogo() {
    setLogoError(null);
    try {
      await mutate('DELETE', `${base}/branding/logo`);
      void invalidate(`${base}/branding`);
    } catch (err) {
      setLogoError(errorMessage(err));
    }
  }

  const logo = branding.data?.logo_url ?? null;
  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody className="flex flex-col gap-6">
        <section aria-label={t('logo')} className="flex flex-wrap items-center gap-4">
          {logo ? (
            <img
              src={logo}
              alt={t('logoPreview')}
              className="size-16 rounded-lg border border-zinc-200 object-contain dark:border-zinc-700"
            />
          ) : (
            <span className="flex size-16 items-center justify-center rounded-lg border border-dashed border-zinc-300 text-xs text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
              {t('noLogo')}
            </span>
          )}
          {canWrite && (
            <div className="flex flex-col gap-2">
              <label className="text-sm font-medium">
                {t('uploadLogo')}
                <input type="file" accept={LOGO_TYPES.join(',')} onChange={upload} disabled={logoBusy} className="mt-1 block text-sm" />
              </label>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">{t('logoHint')}</p>
              {logo && (
                <Button size="sm" variant="ghost" className="self-start" onClick={removeLogo}>
                  {t('removeLogo')}
                </Button>
              )}
            </div>
          )}
          {logoError && (
            <p role="alert" className="basis-full text-xs font-medium text-red-600 dark:text-red-400">
              {logoError}
            </p>
          )}
        </section>
        <div className="flex flex-col gap-4">
          <Field
            label={t('appName')}
            hint={t('appNameHint', { name: instance.name })}
            error={local.appName ?? part.fieldError('branding.application_name')}
          >
            {(p) => (
              <Input
                {...p}
                value={appName}
                maxLength={120}
                disabled={!canWrite}
                placeholder={instance.name}
                onChange={(e) => setAppName(e.target.value)}
                onBlur={() => setLocal((l) => ({ ...l, appName: checkAppName() }))}
              />
            )}
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label={t('color')} hint={t('colorHint')} error={local.color ?? part.fieldError('branding.primary_color')}>
              {(p) => (
                <div className="flex items-center gap-2">
                  <input
                    type="color"
                    aria-label={t('colorPicker')}
                    value={HEX.test(color) ? color : '#4f46e5'}
                    disabled={!canWrite}
                    onChange={(e) => {
                      setColor(e.target.value);
                      setLocal((l) => ({ ...l, color: checkColor(e.target.value) }));
                    }}
                    className="h-10 w-12 rounded border border-zinc-300 dark:border-zinc-700"
                  />
                  <Input
                    {...p}
                    value={color}
                    disabled={!canWrite}
                    placeholder="#4f46e5"
                    onChange={(e) => setColor(e.target.value.trim())}
                    onBlur={() => setLocal((l) => ({ ...l, color: checkColor() }))}
                    spellCheck={false}
                  />
                </div>
              )}
            </Field>
            <Field
              label={t('supportEmail')}
              hint={t('supportEmailHint')}
              error={local.support ?? part.fieldError('branding.support_email')}
            >
              {(p) => (
                <Input
                  {...p}
                  type="email"
                  value={support}
                  disabled={!canWrite}
                  onChange={(e) => setSupport(e.target.value)}
                  onBlur={() => setLocal((l) => ({ ...l, support: checkSupport() }))}
                />
              )}
            </Field>
          </div>
          <Field label={t('emailFrom')} hint={t('emailFromHint')} error={part.fieldError('branding.email_from')}>
            {(p) => (
              <Input
                {...p}
                value={draft.emailFrom}
                maxLength={320}
                disabled={!canWrite}
                placeholder="Acme <no-reply@acme.com>"
                onChange={(e) => setEmailFrom(e.target.value)}
                spellCheck={false}
              />
            )}
          </Field>
        </div>
      </CardBody>
    </Card>
  );
}
