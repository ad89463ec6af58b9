'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { keyOf, staleAfter } from './keys';

export type Resource<T> = {
  data: T | undefined;
  error: unknown;
  /** True while a fetch runs (the first one, or a reload with the last answer still shown). */
  loading: boolean;
  /** Fetches again, keeping the current data on screen meanwhile. */
  reload: () => void;
  /** Replaces the cached answer (e.g. with a write's answer, or updated from the last one), for every component showing it. */
  setData: (data: T | ((last: T | undefined) => T | undefined)) => void;
};

/**
 * A GET of `url` (`null`: nothing to fetch yet) through the shared cache: components asking
 * for the same URL share one request and one answer. `fetcher` does the request (the
 * surface's credentials and error handling); the URL is the cache key (lib/query/keys.ts).
 * A component shows no answer (nor error) from before it asked for `url`: one mounting
 * later, a page opened again or a list going back a page shows its loading state until its
 * own fetch is back, never an older answer first (a form would start from it). `every`: a
 * poll (milliseconds), for a page waiting on something that happens elsewhere (an emailed
 * link opened in another tab, the admin portal's live directory status); nothing else polls.
 */
export function useResource<T>(url: string | null, fetcher: () => Promise<T>, { every }: { every?: number } = {}): Resource<T> {
  const client = useQueryClient();
  const queryKey = useMemo(() => keyOf(url ?? ''), [url]);
  // When this component started showing `url`: answers from before are not shown.
  const [since, setSince] = useState(() => ({ url, at: Date.now() }));
  if (since.url !== url) setSince({ url, at: Date.now() });
  const query = useQuery({
    queryKey,
    queryFn: fetcher,
    enabled: url !== null,
    refetchInterval: every ?? false,
    refetchIntervalInBackground: every !== undefined,
  });
  const fresh = (updatedAt: number) => url !== null && since.url === url && updatedAt >= since.at;
  const reload = useCallback(() => void client.refetchQueries({ queryKey, exact: true }), [client, queryKey]);
  const setData = useCallback(
    (data: T | ((last: T | undefined) => T | undefined)) => void client.setQueryData<T>(queryKey, data),
    [client, queryKey],
  );
  return {
    data: fresh(query.dataUpdatedAt) ? query.data : undefined,
    error: fresh(query.errorUpdatedAt) ? (query.error ?? undefined) : undefined,
    loading: url !== null && query.isFetching,
    reload,
    setData,
  };
}

/**
 * After a write: marks the cached GETs of `path` and of every path below it stale (only
 * `path` itself with `exact`); those on screen are fetched again, the promise resolving when
 * they are back.
 */
export function useInvalidate(): (path: string, options?: { exact?: boolean }) => Promise<void> {
  const client = useQueryClient();
  return useCallback((path, options) => client.invalidateQueries(staleAfter(path, options)), [client]);
}
