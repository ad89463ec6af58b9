'use client';

import { useCallback, useEffect, useState } from 'react';
import { ApiError, requestJson } from '../api-client';
import { api, query, signInHref } from './paths';
import type { ConsoleInfo } from './types';

/** Sends the browser to the console sign-in when the dashboard API says nobody is signed in. */
function redirectWhenSignedOut(error: unknown): void {
  if (error instanceof ApiError && error.status === 401 && typeof window !== 'undefined') {
    window.location.assign(signInHref());
  }
}

/** The operator's session waits for a task (MFA to set up): 403 with meta.reason `session_pending`. */
export function isSessionPending(error: unknown): boolean {
  return error instanceof ApiError && error.status === 403 && errorReason(error) === 'session_pending';
}

let finishingSession = false;

/**
 * A pending session: sends the browser to the platform instance's hosted MFA setup, which
 * comes back to this console page once done (once, however many calls were refused). When
 * the platform's FAPI URL cannot be read, the console sign-in takes over (it leads there too).
 */
function redirectWhenPending(error: unknown): boolean {
  if (!isSessionPending(error) || typeof window === 'undefined') return false;
  if (finishingSession) return true;
  finishingSession = true;
  const back = window.location.href;
  requestJson<ConsoleInfo>(api.console).then(
    ({ body }) => window.location.assign(`${body.fapi_url}/sign-in/setup-mfa${query({ redirect_url: back })}`),
    () => window.location.assign(signInHref()),
  );
  return true;
}

export type DashboardState<T> = {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Fetches again, keeping the current data on screen meanwhile. */
  reload: () => void;
  /** Replaces the data locally (e.g. with a write's answer). */
  setData: (data: T) => void;
};

/**
 * GETs a dashboard API path (`null`: nothing yet) and keeps its answer. A 401 sends the
 * browser to /sign-in, a pending session (MFA to set up) to the platform's hosted
 * /sign-in/setup-mfa; other errors are returned for the page to show where they happen.
 */
export function useDashboard<T>(path: string | null): DashboardState<T> {
  const [state, setState] = useState<{ path: string | null; data: T | undefined; error: unknown; loading: boolean }>({
    path,
    data: undefined,
    error: undefined,
    loading: path !== null,
  });
  const [version, setVersion] = useState(0);

  useEffect(() => {
    if (path === null) return;
    let cancelled = false;
    setState((s) => (s.path === path ? { ...s, loading: true } : { path, data: undefined, error: undefined, loading: true }));
    requestJson<T>(path).then(
      ({ body }) => {
        if (!cancelled) setState({ path, data: body, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (cancelled) return;
        // A pending session leaves for the MFA setup: the page keeps its loading state meanwhile.
        if (redirectWhenPending(error)) return;
        redirectWhenSignedOut(error);
        setState({ path, data: undefined, error, loading: false });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [path, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const setData = useCallback((data: T) => setState((s) => ({ ...s, data, error: undefined, loading: false })), []);
  const current = state.path === path;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: path !== null && (!current || state.loading),
    reload,
    setData,
  };
}

/** A dashboard write (POST/PATCH/DELETE) with a JSON body; throws ApiError/NetworkError, redirects on 401 and on a pending session. */
export async function mutate<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, json?: unknown): Promise<T> {
  try {
    const { body } = await requestJson<T>(path, { method, json: json ?? (method === 'DELETE' ? undefined : {}) });
    return body;
  } catch (error) {
    redirectWhenPending(error);
    redirectWhenSignedOut(error);
    throw error;
  }
}

/** The field an API error is about (meta.param), for showing it under that field. */
export function errorParam(error: unknown): string | undefined {
  return error instanceof ApiError ? error.param : undefined;
}

/** meta.reason of an API error. */
export function errorReason(error: unknown): string | undefined {
  return error instanceof ApiError && typeof error.meta.reason === 'string' ? error.meta.reason : undefined;
}
