'use client';

import { useTranslations } from 'next-intl';
import { ApiError, NetworkError } from './api-client';

/**
 * Turns a thrown error into copy for the person in front of the screen: our own
 * catalog for the errors we know, the server's message (always safe to show) else.
 */
export function useErrorMessage(): (error: unknown) => string {
  const t = useTranslations('common.errors');
  return (error) => {
    if (error instanceof NetworkError) return t('network');
    if (error instanceof ApiError) {
      if (error.code === 'RATE_LIMITED') return t('rateLimited', { seconds: error.retryAfter ?? 10 });
      return error.message || t('generic');
    }
    return t('generic');
  };
}
