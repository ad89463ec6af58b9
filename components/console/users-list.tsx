'use client';

import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import {
  Badge,
  Button,
  Card,
  Checkbox,
  EmptyState,
  PageHeader,
  Select,
  Skeleton,
  Table,
  Td,
  Thead,
  Tr,
  cn,
  focusRing,
} from '@/components/ui';
import { displayName, initials, primaryEmail, useDates } from '@/lib/console/format';
import { api, pages, query } from '@/lib/console/paths';
import type { InstanceResponse, User } from '@/lib/console/types';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { CreateUserDialog } from './create-user-dialog';
import { useInstance } from './instance-context';
import { SearchBox } from './search-box';
import { InlineError } from './states';

const PAGE_SIZE = 20;
const FLAGS = ['banned', 'locked', 'has_mfa', 'email_verified'] as const;
const RANGES = ['created_after', 'created_before', 'last_active_after', 'last_active_before'] as const;
const ORDERS = ['-created_at', 'created_at', '-last_sign_in_at', 'last_sign_in_at', 'name', '-name'] as const;
const COLUMNS = ['email', 'phone', 'username', 'mfa', 'created', 'lastSignIn'] as const;
type Column = (typeof COLUMNS)[number];
const DEFAULT_COLUMNS: Column[] = ['email', 'created', 'lastSignIn'];
const COLUMNS_KEY = 'latchkey.console.users.columns';

/** A `<input type="date">` day as ms at the start of that local day (the end for a "before" bound). */
function dayToMs(day: string | null, endOfDay: boolean): number | undefined {
  if (!day) return undefined;
  const [y, m, d] = day.split('-').map(Number);
  return y && m && d ? new Date(y, m - 1, endOfDay ? d + 1 : d).getTime() : undefined;
}

/** The operator's column choice, remembered in this browser. */
function useColumns(): [Set<Column>, (c: Column, on: boolean) => void] {
  const [columns, setColumns] = useState<Set<Column>>(new Set(DEFAULT_COLUMNS));
  useEffect(() => {
    const stored = window.localStorage.getItem(COLUMNS_KEY);
    if (!stored) return;
    const picked = stored.split(',').filter((c): c is Column => (COLUMNS as readonly string[]).includes(c));
    setColumns(new Set(picked));
  }, []);
  const toggle = useCallback((c: Column, on: boolean) => {
    setColumns((current) => {
      const next = new Set(current);
      if (on) next.add(c);
      else next.delete(c);
      window.localStorage.setItem(COLUMNS_KEY, [...next].join(','));
      return next;
    });
  }, []);
  return [columns, toggle];
}

/**
 * `…/users`: search, filter, sort and page through an instance's users; all of it lives in the
 * URL (reload and back keep it). Operators pick the columns, export what is shown as CSV and
 * create users.
 */
