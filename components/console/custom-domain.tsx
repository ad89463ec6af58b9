'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Card, CardBody, CardHeader, Field, Input, ValueField } from '@/components/ui';
import { api } from '@/lib/console/paths';
import type { Settings } from '@/lib/console/types';
import { errorReason, mutate } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { useFormError } from './use-form-error';

const FIELDS = ['custom_domain'] as const;
/** The server's own rule (server/instances/custom-domain.ts) is the authority; this only spares a round trip. */
const HOSTNAME_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The instance's custom domain (settings page): its FAPI, hosted pages and OIDC then
 * answer at `https://<domain>/`, which becomes the fapi_url and the issuer, and the
 * publishable key derives from it.
 */
export function CustomDomainSettings() {
  const t = useTranslations('domains');
  const { account, canWrite, reloadInstances } = useConsole();
  const instance = useInstance();
  const current = instance.settings.custom_domain ?? null;
  const [value, setValue] = useState(current ?? '');
  const [local, setLocal] = useState<string>();
  /** What the last save set (a domain, or null when removed); undefined before any. */
  const [saved, setSaved] = useState<string | null>();
  const form = useFormError(FIELDS);

  function save(next: string | null) {
    setSaved(undefined);
    void form.run(async () => {
      await mutate<Settings>('PATCH', `${api.instance(account.id, instance.id)}/settings`, { custom_domain: next });
      setValue(next ?? '');
      setSaved(next);
      reloadInstances();
    });
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const domain = value.trim().toLowerCase();
    const invalid = domain !== '' && !HOSTNAME_RE.test(domain);
    setLocal(invalid ? t('invalid') : undefined);
    if (!invalid) save(domain === '' ? null : domain);
  }

  const serverError = errorReason(form.error) === 'domain_in_use' ? t('inUse') : form.fieldError('custom_domain');
  return (
    <form onSubmit={submit} noValidate>
      <Card>
        <CardHeader title={t('title')} description={t('description')} />
        <CardBody className="flex flex-col gap-5">
          {form.formError && <Alert tone="error">{form.formError}</Alert>}
          {saved !== undefined && <Alert tone="success">{saved ? t('saved', { domain: saved }) : t('cleared')}</Alert>}
          <Field label={t('label')} hint={t('hint')} error={local ?? serverError}>
            {(p) => (
              <Input
                {...p}
                className="max-w-md"
                placeholder="auth.example.com"
                value={value}
                disabled={!canWrite}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => {
                  setSaved(undefined);
                  setValue(e.target.value);
                }}
              />
            )}
          </Field>
          <ValueField label={t('fapiUrl')} value={instance.fapi_url} />
          <ValueField label={t('publishableKey')} value={instance.publishable_key} wrap />
          {current && <Alert tone="info">{t('dns', { domain: current })}</Alert>}
          {canWrite && (
            <div className="flex justify-end gap-2">
              {current && (
                <Button variant="secondary" loading={form.busy} onClick={() => save(null)}>
                  {t('remove')}
                </Button>
              )}
              <Button type="submit" loading={form.busy}>
                {t('save')}
              </Button>
            </div>
          )}
        </CardBody>
      </Card>
    </form>
  );
}
