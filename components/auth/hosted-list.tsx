'use client';

import { useCallback, useEffect, useState } from 'react';
import { Alert, CardBody } from '@/components/ui';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';

/** A FAPI list (`{data}`) loaded on mount: the items (null until there), the error as copy, `load` to fetch again; `query` a module constant. */
export function useList<T>(path: string, query?: Record<string, string>) {
  const { call } = useHosted();
  const describe = useFapiError();
  const [list, setList] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    call<{ data: T[] }>(path, query ? { query } : undefined).then(
      (r) => setList(r.data),
      (e: unknown) => setError(describe(e).message),
    );
  }, [call, describe, path, query]);
  useEffect(load, [load]);
  return { list, setList, error, load };
}

/** A profile section's load error, in the card. */
export function SectionError({ message }: { message: string }) {
  return (
    <CardBody>
      <Alert tone="error">{message}</Alert>
    </CardBody>
  );
}
