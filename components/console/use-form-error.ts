'use client';

import { useState, type FormEvent } from 'react';
import { ApiError } from '@/lib/api-client';
import { errorsByField, fieldOfParam } from '@/lib/form-fields';
import { useErrorMessage } from '@/lib/use-error-message';

/**
 * Error state of a form: an API error naming a field (meta.param) is shown under that
 * field when the form has it (lib/form-fields.ts: the field or one enclosing it); anything
 * else in the Alert at the top.
 */
export function useFormError(fields: readonly string[]) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errorMessage = useErrorMessage();
  const all = error instanceof ApiError ? error.all : [];
  const field = fieldOfParam(fields, all[0]?.param);
  // A 422 names each invalid field in its own entry: every field of this form shows its own.
  const byField = field ? errorsByField(fields, all, (e) => e.param) : new Map<string, ApiError>();
  /**
   * Submits: the previous error cleared and `busy` meanwhile; a failure shown where it
   * belongs. `stayBusy`: on success the page navigates away, the button keeps loading.
   */
  async function run(action: () => Promise<void>, { stayBusy = false }: { stayBusy?: boolean } = {}) {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      if (!stayBusy) setBusy(false);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }
  return {
    error,
    setError,
    clear: () => setError(undefined),
    /** True while `run` waits for the request. */
    busy,
    run,
    /** A form's onSubmit: the browser's own submit prevented, then `run(action)`. */
    handleSubmit: (action: () => Promise<void>, options?: { stayBusy?: boolean }) => (e: FormEvent) => {
      e.preventDefault();
      void run(action, options);
    },
    /** The message under a field, when the error is about it. */
    fieldError: (name: string) => (byField.has(name) ? errorMessage(byField.get(name)) : undefined),
    /** The message for the form-level Alert (errors about no field of this form). */
    formError: error !== undefined && !field ? errorMessage(error) : undefined,
  };
}
