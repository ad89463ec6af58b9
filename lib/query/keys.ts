import type { Query, QueryKey } from '@tanstack/react-query';

/**
 * The cache key of a GET: its URL's path segments, then its query string as an object
 * (`/v1/x/users?limit=20` → `['v1', 'x', 'users', {limit: '20'}]`). Keys of the console
 * (`/v1/dashboard/…`) and of the hosted pages (`/fapi/<instance>/v1/…`, `/v1/…` on a
 * custom domain) follow the same rule, so one path prefix names a resource and all below it.
 */
export function keyOf(url: string): QueryKey {
  const [path = '', search = ''] = url.split('?', 2);
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return [...segmentsOf(path), query];
}

const segmentsOf = (path: string) => path.split('/').filter(Boolean);

/**
 * Which cached GETs a write to `path` makes stale: `path` itself (with any query) and every
 * path below it; with `exact`, only `path` itself (with any query).
 */
export function staleAfter(
  path: string,
  { exact = false }: { exact?: boolean } = {},
): { queryKey: QueryKey; predicate?: (query: Query) => boolean } {
  const queryKey = segmentsOf(path.split('?', 1)[0]!);
  return exact ? { queryKey, predicate: (query) => query.queryKey.length === queryKey.length + 1 } : { queryKey };
}
