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
import { useFormError } from './use-form-error';

const codes = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((c) => c.replace(/^\+/, ''))
    .filter(Boolean);
const orNull = (s: string) => s.trim() || null;

/** `…/settings/sms`: the SMS provider (Twilio; the auth token write-only), the country allow-list, and a test send. */
export function SmsSettingsPage() {
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const path = `${api.instance(account.id, instance.id)}/sms_settings`;
  const settings = useDashboard<SmsSettings>(path);
  return (
    <>
      <ProviderCard path={path} settings={settings.data} canWrite={canWrite} />
      {canWrite && settings.data?.configured && <TestSendCard path={`${path}/test_send`} />}
    </>
  );
}

function ProviderCard({ path, settings, canWrite }: { path: string; settings: SmsSettings | undefined; canWrite: boolean }) {
  const t = useTranslations('console.smsSettings');
  const invalidate = useInvalidate();
  const form = useFormError(['account_id', 'auth_token', 'from_number', 'messaging_service_id', 'api_base_url', 'allowed_country_codes']);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [authToken, setAuthToken] = useState('');
  const [saved, setSaved] = useState(false);
  const value = (key: keyof SmsSettings, shown = (v: unknown) => String(v ?? '')) => draft[key] ?? shown(settings?.[key]);
  const set = (key: string) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: e.target.value }));

  function submit(e: FormEvent) {
    e.preventDefault();
    form.clear();
    setSaved(false);
    void form.run(async () => {
      await mutate('PATCH', path, {
        account_id: orNull(value('account_id')),
        ...(authToken.trim() ? { auth_token: authToken.trim() } : {}),
        from_number: orNull(value('from_number')),
        messaging_service_id: orNull(value('messaging_service_id')),
        api_base_url: orNull(value('api_base_url')),
        allowed_country_codes: codes(value('allowed_country_codes', (v) => ((v as string[] | undefined) ?? []).join(', '))),
      });
      setAuthToken('');
      setDraft({});
      setSaved(true);
      void invalidate(path);
    });
  }

  const text = (key: keyof SmsSettings & string, label: string, hint?: string) => (
    <Field label={label} hint={hint} error={form.fieldError(key)}>
      {(p) => <Input {...p} name={key} disabled={!canWrite} value={value(key)} onChange={set(key)} spellCheck={false} />}
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
        <form onSubmit={submit} className="flex max-w-xl flex-col gap-4">
          <Field label={t('callbackUrl')}>
            {(p) => <Input {...p} readOnly value={settings?.status_callback_url ?? ''} className="font-mono" />}
          </Field>
          {text('account_id', t('accountId'))}
          <Field label={t('authToken')} hint={t('authTokenHint')} error={form.fieldError('auth_token')}>
            {(p) => (
              <div className="flex items-center gap-2">
                <Input
                  {...p}
                  name="auth_token"
                  type="password"
                  autoComplete="off"
                  disabled={!canWrite}
                  value={authToken}
                  onChange={(e) => setAuthToken(e.target.value)}
                />
                <Badge tone={settings?.auth_token_set ? 'green' : 'neutral'}>{settings?.auth_token_set ? t('isSet') : t('notSet')}</Badge>
              </div>
            )}
          </Field>
          {text('from_number', t('fromNumber'), t('fromNumberHint'))}
          {text('messaging_service_id', t('messagingServiceId'), t('messagingServiceIdHint'))}
          {text('api_base_url', t('apiBase'), t('apiBaseHint'))}
          <Field label={t('countries')} hint={t('countriesHint')} error={form.fieldError('allowed_country_codes')}>
            {(p) => (
              <Input
                {...p}
                name="allowed_country_codes"
                disabled={!canWrite}
                value={value('allowed_country_codes', (v) => ((v as string[] | undefined) ?? []).join(', '))}
                onChange={set('allowed_country_codes')}
                spellCheck={false}
              />
            )}
          </Field>
          {form.formError && <Alert tone="error">{form.formError}</Alert>}
          {saved && <Alert tone="success">{t('saved')}</Alert>}
          {canWrite && (
            <div>
              <Button type="submit" disabled={form.busy}>
                {t('save')}
              </Button>
            </div>
          )}
        </form>
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
