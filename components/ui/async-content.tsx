'use client';

import { useTranslations } from 'next-intl';
import type { ReactNode } from 'react';
import { Alert } from './alert';
import { Button } from './button';

/**
 * What a section shows for data loaded in the browser: `error` (when set), `loading` until
 * `data` is there, `empty` for an empty list (when given), else `children(data)`.
 */
export function AsyncContent<T>({
  data,
  error,
  loading,
  empty,
  children,
}: {
  data: T | null | undefined;
  error?: ReactNode;
  loading: ReactNode;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (error) return <>{error}</>;
  if (data === null || data === undefined) return <>{loading}</>;
  if (empty && Array.isArray(data) && data.length === 0) return <>{empty}</>;
  return <>{children(data)}</>;
}

/** An error Alert with the message and, with `onRetry`, a "Retry" button. */
export function ErrorAlert({ title, message, onRetry }: { title?: ReactNode; message: ReactNode; onRetry?: () => void }) {
  const tCommon = useTranslations('common');
  return (
    <Alert tone="error" title={title}>
      <p>{message}</p>
      {onRetry && (
        <Button variant="secondary" size="sm" className="mt-3" onClick={onRetry}>
          {tCommon('retry')}
        </Button>
      )}
    </Alert>
  );
}
