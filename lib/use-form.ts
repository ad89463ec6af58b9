'use client';

import { useCallback, useState, type FormEvent } from 'react';
import { ApiError } from './api-client';
import { errorsByField, fieldOfParam } from './form-fields';

/** A failure as a form shows it: its copy, and the parameter it is about (meta.param). */
export interface DescribedError {
  message: string;
  param?: string;
}

type RunOptions<D> = {
  /** On success the page moves on: the button keeps loading. */
  stayBusy?: boolean;
  /** Handed the failure once it is shown. */
  onFailed?: (described: D) => void;
};

/**
 * The state of a form, the console's and the hosted pages' alike (`useFormError`,
 * `useFormErrors` give it their surface's copy): `busy` while a submission runs, and a failed
 * request shown where it belongs: under the field it names (meta.param) when the form has it
 * (lib/form-fields.ts: the field or one enclosing it; a 422's entries each under its own
 * field), else as the form's error (the alert at the top). A form's own checks set field
 * errors directly (`handleSubmit`'s `check`, `setFieldErrors`).
 */
export function useForm<D extends DescribedError>(fields: readonly string[], describe: (error: unknown) => D) {
  const [error, setErrorState] = useState<unknown>();
  const [ownFieldErrors, setOwnFieldErrors] = useState<Record<string, string>>({});
  const [ownFormError, setOwnFormError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const described = error === undefined ? undefined : describe(error);
  const field = described && fieldOfParam(fields, described.param);
  const entries = error instanceof ApiError ? error.all : [error];
  const fieldErrors: Record<string, string> = field
    ? Object.fromEntries([...errorsByField(fields, entries, (e) => describe(e).param)].map(([f, e]) => [f, describe(e).message]))
    : ownFieldErrors;
  const formError = described && !field ? described.message : ownFormError;

  /** Shows a failure where it belongs (the last one's place cleared) and answers its copy. */
  const show = useCallback(
    (failure: unknown): D => {
      setOwnFieldErrors({});
      setOwnFormError(undefined);
      setErrorState(failure);
      return describe(failure);
    },
    [describe],
  );
  /** Clears every error shown. */
  const reset = useCallback(() => {
    setErrorState(undefined);
    setOwnFieldErrors({});
    setOwnFormError(undefined);
  }, []);
  const setFieldErrors = useCallback((errors: Record<string, string>) => {
    setErrorState(undefined);
    setOwnFormError(undefined);
    setOwnFieldErrors(errors);
  }, []);
  const setFormError = useCallback((message: string | null | undefined) => {
    setErrorState(undefined);
    setOwnFieldErrors({});
    setOwnFormError(message ?? undefined);
  }, []);

  /** Submits: the last errors cleared and `busy` meanwhile; a failure shown where it belongs (then handed to `onFailed`). */
  const run = useCallback(
    async (action: () => Promise<void>, { stayBusy = false, onFailed }: RunOptions<D> = {}) => {
      setBusy(true);
      reset();
      try {
        await action();
        if (!stayBusy) setBusy(false);
      } catch (failure) {
        const info = show(failure);
        onFailed?.(info);
        setBusy(false);
      }
    },
    [reset, show],
  );

  /**
   * A form's onSubmit: the browser's submit prevented; then the field errors `check` finds (a
   * record, or false when all is well), else `run(action, options)`.
   */
  const handleSubmit =
    (action: () => Promise<void>, { check, ...options }: RunOptions<D> & { check?: () => Record<string, string> | false } = {}) =>
    (e: FormEvent) => {
      e.preventDefault();
      const invalid = check?.();
      if (invalid && Object.keys(invalid).length > 0) setFieldErrors(invalid);
      else void run(action, options);
    };

  return {
    /** True while `run` waits for the request. */
    busy,
    run,
    handleSubmit,
    /** The last failure as thrown (undefined when none is shown). */
    error,
    /** Shows a failure (undefined clears it): `show` without its answer. */
    setError: (failure: unknown) => (failure === undefined ? reset() : void show(failure)),
    show,
    reset,
    clear: reset,
    /** The message under each field that has one. */
    fieldErrors,
    /** The message under a field, when there is one. */
    fieldError: (name: string): string | undefined => fieldErrors[name],
    setFieldErrors,
    /** The message for the form's alert (an error about no field of this form). */
    formError,
    setFormError,
  };
}
