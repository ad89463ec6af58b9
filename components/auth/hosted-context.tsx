'use client';

import { useRouter, useSearchParams } from 'next/navigation';
import { NextIntlClientProvider, useLocale } from 'next-intl';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { LOCALE_COOKIE } from '@/i18n/locales';
import { mergeHostedMessages } from '@/i18n/merge';
import { fapiCaller, type FapiCall } from '@/lib/fapi/api';
import type { Client, ClientSession, Environment } from '@/lib/fapi/types';
import type { FapiResponse } from '@/lib/generated/fapi';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useInvalidate, useResource } from '@/lib/query/use-resource';
import { CATALOGS } from '@/messages';

/**
 * What every hosted page shares: the instance's environment (GET /v1/environment, which
 * also says whether `redirect_url` is allowed), this browser's client (GET /v1/client),
 * the FAPI caller, and the parameters carried from page to page (`redirect_url`, `locale`).
 */
type HostedValue = {
  instanceId: string;
  /** The path the hosted pages and the FAPI live under ('' on a custom domain, else `/fapi/<instance_id>`). */
  base: string;
  env: Environment | null;
  client: Client | null;
  /** Set when the environment or the client could not be loaded. */
  loadError: unknown;
  retryLoad(): void;
  setClient(client: Client): void;
  call: FapiCall;
  redirectUrl: string | null;
  locale: string | null;
  /** A hosted page's URL with `redirect_url` and `locale` carried along. */
  href(path: string): string;
  /** After sign-in or sign-up: the session's tasks first (MFA setup), then the allowed redirect_url or the profile. */
  afterAuth(client: Client, sessionId: string | null): void;
  /** Where a finished flow goes: the redirect_url when the server allowed it, else the profile. */
  goToDestination(): void;
};

const HostedContext = createContext<HostedValue | null>(null);

export function useHosted(): HostedValue {
  const value = useContext(HostedContext);
  if (!value) throw new Error('useHosted outside HostedProvider');
  return value;
}

/**
 * Signs this browser's active session out, then hands `then` the new client: `busy` meanwhile
 * (kept on success with `stayBusy`, when `then` leaves the page), the failure as copy in `error`.
 */
export function useEndSession(then: (client: Client) => void, { stayBusy = false } = {}) {
  const { call, client } = useHosted();
  const describe = useFapiError();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function endSession() {
    const sessionId = client?.session?.id;
    if (!sessionId) return;
    setBusy(true);
    setError(null);
    try {
      then(
        (await call<FapiResponse<'POST /v1/client/sessions/{id}/end'>>(`/v1/client/sessions/${sessionId}/end`, { method: 'POST' })).client,
      );
      if (!stayBusy) setBusy(false);
    } catch (e) {
      setError(describe(e).message);
      setBusy(false);
    }
  }
  return { busy, error, endSession };
}

/** The language the visitor picked explicitly on an earlier page (LanguagePicker's cookie), if any. */
function rememberedLocale(): string | undefined {
  if (typeof document === 'undefined') return undefined;
  const prefix = `${LOCALE_COOKIE}=`;
  const found = document.cookie.split('; ').find((c) => c.startsWith(prefix));
  return found ? decodeURIComponent(found.slice(prefix.length)) : undefined;
}

/**
 * The messages of the hosted pages in the environment's language: that locale's catalog
 * with the instance's overrides of `hosted` copy merged in.
 */
function hostedMessages(env: Environment) {
  const { locale, overrides } = env.localization;
  const catalog = CATALOGS[locale];
  return { ...catalog, hosted: mergeHostedMessages(catalog.hosted, overrides) };
}

export const needsMfaSetup = (s: ClientSession | null | undefined) =>
  !!s && s.status === 'pending' && s.tasks.some((t) => t.key === 'setup_mfa');

