'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Card, EmptyState, FactList, Field, Input, PageHeader, SidePanel, Skeleton, Table, Td, Thead, Tr } from '@/components/ui';
import { useAuditActionLabel } from '@/lib/console/audit-actions';
import { useDates } from '@/lib/console/format';
import { api, query } from '@/lib/console/paths';
import type { InstanceResponse } from '@/lib/console/types';
import { errorParam, useDashboard } from '@/lib/console/use-dashboard';
import { useErrorMessage } from '@/lib/use-error-message';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { InlineError } from './states';
import { PersonRef, usePeople, type People } from './person';

type AuditEntry = InstanceResponse<'GET /audit_logs'>['data'][number];

type Filters = { action: string; actor: string; target: string; since: string; until: string };
const FILTER_FIELDS = ['action', 'actor', 'target', 'since', 'until'] as const;
/** Each filter's input: a placeholder for the free-text ones, a date picker for the range. */
const FILTER_INPUTS = {
  action: { placeholder: 'user.banned' },
  actor: { placeholder: 'operator:user_…' },
  target: { placeholder: 'user_…' },
  since: { type: 'date' },
  until: { type: 'date' },
};
const EMPTY: Filters = { action: '', actor: '', target: '', since: '', until: '' };

/** A `<input type="date">` value as ms at the start (or, for `until`, the end) of that local day. */
function dayToMs(day: string, endOfDay: boolean): number | undefined {
  if (!day) return undefined;
  const [y, m, d] = day.split('-').map(Number);
  if (!y || !m || !d) return undefined;
  return new Date(y, m - 1, endOfDay ? d + 1 : d).getTime();
}

/** `…/audit`: the instance's audit log with filters and cursor paging. */
export function AuditLog() {
  const t = useTranslations('console.audit');
  const dates = useDates();
  const { account } = useConsole();
  const instance = useInstance();
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const cursor = useCursorPages([applied]);
  const path = `${api.instance(account.id, instance.id)}/audit_logs${query({
    action: applied.action,
    actor: applied.actor,
    target: applied.target,
    since: dayToMs(applied.since, false),
    until: dayToMs(applied.until, true),
    limit: 25,
    starting_after: cursor.current,
  })}`;
  const entries = useDashboard<InstanceResponse<'GET /audit_logs'>>(path);
  const actionLabel = useAuditActionLabel();
  const [shown, setShown] = useState<AuditEntry | null>(null);
  const people = usePeople(entries.data?.data.flatMap((e) => [e.actor, e.target]) ?? []);
  // A filter the API refused (e.g. until before since) is shown under its field.
  const errorMessage = useErrorMessage();
  const apiError = entries.error;
  const param = errorParam(apiError);
  const filterFailed = apiError !== undefined && param !== undefined && (FILTER_FIELDS as readonly string[]).includes(param);
  const fieldError = (name: keyof Filters) => (filterFailed && param === name ? errorMessage(apiError) : undefined);

  function apply(e: FormEvent) {
    e.preventDefault();
    setApplied(draft);
  }
  const set = (key: keyof Filters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: e.target.value }));
  const filtered = Object.values(applied).some(Boolean);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader title={t('title')} description={t('description', { name: instance.name })} />
      <Card>
        <form
          onSubmit={apply}
          noValidate
          className="grid gap-3 border-b border-zinc-200 px-5 py-4 sm:grid-cols-2 lg:grid-cols-5 dark:border-zinc-800"
        >
          {FILTER_FIELDS.map((key) => (
            <Field key={key} label={t(key)} error={fieldError(key)}>
              {(p) => <Input {...p} {...FILTER_INPUTS[key]} value={draft[key]} onChange={set(key)} />}
            </Field>
          ))}
          <div className="flex flex-wrap gap-2 sm:col-span-2 lg:col-span-5">
            <Button type="submit" size="sm">
              {t('apply')}
            </Button>
            {filtered && (
              <Button
                variant="ghost"
                size="sm"
                onClick={() => {
                  setDraft(EMPTY);
                  setApplied(EMPTY);
                }}
              >
                {t('clear')}
              </Button>
            )}
          </div>
        </form>
        {apiError !== undefined && !filterFailed ? (
          <InlineError error={apiError} onRetry={entries.reload} />
        ) : apiError !== undefined ? null : entries.data && entries.data.data.length === 0 ? (
          <EmptyState
            title={filtered ? t('noMatchesTitle') : t('emptyTitle')}
            description={filtered ? t('noMatchesDescription') : t('emptyDescription')}
          />
        ) : (
          <Table caption={t('title')}>
            <Thead columns={[t('time'), t('action'), t('actor'), t('target'), t('details')]} />
            <tbody aria-busy={entries.loading || undefined}>
              {!entries.data
                ? Array.from({ length: 6 }, (_, i) => (
                    <tr key={i}>
                      {Array.from({ length: 5 }, (_, c) => (
                        <Td key={c}>
                          <Skeleton className="h-4 w-28" />
                        </Td>
                      ))}
                    </tr>
                  ))
                : entries.data.data.map((entry) => (
                    <Tr key={entry.id} className={entries.loading ? 'opacity-60' : undefined}>
                      <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.dateTime(entry.created_at)}</Td>
                      <Td>
                        <span className="block font-medium">{actionLabel(entry.action)}</span>
                        <span className="block font-mono text-xs text-zinc-500 dark:text-zinc-400">{entry.action}</span>
                      </Td>
                      <Td>
                        <div className="max-w-56 min-w-0">
                          <PersonRef value={entry.actor} people={people} />
                        </div>
                      </Td>
                      <Td>
                        <div className="max-w-56 min-w-0">
                          <PersonRef value={entry.target} people={people} />
                        </div>
                      </Td>
                      <Td className="text-xs">
                        <Button
                          variant="ghost"
                          size="sm"
                          onClick={() => setShown(entry)}
                          aria-label={t('showEntry', { action: actionLabel(entry.action) })}
                        >
                          {t('show')}
                        </Button>
                      </Td>
                    </Tr>
                  ))}
            </tbody>
          </Table>
        )}
        <Pager state={cursor} page={entries.data} loading={entries.loading} />
      </Card>
      <SidePanel open={shown !== null} onClose={() => setShown(null)} title={shown ? actionLabel(shown.action) : ''}>
        {shown && <AuditEntryDetails entry={shown} people={people} />}
      </SidePanel>
    </div>
  );
}

