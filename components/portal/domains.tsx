'use client';

import { useTranslations } from 'next-intl';
import { useCallback, useState, type FormEvent } from 'react';
import { Badge, Button, Field, Input, ValueField } from '@/components/ui';
import { ErrorLine, Section } from './portal';
import { reasonOf, usePortalCall, usePortalError, usePortalInvalidate, usePortalResource, useWhen } from './portal-context';

export type PortalDomain = {
  id: string;
  name: string;
  verification: {
    status: 'unverified' | 'verified';
    strategy: string | null;
    verified_at: number | null;
    /** The last DNS check (kept when it failed) and why it failed; error is null once a check succeeds. */
    last_checked_at: number | null;
    error: string | null;
  };
  txt_record: { type: 'TXT'; name: string; value: string };
};

/** The organization's domains (every intent but audit logs): add, see the TXT record, verify by DNS. */
export function usePortalDomains() {
  const domains = usePortalResource<{ data: PortalDomain[] }>('/domains');
  const invalidate = usePortalInvalidate();
  // Every section showing the domains (the SSO step's picker) follows a change made in another.
  const changed = useCallback(() => invalidate('/domains'), [invalidate]);
  return { domains: domains.data?.data ?? null, changed };
}

export function PortalDomains() {
  const t = useTranslations('portal.domains');
  const { call } = usePortalCall();
  const describe = usePortalError();
  const { domains, changed } = usePortalDomains();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function add(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call('/domains', { json: { name } });
      setName('');
      await changed();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Section title={t('title')} intro={t('intro')}>
      {domains?.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('empty')}</p>}
      <ul className="flex flex-col gap-4">
        {domains?.map((d) => (
          <DomainRow key={d.id} domain={d} onChange={changed} />
        ))}
      </ul>
      <form onSubmit={add} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex-1">
          <Field label={t('name')}>
            {(p) => <Input {...p} value={name} placeholder={t('placeholder')} onChange={(e) => setName(e.target.value)} required />}
          </Field>
        </div>
        <Button type="submit" loading={busy}>
          {t('add')}
        </Button>
      </form>
      <ErrorLine message={error} />
    </Section>
  );
}

function DomainRow({ domain, onChange }: { domain: PortalDomain; onChange: () => Promise<void> }) {
  const t = useTranslations('portal.domains');
  const { call } = usePortalCall();
  const describe = usePortalError();
  const when = useWhen();
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const verified = domain.verification.status === 'verified';
  // The server's own words for the last failed check (no record yet, another value, the lookup failed), kept across reloads.
  const lastError = domain.verification.error;
  async function verify() {
    setBusy(true);
    setFailure(null);
    try {
      await call(`/domains/${domain.id}/verify`, { method: 'POST' });
      await onChange();
    } catch (err) {
      const reason = reasonOf(err);
      // txt_record_not_found: the domain answered again carries the cause (verification.error), shown below.
      setFailure(reason === 'txt_record_not_found' ? null : reason === 'domain_taken' ? t(`reasons.${reason}`) : describe(err));
      await onChange();
    } finally {
      setBusy(false);
    }
  }
  async function remove() {
    await call(`/domains/${domain.id}`, { method: 'DELETE' }).catch((err: unknown) => setFailure(describe(err)));
    await onChange();
  }
  const failed = Boolean(failure ?? lastError);
  const status = verified ? 'verified' : failed ? 'failed' : 'pending';
  return (
    <li className="flex flex-col gap-3 rounded-lg p-4 ring-1 ring-zinc-200 dark:ring-zinc-800" aria-label={domain.name}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="font-medium">{domain.name}</span>
        <Badge tone={verified ? 'green' : failed ? 'red' : 'amber'}>{t(`status.${status}`)}</Badge>
      </div>
      {!verified && (
        <>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('instructions')}</p>
          <ValueField label={t('recordName', { domain: domain.name })} value={domain.txt_record.name} wrap />
          <ValueField label={t('recordValue', { domain: domain.name })} value={domain.txt_record.value} wrap />
          {domain.verification.last_checked_at !== null && (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              {t('lastChecked', { time: when(domain.verification.last_checked_at) })}
            </p>
          )}
          {(failure ?? lastError) && (
            <p className="text-sm text-red-700 dark:text-red-300" data-testid="domain-error">
              {t('failed', { reason: failure ?? lastError ?? '' })}
            </p>
          )}
          <div className="flex flex-wrap gap-2">
            <Button onClick={verify} loading={busy}>
              {busy ? t('verifying') : t('verify')}
            </Button>
            <Button variant="ghost" onClick={remove}>
              {t('remove')}
            </Button>
          </div>
        </>
      )}
    </li>
  );
}