export function UsersList() {
  const t = useTranslations('console.users');
  const dates = useDates();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [columns, toggleColumn] = useColumns();
  const [creating, setCreating] = useState(false);

  // Once a user's page is opening, a late search debounce must not send the browser back here.
  const leaving = useRef(false);
  const q = params.get('query') ?? '';
  const cursors = (params.get('pages') ?? '').split(',').filter(Boolean);
  /** Changes the URL: filters reset the pages; `push` for paging so back goes to the page before. */
  const update = useCallback(
    (changes: Record<string, string | null>, push = false) => {
      if (leaving.current) return;
      const next = new URLSearchParams(params.toString());
      for (const [k, v] of Object.entries(changes)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      if (!('pages' in changes)) next.delete('pages');
      const href = `${pathname}${next.toString() ? `?${next}` : ''}`;
      if (push) router.push(href, { scroll: false });
      else router.replace(href, { scroll: false });
    },
    [params, pathname, router],
  );
  const onSearch = useCallback((v: string) => v !== (params.get('query') ?? '') && update({ query: v || null }), [params, update]);

  const filters = {
    query: q,
    ...Object.fromEntries(FLAGS.map((f) => [f, params.get(f) ?? undefined])),
    created_after: dayToMs(params.get('created_after'), false),
    created_before: dayToMs(params.get('created_before'), true),
    last_active_after: dayToMs(params.get('last_active_after'), false),
    last_active_before: dayToMs(params.get('last_active_before'), true),
    order_by: params.get('order_by') ?? undefined,
  };
  const base = `${api.instance(account.id, instance.id)}/users`;
  const path = `${base}${query({ ...filters, limit: PAGE_SIZE, starting_after: cursors.at(-1) })}`;
  const users = useDashboard<InstanceResponse<'GET /users'>>(path);
  const activeFilters = [...FLAGS, ...RANGES].filter((f) => params.get(f)).length;
  const filtered = Boolean(q) || activeFilters > 0;
  // The eight filters fold behind a button; a URL that filters opens them.
  const [filtersOpen, setFiltersOpen] = useState(activeFilters > 0);
  const filtersId = useId();
  const shown = COLUMNS.filter((c) => columns.has(c));

  const cell = (user: User, c: Column) => {
    switch (c) {
      case 'email':
        return primaryEmail(user) ?? '—';
      case 'phone':
        return (user.phone_numbers.find((p) => p.id === user.primary_phone_number_id) ?? user.phone_numbers[0])?.phone_number ?? '—';
      case 'username':
        return user.username ?? '—';
      case 'mfa':
        return user.two_factor_enabled ? t('mfaOn') : '—';
      case 'created':
        return dates.date(user.created_at);
      case 'lastSignIn':
        return dates.relative(user.last_sign_in_at);
    }
  };

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description', { name: instance.name })}
        actions={
          canWrite && (
            <div className="flex flex-wrap gap-2">
              <a
                className={cn(
                  'inline-flex h-10 items-center rounded-md px-4 text-sm font-medium ring-1 ring-inset ring-zinc-300 dark:ring-zinc-700',
                  focusRing,
                )}
                href={`${base}/export.csv${query(filters)}`}
                download
              >
                {t('export')}
              </a>
              <Button onClick={() => setCreating(true)}>{t('create')}</Button>
            </div>
          )
        }
      />
      <div className="flex flex-col gap-3">
        <div className="flex flex-wrap items-end gap-3 text-sm">
          <div className="min-w-0 flex-1 basis-64">
            <SearchBox initial={q} label={t('search')} placeholder={t('searchPlaceholder')} onSearch={onSearch} />
          </div>
          <Button variant="secondary" aria-expanded={filtersOpen} aria-controls={filtersId} onClick={() => setFiltersOpen((open) => !open)}>
            {activeFilters > 0 ? t('filtersCount', { count: activeFilters }) : t('filtersButton')}
          </Button>
          <label className="flex items-center gap-2">
            <span className="font-medium">{t('sort')}</span>
            <Select
              value={params.get('order_by') ?? '-created_at'}
              onChange={(e) => update({ order_by: e.target.value === '-created_at' ? null : e.target.value })}
              options={ORDERS}
              optionLabel={(o) => t(`orders.${o}`)}
              className="h-10"
            />
          </label>
          <details className="relative">
            <summary
              className={cn(
                'flex h-10 cursor-pointer items-center rounded-md px-3 ring-1 ring-inset ring-zinc-300 dark:ring-zinc-700',
                focusRing,
              )}
            >
              {t('columns')}
            </summary>
            <div className="absolute right-0 z-10 mt-1 flex w-48 flex-col gap-2 rounded-md border border-zinc-200 bg-white p-3 shadow-lg sm:left-0 sm:right-auto dark:border-zinc-700 dark:bg-zinc-900">
              {COLUMNS.map((c) => (
                <Checkbox
                  key={c}
                  label={t(`columnNames.${c}`)}
                  checked={columns.has(c)}
                  onChange={(e) => toggleColumn(c, e.target.checked)}
                />
              ))}
            </div>
          </details>
          {filtered && (
            <Button variant="ghost" size="sm" onClick={() => router.replace(pathname, { scroll: false })}>
              {t('clear')}
            </Button>
          )}
        </div>
        {filtersOpen && (
          <div
            id={filtersId}
            role="group"
            aria-label={t('filters')}
            className="grid grid-cols-2 gap-3 rounded-lg p-3 text-sm ring-1 ring-inset ring-zinc-200 sm:grid-cols-4 dark:ring-zinc-800"
          >
            {FLAGS.map((f) => (
              <label key={f} className="flex min-w-0 flex-col gap-1">
                <span className="font-medium">{t(`flags.${f}`)}</span>
                <Select
                  value={params.get(f) ?? ''}
                  onChange={(e) => update({ [f]: e.target.value || null })}
                  options={['true', 'false'] as const}
                  optionLabel={(v) => t(v === 'true' ? 'yes' : 'no')}
                  className="h-9 w-full"
                >
                  <option value="">{t('any')}</option>
                </Select>
              </label>
            ))}
            {RANGES.map((r) => (
              <label key={r} className="flex min-w-0 flex-col gap-1">
                <span className="font-medium">{t(`ranges.${r}`)}</span>
                <input
                  type="date"
                  value={params.get(r) ?? ''}
                  onChange={(e) => update({ [r]: e.target.value || null })}
                  className={cn(
                    'h-9 w-full min-w-0 rounded-md border border-zinc-300 bg-white px-2 dark:border-zinc-700 dark:bg-zinc-900',
                    focusRing,
                  )}
                />
              </label>
            ))}
          </div>
        )}
      </div>
      <Card>
        {users.error ? (
          <InlineError error={users.error} onRetry={users.reload} />
        ) : users.data && users.data.data.length === 0 ? (
          <EmptyState
            title={filtered ? t('noMatchesTitle') : t('emptyTitle')}
            description={filtered ? t('noMatchesFiltered') : t('emptyDescription')}
          />
        ) : (
          <Table caption={t('title')}>
            <Thead columns={[t('user'), ...shown.map((c) => t(`columnNames.${c}`))]} />
            <tbody aria-busy={users.loading || undefined}>
              {!users.data
                ? Array.from({ length: 5 }, (_, i) => (
                    <tr key={i}>
                      <Td>
                        <span className="flex items-center gap-3">
                          <Skeleton className="size-8 rounded-full" />
                          <Skeleton className="h-4 w-32" />
                        </span>
                      </Td>
                      {shown.map((c) => (
                        <Td key={c}>
                          <Skeleton className="h-4 w-24" />
                        </Td>
                      ))}
                    </tr>
                  ))
                : users.data.data.map((user) => {
                    const name = displayName(user);
                    const email = primaryEmail(user);
                    return (
                      // The link stretches over the row (after:inset-0): a click anywhere on it opens the user.
                      <Tr key={user.id} className={cn('relative cursor-pointer', users.loading && 'opacity-60')}>
                        <Td>
                          <Link
                            href={pages.user(account.id, instance.id, user.id)}
                            onClick={() => (leaving.current = true)}
                            className={cn('flex items-center gap-3 rounded-md after:absolute after:inset-0', focusRing)}
                          >
                            <span
                              aria-hidden
                              className="grid size-8 shrink-0 place-items-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300"
                            >
                              {initials(name, email)}
                            </span>
                            <span className="flex min-w-0 flex-col">
                              <span className="truncate font-medium text-zinc-900 hover:underline dark:text-zinc-100">
                                {name ?? email ?? user.id}
                              </span>
                              <span className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{user.id}</span>
                            </span>
                            {user.banned && <Badge tone="red">{t('banned')}</Badge>}
                            {user.locked && <Badge tone="amber">{t('locked')}</Badge>}
                          </Link>
                        </Td>
                        {shown.map((c) => (
                          <Td key={c} className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">
                            {cell(user, c)}
                          </Td>
                        ))}
                      </Tr>
                    );
                  })}
            </tbody>
          </Table>
        )}
        <UrlPager
          cursors={cursors}
          page={users.data}
          loading={users.loading}
          onPages={(next) => update({ pages: next.join(',') || null }, true)}
        />
      </Card>
      {creating && (
        <CreateUserDialog
          base={base}
          onClose={() => setCreating(false)}
          onCreated={(id) => router.push(pages.user(account.id, instance.id, id))}
        />
      )}
    </div>
  );
}

