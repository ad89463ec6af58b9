'use client';

import { useTranslations } from 'next-intl';
import { useCallback } from 'react';
import { ApiError, NetworkError } from './api-client';

/**
 * Turns a thrown error into copy for the person in front of the screen: our own
 * catalog for the errors we know, the server's message (always safe to show) else.
 * The function is stable across renders (effects may depend on it without re-running).
 */
export function useErrorMessage(): (error: unknown) => string {
  const t = useTranslations('common.errors');
  return useCallback(
    (error: unknown) => {
      if (error instanceof NetworkError) return t('network');
      if (error instanceof ApiError) {
        if (error.code === 'RATE_LIMITED') return t('rateLimited', { seconds: error.retryAfter ?? 10 });
        return error.message || t('generic');
      }
      return t('generic');
    },
    [t],
  );
}
