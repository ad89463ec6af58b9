'use client';

import { useTranslations } from 'next-intl';
import { useCallback } from 'react';
import { ApiError, NetworkError } from './api-client';
import { humanizeParam, validationCopy } from './validation-copy';

/**
 * Turns a thrown error into copy for the person in front of the screen: our own catalog
 * for the errors we know (every VALIDATION_FAILED: per field, from meta.param and
 * meta.reason), the server's message (always safe to show) else. The function is stable
 * across renders, so effects may depend on it without running again on every render.
 */
export function useErrorMessage(): (error: unknown) => string {
  const t = useTranslations('common');
  return useCallback(
    (error: unknown) => {
      if (error instanceof NetworkError) return t('errors.network');
      const copy = validationCopy(error);
      if (copy) {
        const segment =
          copy.param
            .split('.')
            .filter((p) => !/^\d+$/.test(p))
            .pop() ?? copy.param;
        const field = t.has(`fields.${segment}`) ? t(`fields.${segment}`) : humanizeParam(copy.param);
        return t(`validation.${copy.key}`, { field, ...copy.values });
      }
      if (error instanceof ApiError) {
        if (error.code === 'RATE_LIMITED') return t('errors.rateLimited', { seconds: error.retryAfter ?? 10 });
        return error.message || t('errors.generic');
      }
      return t('errors.generic');
    },
    [t],
  );
}
