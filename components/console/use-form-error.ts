'use client';

import { useCallback } from 'react';
import { ApiError } from '@/lib/api-client';
import { useForm } from '@/lib/use-form';
import { useErrorMessage } from '@/lib/use-error-message';

/** A console form's state (lib/use-form.ts), its failures in the console's copy. */
export function useFormError(fields: readonly string[]) {
  const errorMessage = useErrorMessage();
  const describe = useCallback(
    (error: unknown) => ({ message: errorMessage(error), param: error instanceof ApiError ? error.param : undefined }),
    [errorMessage],
  );
  return useForm(fields, describe);
}
