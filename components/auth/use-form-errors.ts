'use client';

import { useCallback, useState, type FormEvent } from 'react';
import { ApiError } from '@/lib/api-client';
import { useFapiError, type FapiErrorMessage } from '@/lib/fapi/use-fapi-error';
import { errorsByField, fieldOfParam } from '@/lib/form-fields';

/**
 * Where a form shows a failed request: under the field the error names (meta.param) when
 * the form has it (lib/form-fields.ts: the field or one enclosing it), else in the alert at
 * the top of the form.
 */
export function useFormErrors(fields: readonly string[]) {
  const describe = useFapiError();
  const [formError, setFormError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const reset = useCallback(() => {
    setFormError(null);
    setFieldErrors({});
  }, []);
  const show = useCallback(
    (error: unknown): FapiErrorMessage => {
      const info = describe(error);
      if (fieldOfParam(fields, info.param)) {
        // A 422 names each invalid field in its own entry: all are shown at once, the first per field.
        const entries = error instanceof ApiError ? error.all.map(describe) : [info];
        setFormError(null);
        setFieldErrors(Object.fromEntries([...errorsByField(fields, entries, (e) => e.param)].map(([field, e]) => [field, e.message])));
      } else {
        setFieldErrors({});
        setFormError(info.message);
      }
      return info;
    },
    [describe, fields],
  );
  /**
   * Submits: `busy` meanwhile, a failure shown where it belongs (and handed to `onFailed`).
   * `stayBusy`: on success the page moves on, the button keeps loading.
   */
  const run = useCallback(
    async (
      action: () => Promise<void>,
      { stayBusy = false, onFailed }: { stayBusy?: boolean; onFailed?: (info: FapiErrorMessage) => void } = {},
    ) => {
      setBusy(true);
      try {
        await action();
        if (!stayBusy) setBusy(false);
      } catch (error) {
        // Shown first: `onFailed?.(show(error))` would skip show() itself when there is no onFailed.
        const info = show(error);
        onFailed?.(info);
        setBusy(false);
      }
    },
    [show],
  );
  /**
   * A form's onSubmit: the browser's submit prevented and the last errors cleared; then the
   * field errors `check` finds (a record, or false when all is well), else `run(action, options)`.
   */
  const handleSubmit =
    (
      action: () => Promise<void>,
      { check, ...options }: Parameters<typeof run>[1] & { check?: () => Record<string, string> | false } = {},
    ) =>
    (e: FormEvent) => {
      e.preventDefault();
      reset();
      const invalid = check?.();
      if (invalid && Object.keys(invalid).length > 0) setFieldErrors(invalid);
      else void run(action, options);
    };
  return { formError, fieldErrors, setFieldErrors, setFormError, show, reset, busy, run, handleSubmit };
}
