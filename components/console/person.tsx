'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { useMemo } from 'react';
import { api, pages, query } from '@/lib/console/paths';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import type { InstanceResponse, Person } from '@/lib/console/types';

export type People = ReadonlyMap<string, Person>;

/** Names the ids and actor refs a page shows (GET …/people), in one request per set of refs. */
export function usePeople(refs: ReadonlyArray<string | null | undefined>): People {
  const { account } = useConsole();
  const instance = useInstance();
  const key = [...new Set(refs.filter((r): r is string => !!r))].sort().join(',');
  const state = useDashboard<InstanceResponse<'GET /people'>>(
    key ? `${api.instance(account.id, instance.id)}/people${query({ refs: key })}` : null,
  );
  return useMemo(() => new Map((state.data?.data ?? []).map((p) => [p.ref, p])), [state.data]);
}

/**
 * An id or actor ref as the person (or organization, or key) it names: the name and email,
 * linked to their page; the raw ref on hover. Unnamed refs (the system, the CLI, something
 * deleted) show as they are.
 */
export function PersonRef({ value, people }: { value: string | null; people: People }) {
  const t = useTranslations('console.people');
  const { account } = useConsole();
  const instance = useInstance();
  if (!value) return <span className="text-zinc-500 dark:text-zinc-400">—</span>;
  const p = people.get(value);
  if (!p) {
    return (
      <span className="block truncate font-mono text-xs" title={value}>
        {value}
      </span>
    );
  }
  const label = p.name ?? p.email ?? p.id;
  const userId = p.kind === 'user' ? p.id : p.kind === 'session' ? p.user_id : null;
  const href = userId
    ? pages.user(account.id, instance.id, userId)
    : p.kind === 'organization'
      ? pages.instance(account.id, instance.id, `organizations/${encodeURIComponent(p.id)}`)
      : p.kind === 'secret_key'
        ? pages.instance(account.id, instance.id, 'api-keys')
        : p.kind === 'initial_access_token'
          ? pages.instance(account.id, instance.id, 'oauth-applications')
          : null;
  const body = (
    <>
      <span className="block truncate font-medium">
        {label}
        {p.kind !== 'user' && <span className="ml-1 text-xs font-normal text-zinc-500 dark:text-zinc-400">({t(`kinds.${p.kind}`)})</span>}
      </span>
      {p.email && p.name && <span className="block truncate text-xs text-zinc-600 dark:text-zinc-400">{p.email}</span>}
    </>
  );
  return href ? (
    <Link href={href} title={value} className="block min-w-0 text-sm hover:underline">
      {body}
    </Link>
  ) : (
    <span title={value} className="block min-w-0 text-sm">
      {body}
    </span>
  );
}

/** A ref's name (else email) for inline text, or the ref itself when nothing names it. */
export function personLabel(people: People, ref: string): string {
  const p = people.get(ref);
  return p?.name ?? p?.email ?? ref;
}
