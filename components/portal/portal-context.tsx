'use client';

import { useTranslations } from 'next-intl';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, requestJson } from '@/lib/api-client';
import { useHosted } from '@/components/auth/hosted-context';
import { useInvalidate, useResource } from '@/lib/query/use-resource';

/** The portal session as GET /v1/portal/session answers it. */
export type PortalSession = {
  object: 'portal_session';
  id: string;
  intent: 'sso' | 'dsync' | 'domain_verification' | 'audit_logs';
  organization: { id: string; name: string; image_url: string | null };
  return_url: string | null;
  success_url: string | null;
  expires_at: number;
};

export type PortalCall = <T>(path: string, init?: { method?: string; json?: unknown }) => Promise<T>;

/** The portal's API on the page's own origin (`{fapi_url}/v1/portal…`), with the `__portal` cookie. */
export function usePortalCall(): { call: PortalCall; base: string } {
  const { base } = useHosted();
  const call = useCallback<PortalCall>(
    async <T,>(path: string, init: { method?: string; json?: unknown } = {}) =>
      (
        await requestJson<T>(`${base}/v1/portal${path}`, {
          method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
          json: init.json,
          cache: 'no-store',
        })
      ).body,
    [base],
  );
  return { call, base };
}

/**
 * A GET of the portal's API through the shared cache (lib/query): every section showing `path`
 * follows a write's invalidation. `every`: the directory's live status, refreshed while shown.
 */
export function usePortalResource<T>(path: string, options?: { every?: number }) {
  const { call, base } = usePortalCall();
  return useResource<T>(`${base}/v1/portal${path}`, () => call<T>(path), options);
}

/** After a portal write: refetches the portal's GETs at `path` and below it, wherever they are on the page. */
export function usePortalInvalidate(): (path: string) => Promise<void> {
  const { base } = usePortalCall();
  const invalidate = useInvalidate();
  return useCallback((path: string) => invalidate(`${base}/v1/portal${path}`), [base, invalidate]);
}

/** The session of this browser, or the reason there is none. */
export function usePortalSession() {
  const { call } = usePortalCall();
  const [session, setSession] = useState<PortalSession | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    call<PortalSession>('/session').then(setSession, setError);
  }, [call]);
  return { session, error };
}

/** Translated copy of a portal API error: its reason when the portal names it, else the server's message, else a generic line. */
export function usePortalError() {
  const t = useTranslations('portal.errors');
  return useCallback(
    (e: unknown): string => {
      if (e instanceof ApiError) {
        const reason = typeof e.meta.reason === 'string' ? e.meta.reason : null;
        if (reason && t.has(reason as 'generic')) return t(reason as 'generic');
        if (e.message) return e.message;
      }
      return t('generic');
    },
    [t],
  );
}

export const reasonOf = (e: unknown): string | null => (e instanceof ApiError && typeof e.meta.reason === 'string' ? e.meta.reason : null);

/** Formats a timestamp in the page's language. */
export function useWhen() {
  const { env } = useHosted();
  const locale = env?.localization.locale ?? 'en';
  return useMemo(() => {
    const f = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
    return (ms: number) => f.format(new Date(ms));
  }, [locale]);
}
