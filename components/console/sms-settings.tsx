'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Card, CardBody, CardHeader, Field, Input } from '@/components/ui';
import { api } from '@/lib/console/paths';
import type { Sms, SmsSettings } from '@/lib/console/types';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { SettingsDraft, useSettingsPart } from './settings-draft';
import { useFormError } from './use-form-error';

const codes = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((c) => c.replace(/^\+/, ''))
    .filter(Boolean);
const orNull = (s: string) => s.trim() || null;

/**
 * `…/settings/sms`: the SMS provider (Twilio; the auth token write-only) and the country allow-list, a part of the page's
 * draft (SettingsDraft: saved by the page's bar, PATCH …/sms_settings), and a test send.
 */
export function SmsSettingsPage() {
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const path = `${api.instance(account.id, instance.id)}/sms_settings`;
  const settings = useDashboard<SmsSettings>(path);
  return (
    <SettingsDraft>
      <ProviderCard path={path} settings={settings.data} canWrite={canWrite} />
      {canWrite && settings.data?.configured && <TestSendCard path={`${path}/test_send`} />}
    </SettingsDraft>
  );
}

const FIELDS = ['account_id', 'auth_token', 'from_number', 'messaging_service_id', 'api_base_url', 'allowed_country_codes'] as const;
type Draft = Record<(typeof FIELDS)[number], string>;

/** What the form shows of the saved settings (the auth token is never shown: empty keeps it). */
const shownOf = (s: SmsSettings | undefined): Draft => ({
  account_id: s?.account_id ?? '',
  auth_token: '',
  from_number: s?.from_number ?? '',
  messaging_service_id: s?.messaging_service_id ?? '',
  api_base_url: s?.api_base_url ?? '',
  allowed_country_codes: (s?.allowed_country_codes ?? []).join(', '),
});

function ProviderCard({ path, settings, canWrite }: { path: string; settings: SmsSettings | undefined; canWrite: boolean }) {
  const t = useTranslations('console.smsSettings');
  const invalidate = useInvalidate();
  const saved = shownOf(settings);
  /** The fields changed here, over the saved ones (so the settings refetched after a save show through). */
  const [edits, setEdits] = useState<Partial<Draft>>({});
  const draft: Draft = { ...saved, ...edits };
  const part = useSettingsPart('sms', {
    draft,
    saved,
    setDraft: (d) => setEdits(d === saved ? {} : d),
    body: (d) => ({
      account_id: orNull(d.account_id),
      ...(d.auth_token.trim() ? { auth_token: d.auth_token.trim() } : {}),
      from_number: orNull(d.from_number),
      messaging_service_id: orNull(d.messaging_service_id),
      api_base_url: orNull(d.api_base_url),
      allowed_country_codes: codes(d.allowed_country_codes),
    }),
    fields: FIELDS,
    resource: 'sms_settings',
    afterSave: () => {
      setEdits({});
      void invalidate(path);
    },
  });
  const set = (key: keyof Draft) => (e: { target: { value: string } }) => setEdits((d) => ({ ...d, [key]: e.target.value }));

  const text = (key: keyof Draft, label: string, hint?: string) => (
    <Field label={label} hint={hint} error={part.fieldError(key)}>
      {(p) => <Input {...p} name={key} disabled={!canWrite} value={draft[key]} onChange={set(key)} spellCheck={false} />}
    </Field>
  );
  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={
          settings && (
            <Badge tone={settings.configured ? 'green' : 'neutral'}>{settings.configured ? t('configured') : t('notConfigured')}</Badge>
          )
        }
      />
      <CardBody>
        <div className="flex max-w-xl flex-col gap-4">
          <Field label={t('callbackUrl')}>
            {(p) => <Input {...p} readOnly value={settings?.status_callback_url ?? ''} className="font-mono" />}
          </Field>
          {text('account_id', t('accountId'))}
          <Field label={t('authToken')} hint={t('authTokenHint')} error={part.fieldError('auth_token')}>
            {(p) => (
              <div className="flex items-center gap-2">
                <Input
                  {...p}
                  name="auth_token"
                  type="password"
                  autoComplete="off"
                  disabled={!canWrite}
                  value={draft.auth_token}
                  onChange={set('auth_token')}
                />
                <Badge tone={settings?.auth_token_set ? 'green' : 'neutral'}>{settings?.auth_token_set ? t('isSet') : t('notSet')}</Badge>
              </div>
            )}
          </Field>
          {text('from_number', t('fromNumber'), t('fromNumberHint'))}
          {text('messaging_service_id', t('messagingServiceId'), t('messagingServiceIdHint'))}
          {text('api_base_url', t('apiBase'), t('apiBaseHint'))}
          {text('allowed_country_codes', t('countries'), t('countriesHint'))}
        </div>
      </CardBody>
    </Card>
  );
}

function TestSendCard({ path }: { path: string }) {
  const t = useTranslations('console.smsSettings');
  const form = useFormError(['to']);
  const [to, setTo] = useState('');
  const [result, setResult] = useState<Sms | null>(null);

  function submit(e: FormEvent) {
    e.preventDefault();
    form.clear();
    setResult(null);
    void form.run(async () => setResult(await mutate<Sms>('POST', path, { to: to.trim() })));
  }

  return (
    <Card>
      <CardHeader title={t('testTitle')} />
      <CardBody>
        <form onSubmit={submit} className="flex max-w-xl flex-col gap-4">
          <Field label={t('testTo')} error={form.fieldError('to')}>
            {(p) => (
              <Input {...p} name="to" type="tel" required placeholder="+14155550123" value={to} onChange={(e) => setTo(e.target.value)} />
            )}
          </Field>
          {form.formError && <Alert tone="error">{form.formError}</Alert>}
          {result && (
            <Alert tone={result.status === 'failed' ? 'error' : result.status === 'queued' ? 'info' : 'success'}>
              {t('testResult', { status: result.status })}
              {result.error && <span className="block">{t('testError', { code: result.error_code ?? '', error: result.error })}</span>}
            </Alert>
          )}
          <div>
            <Button type="submit" disabled={form.busy}>
              {t('testSend')}
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
