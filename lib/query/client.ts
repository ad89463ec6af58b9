import { QueryClient } from '@tanstack/react-query';

/**
 * The cache behind the console and the hosted pages. Components on screen asking for the
 * same GET share one request and one answer; a write refetches those it changes
 * (`useInvalidate`); a component mounting fetches afresh (`staleTime: 0`; useResource shows
 * it no answer older than itself). Nothing is fetched on its own: no polling, no refetch on
 * focus or reconnect (a console page sitting idle sends nothing, e2e/console-idle.spec.ts),
 * no silent retries (a failure is shown at once, with its retry button). `gcTime` stays the
 * library's: at 0 an answer can be collected before its component subscribes, which leaves
 * that component loading forever on a slow machine.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false, refetchInterval: false, staleTime: 0 },
      mutations: { retry: false },
    },
  });
}
