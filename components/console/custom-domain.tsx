'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Button, Card, CardBody, CardHeader, Field, Input, ValueField } from '@/components/ui';
import { errorReason } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { useSettingsPart } from './settings-draft';

const FIELDS = ['custom_domain'] as const;
/** The server's own rule (server/instances/custom-domain.ts) is the authority; this only spares a round trip. */
const HOSTNAME_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const domainOf = (v: string) => v.trim().toLowerCase();

/**
 * The instance's custom domain (settings page): its FAPI, hosted pages and OIDC then
 * answer at `https://<domain>/`, which becomes the fapi_url and the issuer, and the
 * publishable key derives from it. A part of the page's draft (SettingsDraft): typed or
 * removed here, saved by the page's bar.
 */
export function CustomDomainSettings() {
  const t = useTranslations('domains');
  const { canWrite } = useConsole();
  const instance = useInstance();
  const current = instance.settings.custom_domain ?? null;
  const [value, setValue] = useState(current ?? '');
  const [local, setLocal] = useState<string>();
  const part = useSettingsPart('custom-domain', {
    draft: value,
    saved: current ?? '',
    setDraft: (d) => {
      setValue(d);
      setLocal(undefined);
    },
    body: (d) => ({ custom_domain: domainOf(d) || null }),
    validate: (d) => {
      const invalid = domainOf(d) !== '' && !HOSTNAME_RE.test(domainOf(d));
      setLocal(invalid ? t('invalid') : undefined);
      return !invalid;
    },
    fields: FIELDS,
  });

  const serverError = errorReason(part.error) === 'domain_in_use' ? t('inUse') : part.fieldError('custom_domain');
  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody className="flex flex-col gap-5">
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
              onChange={(e) => setValue(e.target.value)}
            />
          )}
        </Field>
        <ValueField label={t('fapiUrl')} value={instance.fapi_url} />
        <ValueField label={t('publishableKey')} value={instance.publishable_key} wrap />
        {current && <Alert tone="info">{t('dns', { domain: current })}</Alert>}
        {canWrite && current && value !== '' && (
          <div className="flex justify-end">
            <Button variant="secondary" onClick={() => setValue('')}>
              {t('remove')}
            </Button>
          </div>
        )}
      </CardBody>
    </Card>
  );
}
