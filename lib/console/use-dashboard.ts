'use client';

import { useResource, type Resource } from '../query/use-resource';
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
function isSessionPending(error: unknown): boolean {
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

export type DashboardState<T> = Resource<T>;

/** A dashboard GET: a 401 sends the browser to /sign-in, a pending session to the MFA setup (the page keeps loading meanwhile). */
async function dashboardGet<T>(path: string): Promise<T> {
  try {
    return (await requestJson<T>(path)).body;
  } catch (error) {
    if (redirectWhenPending(error)) return new Promise<T>(() => {});
    redirectWhenSignedOut(error);
    throw error;
  }
}

/**
 * GETs a dashboard API path (`null`: nothing yet) through the shared cache (lib/query): a
 * write elsewhere on the page refreshes it with `useInvalidate()`. A 401 sends the browser
 * to /sign-in, a pending session (MFA to set up) to the platform's hosted
 * /sign-in/setup-mfa; other errors are returned for the page to show where they happen.
 */
export function useDashboard<T>(path: string | null): DashboardState<T> {
  return useResource<T>(path, () => dashboardGet<T>(path!));
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
