'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Button, Field, FormDialog, Select, ValueField } from '@/components/ui';
import { mutate } from '@/lib/console/use-dashboard';
import { useErrorMessage } from '@/lib/use-error-message';
import { useDates } from '@/lib/console/format';

const INTENTS = ['sso', 'dsync', 'domain_verification', 'audit_logs'] as const;
type PortalLink = { link: string; expires_at: number };

/** "Admin portal link": a single-use link (5 minutes) the operator sends to the organization's IT admin. */
export function PortalLinkButton({ base }: { base: string }) {
  const t = useTranslations('organizations.portalLink');
  const dates = useDates();
  const errorMessage = useErrorMessage();
  const [open, setOpen] = useState(false);
  const [intent, setIntent] = useState<(typeof INTENTS)[number]>('sso');
  const [made, setMade] = useState<PortalLink | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function create(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setMade(await mutate<PortalLink>('POST', `${base}/portal_links`, { intent }));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }
  const close = () => {
    setOpen(false);
    setMade(null);
  };
  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)}>
        {t('button')}
      </Button>
      <FormDialog
        open={open}
        onClose={close}
        title={t('title')}
        onSubmit={create}
        error={error}
        submitLabel={t('create')}
        busy={busy}
        disabled={made !== null}
      >
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('description')}</p>
        <Field label={t('intent')}>
          {(p) => (
            <Select
              {...p}
              value={intent}
              options={INTENTS}
              optionLabel={(v) => t(`intents.${v}`)}
              onChange={(e) => setIntent(e.target.value as typeof intent)}
            />
          )}
        </Field>
        {made && (
          <>
            <ValueField label={t('link')} value={made.link} wrap />
            <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('expires', { time: dates.dateTime(made.expires_at) })}</p>
          </>
        )}
      </FormDialog>
    </>
  );
}
