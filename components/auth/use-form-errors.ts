'use client';

import { useCallback, useState } from 'react';
import { useFapiError, type FapiErrorMessage } from '@/lib/fapi/use-fapi-error';

/**
 * Where a form shows a failed request: under the field the error names (meta.param) when
 * the form has it, else in the alert at the top of the form.
 */
export function useFormErrors(fields: readonly string[]) {
  const describe = useFapiError();
  const [formError, setFormError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const reset = useCallback(() => {
    setFormError(null);
    setFieldErrors({});
  }, []);
  const show = useCallback(
    (error: unknown): FapiErrorMessage => {
      const info = describe(error);
      if (info.param && fields.includes(info.param)) {
        setFormError(null);
        setFieldErrors({ [info.param]: info.message });
      } else {
        setFieldErrors({});
        setFormError(info.message);
      }
      return info;
    },
    [describe, fields],
  );
  return { formError, fieldErrors, setFieldErrors, setFormError, show, reset };
}
