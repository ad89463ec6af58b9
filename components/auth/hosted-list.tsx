'use client';

import { useCallback } from 'react';
import { Alert, CardBody } from '@/components/ui';
import { useInvalidate, useResource } from '@/lib/query/use-resource';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';

/**
 * A FAPI GET (`path` relative to the FAPI, `null`: nothing yet) through the shared cache
 * (lib/query): the answer, its error as copy (`message`), `reload`, `setData`; a write
 * elsewhere refreshes it with `useInvalidate()` on the FAPI path (`fapiPath`). `query`: a
 * module constant; `every`: a poll (see useResource).
 */
export function useFapi<T>(path: string | null, query?: Record<string, string>, options?: { every?: number }) {
  const { call, base } = useHosted();
  const describe = useFapiError();
  const search = query ? new URLSearchParams(query).toString() : '';
  const url = path === null ? null : `${base}${path}${search ? `?${search}` : ''}`;
  const resource = useResource<T>(url, () => call<T>(path!, query ? { query } : undefined), options);
  return { ...resource, message: resource.error === undefined ? null : describe(resource.error).message };
}

/** After a write: refetches the FAPI GETs of `path` and below it on screen (only `path` with `exact`); see `useInvalidate`. */
export function useFapiInvalidate(): (path: string, options?: { exact?: boolean }) => Promise<void> {
  const { base } = useHosted();
  const invalidate = useInvalidate();
  return useCallback((path, options) => invalidate(`${base}${path}`, options), [base, invalidate]);
}

/** After a write that changes the signed-in user: GET /v1/me again for every section showing it. */
export function useMeChanged(): () => void {
  const invalidate = useFapiInvalidate();
  return useCallback(() => void invalidate('/v1/me', { exact: true }), [invalidate]);
}

/** A FAPI list (`{data}`): the items (null until there), the error as copy, `load` to fetch again; `query` a module constant. */
export function useList<T>(path: string, query?: Record<string, string>) {
  const { data, message, reload, setData } = useFapi<{ data: T[] }>(path, query);
  const setList = useCallback(
    (next: T[] | ((list: T[] | null) => T[] | null)) =>
      setData((last) => ({ ...last, data: (typeof next === 'function' ? next(last?.data ?? null) : next) ?? [] })),
    [setData],
  );
  return { list: data?.data ?? null, setList, error: message, load: reload };
}

/** A profile section's load error, in the card. */
export function SectionError({ message }: { message: string }) {
  return (
    <CardBody>
      <Alert tone="error">{message}</Alert>
    </CardBody>
  );
}
