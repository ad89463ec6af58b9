'use client';

import { useTranslations } from 'next-intl';
import { useCallback } from 'react';
import { describeFapiError, type FapiErrorInfo } from './errors';

export type FapiErrorMessage = FapiErrorInfo & { message: string };

/** A thrown FAPI (or network) error as translated copy, with the field it concerns. */
export function useFapiError(): (error: unknown) => FapiErrorMessage {
  const t = useTranslations('hosted.errors');
  return useCallback(
    (error: unknown) => {
      const info = describeFapiError(error);
      return { ...info, message: t(info.key as 'generic', info.values as never) };
    },
    [t],
  );
}
