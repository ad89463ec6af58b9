'use client';

import { useCallback } from 'react';
import { Alert, CardBody } from '@/components/ui';
import { useResource } from '@/lib/query/use-resource';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';

/**
 * A FAPI GET (`path` relative to the FAPI, `null`: nothing yet) through the shared cache
 * (lib/query): the answer, its error as copy (`message`), `reload`, `setData`; a write
 * elsewhere refreshes it with `useInvalidate()` on the FAPI path (`fapiPath`). `query`: a
 * module constant.
 */
export function useFapi<T>(path: string | null, query?: Record<string, string>) {
  const { call, base } = useHosted();
  const describe = useFapiError();
  const search = query ? new URLSearchParams(query).toString() : '';
  const url = path === null ? null : `${base}${path}${search ? `?${search}` : ''}`;
  const resource = useResource<T>(url, () => call<T>(path!, query ? { query } : undefined));
  return { ...resource, message: resource.error === undefined ? null : describe(resource.error).message };
}

/** The path of the cache keys of a FAPI path on this page, for `useInvalidate()`. @public (no caller yet) */
export function useFapiPath(): (path: string) => string {
  const { base } = useHosted();
  return useCallback((path: string) => `${base}${path}`, [base]);
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