/** One entry in full: who, what, when, from where, and each detail on its own line. */
function AuditEntryDetails({ entry, people }: { entry: AuditEntry; people: People }) {
  const t = useTranslations('console.audit');
  const dates = useDates();
  const details = Object.entries(entry.details);
  const facts: Array<[string, ReactNode]> = [
    [t('time'), dates.dateTime(entry.created_at)],
    [
      t('actionCode'),
      <code key="a" className="font-mono text-xs">
        {entry.action}
      </code>,
    ],
    [t('actor'), <RefWithId key="actor" value={entry.actor} people={people} />],
    [t('target'), <RefWithId key="target" value={entry.target} people={people} />],
    ...(entry.ip
      ? [
          [
            t('ip'),
            <code key="ip" className="font-mono text-xs">
              {entry.ip}
            </code>,
          ] as [string, ReactNode],
        ]
      : []),
    ...(entry.user_agent
      ? [
          [
            t('userAgent'),
            <span key="ua" className="text-xs">
              {entry.user_agent}
            </span>,
          ] as [string, ReactNode],
        ]
      : []),
  ];
  return (
    <div className="flex flex-col gap-6">
      <FactList facts={facts} className="grid-cols-[minmax(6rem,auto)_1fr] gap-x-4 gap-y-3" />
      <section aria-labelledby="audit-entry-details" className="flex flex-col gap-2">
        <h3 id="audit-entry-details" className="text-sm font-semibold">
          {t('details')}
        </h3>
        {details.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('noDetails')}</p>
        ) : (
          <FactList
            className="grid-cols-[minmax(6rem,auto)_1fr] gap-x-4 gap-y-2"
            facts={details.map(([key, value]) => [
              key,
              typeof value === 'object' && value !== null ? (
                <pre
                  key={key}
                  className="overflow-x-auto rounded bg-zinc-100 p-2 font-mono text-xs whitespace-pre-wrap break-all dark:bg-zinc-800"
                >
                  {JSON.stringify(value, null, 2)}
                </pre>
              ) : (
                <span key={key} className="font-mono text-xs">
                  {String(value)}
                </span>
              ),
            ])}
          />
        )}
      </section>
    </div>
  );
}

/** A ref as its name with the raw id under it (both readable in the panel). */
function RefWithId({ value, people }: { value: string | null; people: People }) {
  return (
    <span className="flex flex-col gap-0.5">
      <PersonRef value={value} people={people} />
      {value && people.has(value) && <code className="font-mono text-xs break-all text-zinc-500 dark:text-zinc-400">{value}</code>}
    </span>
  );
}