/** `base`: the path the hosted pages and the FAPI live under ('' on the instance's custom domain, else `/fapi/<instance_id>`). */
export function HostedProvider({ instanceId, base, children }: { instanceId: string; base: string; children: ReactNode }) {
  const router = useRouter();
  const params = useSearchParams();
  const redirectUrl = params.get('redirect_url');
  const locale = params.get('locale');
  // The language: ?locale= (or the one picked earlier), else the signed-in user's, the
  // browser's Accept-Language, the instance default, English — decided by the server.
  const envQuery = useMemo(() => ({ redirect_url: redirectUrl ?? undefined, locale: locale ?? rememberedLocale() }), [redirectUrl, locale]);
  const envSearch = new URLSearchParams(Object.entries(envQuery).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  const environment = useResource<Environment>(`${base}/v1/environment${envSearch ? `?${envSearch}` : ''}`, () =>
    fapiCaller(base)<Environment>('/v1/environment', { query: envQuery }),
  );
  // The last environment loaded stays while another language's loads (the page keeps its form).
  const [shownEnv, setShownEnv] = useState<Environment | null>(null);
  if (environment.data && environment.data !== shownEnv) setShownEnv(environment.data);
  const publishableKey = shownEnv?.instance.publishable_key;
  const loadedClient = useResource<Client>(publishableKey ? `${base}/v1/client` : null, () =>
    fapiCaller(base, publishableKey)<Client>('/v1/client'),
  );
  // Both or neither: a page never sees the environment without this browser's client.
  const ready = shownEnv !== null && loadedClient.data !== undefined;
  const env = ready ? shownEnv : null;
  const client = ready ? loadedClient.data! : null;
  const loadError = environment.error ?? loadedClient.error ?? null;
  const setClient = loadedClient.setData;
  const invalidate = useInvalidate();

  // Until the environment is loaded, the request's locale (proxy.ts) and the built-in
  // copy; then the environment's language and the operator's overrides. The pages show
  // skeletons, not copy, while loading.
  const requestLocale = useLocale();
  const hostedLocale = env?.localization.locale ?? requestLocale;
  const messages = useMemo(() => (env ? hostedMessages(env) : undefined), [env]);
  useEffect(() => {
    document.documentElement.lang = hostedLocale;
  }, [hostedLocale]);

  const call = useMemo(() => fapiCaller(base, env?.instance.publishable_key), [base, env]);

  const href = useCallback(
    (path: string) => {
      const search = new URLSearchParams();
      if (redirectUrl) search.set('redirect_url', redirectUrl);
      if (locale) search.set('locale', locale);
      const qs = search.toString();
      return `${base}${path}${qs ? `?${qs}` : ''}`;
    },
    [base, redirectUrl, locale],
  );

  const goToDestination = useCallback(() => {
    // Only a URL the server said is allowed; anything else goes to the profile.
    if (env?.redirect?.allowed && env.redirect.url === redirectUrl) window.location.assign(env.redirect.url);
    else router.push(href('/profile'));
  }, [env, redirectUrl, router, href]);

  const afterAuth = useCallback(
    (next: Client, sessionId: string | null) => {
      setClient(next);
      const session = next.sessions.find((s) => s.id === sessionId) ?? next.session;
      if (needsMfaSetup(session)) router.push(href('/sign-in/setup-mfa'));
      else goToDestination();
    },
    [router, href, goToDestination],
  );

  const value = useMemo<HostedValue>(
    () => ({
      instanceId,
      base,
      env,
      client,
      loadError,
      retryLoad: () => {
        void invalidate(`${base}/v1/environment`);
        void invalidate(`${base}/v1/client`, { exact: true });
      },
      setClient,
      call,
      redirectUrl,
      locale,
      href,
      afterAuth,
      goToDestination,
    }),
    [instanceId, base, env, client, loadError, setClient, invalidate, call, redirectUrl, locale, href, afterAuth, goToDestination],
  );
  return (
    <HostedContext.Provider value={value}>
      <NextIntlClientProvider locale={hostedLocale} messages={messages}>
        {children}
      </NextIntlClientProvider>
    </HostedContext.Provider>
  );
}

/** The hosted pages below it with another FAPI caller (the profile's reverification wraps it). */
export function HostedOverride({ call, children }: { call: FapiCall; children: ReactNode }) {
  const outer = useHosted();
  const value = useMemo(() => ({ ...outer, call }), [outer, call]);
  return <HostedContext.Provider value={value}>{children}</HostedContext.Provider>;
}

/** The name end users see: the branding's application name (the instance's name when unset). */
export const appName = (env: Environment) => env.branding?.application_name ?? env.instance.name;