/** Previous / Next with the cursor stack in the URL (`pages`), so reload and back keep the page. */
function UrlPager({
  cursors,
  page,
  loading,
  onPages,
}: {
  cursors: string[];
  page: InstanceResponse<'GET /users'> | undefined;
  loading: boolean;
  onPages: (cursors: string[]) => void;
}) {
  const t = useTranslations('common');
  const tPager = useTranslations('console.pager');
  const hasNext = Boolean(page?.has_more && page.next_cursor);
  if (cursors.length === 0 && !hasNext) return null;
  return (
    <nav
      aria-label={tPager('label')}
      className="flex items-center justify-between gap-3 border-t border-zinc-200 px-5 py-3 dark:border-zinc-800"
    >
      <span className="text-sm text-zinc-600 dark:text-zinc-400">{tPager('page', { number: cursors.length + 1 })}</span>
      <div className="flex gap-2">
        <Button variant="secondary" size="sm" disabled={cursors.length === 0 || loading} onClick={() => onPages(cursors.slice(0, -1))}>
          {t('previous')}
        </Button>
        <Button
          variant="secondary"
          size="sm"
          disabled={!hasNext || loading}
          onClick={() => page?.next_cursor && onPages([...cursors, page.next_cursor].slice(-50))}
        >
          {t('next')}
        </Button>
      </div>
    </nav>
  );
}
