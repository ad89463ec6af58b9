// @vitest-environment happy-dom
import { act, cleanup, renderHook } from '@testing-library/react';
import type { FormEvent } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import { useForm } from './use-form';

/** A surface's copy: the code as the message, the parameter as the server named it. */
const describeError = (error: unknown) =>
  error instanceof ApiError ? { message: `copy of ${error.code}`, param: error.param } : { message: 'copy of something else' };
const FIELDS = ['email_address', 'password_policy'] as const;
const invalid = (param: string, ...others: ApiError[]) => new ApiError(422, `invalid ${param}`, 'Invalid.', { param }, undefined, others);
const submitEvent = () => ({ preventDefault: () => undefined }) as unknown as FormEvent;

afterEach(cleanup);

describe('useForm: one form state for the console and the hosted pages', () => {
  it('shows each field its own entry of a 422 and nothing in the form alert', async () => {
    const { result } = renderHook(() => useForm(FIELDS, describeError));
    await act(() => result.current.run(() => Promise.reject(invalid('email_address', invalid('password_policy.min_length')))));
    expect(result.current.fieldErrors).toEqual({
      email_address: 'copy of invalid email_address',
      password_policy: 'copy of invalid password_policy.min_length',
    });
    expect(result.current.fieldError('password_policy')).toBe('copy of invalid password_policy.min_length');
    expect(result.current.formError).toBeUndefined();
    expect(result.current.busy).toBe(false);
  });

  it('puts an error about no field of the form in the form alert, and hands it to onFailed', async () => {
    const { result } = renderHook(() => useForm(FIELDS, describeError));
    let failed: string | undefined;
    await act(() => result.current.run(() => Promise.reject(invalid('passwordless')), { onFailed: (d) => (failed = d.message) }));
    expect(result.current.formError).toBe('copy of invalid passwordless');
    expect(result.current.fieldErrors).toEqual({});
    expect(failed).toBe('copy of invalid passwordless');
  });

  it('clears the last errors when a submission starts; stayBusy keeps the button loading after a success', async () => {
    const { result } = renderHook(() => useForm(FIELDS, describeError));
    await act(() => result.current.run(() => Promise.reject(new Error('down'))));
    expect(result.current.formError).toBe('copy of something else');
    await act(() => result.current.run(() => Promise.resolve(), { stayBusy: true }));
    expect(result.current.formError).toBeUndefined();
    expect(result.current.busy).toBe(true);
  });

  it("handleSubmit shows the form's own check instead of sending", async () => {
    const { result } = renderHook(() => useForm(FIELDS, describeError));
    let sent = false;
    await act(async () =>
      result.current.handleSubmit(
        async () => {
          sent = true;
        },
        { check: () => ({ email_address: 'Type an address.' }) },
      )(submitEvent()),
    );
    expect(sent).toBe(false);
    expect(result.current.fieldErrors).toEqual({ email_address: 'Type an address.' });
  });
});
