'use client';

import { useTranslations } from 'next-intl';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Button, Field, Input } from '@/components/ui';
import { ErrorLine, Section } from './portal';
import { usePortalCall, usePortalError, useWhen } from './portal-context';

type Entry = { id: string; actor: string; action: string; target: string | null; created_at: number };
type Page = { data: Entry[]; has_more: boolean; next_cursor: string | null };
type Filters = { from: string; to: string; actor: string };

/** `YYYY-MM-DD` (the day's start in the admin's time zone) → ms; `to` is the end of that day. */
const dayStart = (d: string) => (d ? new Date(`${d}T00:00:00`).getTime() : undefined);
function queryOf(f: Filters) {
  const q = new URLSearchParams();
  const since = dayStart(f.from);
  const until = f.to ? dayStart(f.to)! + 86_400_000 : undefined;
  if (since !== undefined) q.set('since', String(since));
  if (until !== undefined) q.set('until', String(until));
  if (f.actor.trim()) q.set('actor', f.actor.trim());
  return q;
}

/** The organization's audit trail: filtered by date and actor, exported as CSV. */
export function PortalAuditLogs() {
  const t = useTranslations('portal.audit');
  const { call, base } = usePortalCall();
  const describe = usePortalError();
  const when = useWhen();
  const [filters, setFilters] = useState<Filters>({ from: '', to: '', actor: '' });
  const [applied, setApplied] = useState<Filters>(filters);
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    async (f: Filters, after: string | null) => {
      setError(null);
      try {
        const q = queryOf(f);
        q.set('limit', '50');
        if (after) q.set('starting_after', after);
        const page = await call<Page>(`/audit_logs?${q}`);
        setEntries((prev) => (after ? [...(prev ?? []), ...page.data] : page.data));
        setCursor(page.next_cursor);
      } catch (err) {
        setError(describe(err));
      }
    },
    [call, describe],
  );
  useEffect(() => {
    void load(applied, null);
  }, [applied, load]);
  function apply(e: FormEvent) {
    e.preventDefault();
    setApplied(filters);
  }
  const exportUrl = `${base}/v1/portal/audit_logs/export?${queryOf(applied)}`;
  return (
    <Section title={t('title')} intro={t('intro')}>
      <form onSubmit={apply} className="grid grid-cols-1 gap-3 sm:grid-cols-4 sm:items-end">
        <Field label={t('from')}>
          {(p) => <Input {...p} type="date" value={filters.from} onChange={(e) => setFilters({ ...filters, from: e.target.value })} />}
        </Field>
        <Field label={t('to')}>
          {(p) => <Input {...p} type="date" value={filters.to} onChange={(e) => setFilters({ ...filters, to: e.target.value })} />}
        </Field>
        <Field label={t('actor')}>
          {(p) => (
            <Input
              {...p}
              value={filters.actor}
              placeholder="portal:ptl_…"
              onChange={(e) => setFilters({ ...filters, actor: e.target.value })}
            />
          )}
        </Field>
        <div className="flex gap-2">
          <Button type="submit">{t('apply')}</Button>
          <a
            className="inline-flex h-10 items-center rounded-md px-3 text-sm font-medium ring-1 ring-zinc-300 hover:bg-zinc-50 dark:ring-zinc-700"
            href={exportUrl}
            download
          >
            {t('export')}
          </a>
        </div>
      </form>
      {entries?.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('empty')}</p>}
      {entries && entries.length > 0 && (
        // Scrolls sideways on a phone: focusable, so a keyboard can scroll it too (axe scrollable-region-focusable).
        <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={t('title')}>
          <table className="w-full text-left text-sm" aria-label={t('title')}>
            <thead>
              <tr className="text-zinc-600 dark:text-zinc-400">
                <th className="py-2 pr-3 font-medium">{t('time')}</th>
                <th className="py-2 pr-3 font-medium">{t('actor')}</th>
                <th className="py-2 pr-3 font-medium">{t('action')}</th>
                <th className="py-2 font-medium">{t('target')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} className="border-t border-zinc-200 dark:border-zinc-800">
                  <td className="py-2 pr-3 whitespace-nowrap">{when(e.created_at)}</td>
                  <td className="py-2 pr-3 font-mono text-xs break-all">{e.actor}</td>
                  <td className="py-2 pr-3">{e.action}</td>
                  <td className="py-2 font-mono text-xs break-all">{e.target ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <div>
          <Button variant="secondary" onClick={() => void load(applied, cursor)}>
            {t('more')}
          </Button>
        </div>
      )}
      <ErrorLine message={error} />
    </Section>
  );
}
