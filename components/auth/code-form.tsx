'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Alert, Button, Field } from '@/components/ui';
import { ApiError } from '@/lib/api-client';
import { RESEND_COOLDOWN_SECONDS } from '@/lib/fapi/flow';
import { CodeInput } from './fields';
import { AuthForm } from './shell';
import { useFormErrors } from './use-form-errors';

const FIELDS = ['code'] as const;

/** Seconds left until `until` (ms), ticking every second. */
function useCountdown(until: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until <= now) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until, now]);
  return Math.max(0, Math.ceil((until - now) / 1000));
}

/**
 * A 6-digit email code: the code field, the submit button and "Resend code" with a
 * countdown (one code per 30 s per address; the server's retry_after wins when it says more).
 * A failure of `onSubmit` shows under the code; `onFailed` hears about every failure
 * (e.g. to leave a finished attempt).
 */
export function CodeForm({
  sentAt,
  onSubmit,
  onResend,
  onFailed,
  submitLabel,
  children,
}: {
  sentAt?: number;
  onSubmit(code: string): Promise<void>;
  onResend?(): Promise<void>;
  onFailed?(restart: boolean): void;
  submitLabel: string;
  children?: ReactNode;
}) {
  const t = useTranslations('hosted.code');
  const te = useTranslations('hosted.errors');
  const { formError, fieldErrors, setFieldErrors, setFormError, show, reset, busy, run } = useFormErrors(FIELDS);
  const [code, setCode] = useState('');
  const [resending, setResending] = useState(false);
  const [resent, setResent] = useState(false);
  const [cooldownUntil, setCooldownUntil] = useState(() => (sentAt ?? 0) + RESEND_COOLDOWN_SECONDS * 1000);
  const secondsLeft = useCountdown(cooldownUntil);

  async function submit(e: FormEvent) {
    e.preventDefault();
    reset();
    setResent(false);
    if (code.length !== 6) {
      setFieldErrors({ code: te('codeFormat') });
      return;
    }
    void run(() => onSubmit(code), { stayBusy: true, onFailed: (info) => onFailed?.(!!info.restart) });
  }

  async function resend() {
    if (!onResend) return;
    reset();
    setResent(false);
    setResending(true);
    try {
      await onResend();
      setCode('');
      setResent(true);
      setCooldownUntil(Date.now() + RESEND_COOLDOWN_SECONDS * 1000);
    } catch (err) {
      if (err instanceof ApiError && err.retryAfter) setCooldownUntil(Date.now() + err.retryAfter * 1000);
      const info = show(err);
      if (info.param) {
        setFieldErrors({});
        setFormError(info.message);
      }
    } finally {
      setResending(false);
    }
  }

  return (
    <AuthForm
      onSubmit={submit}
      error={formError}
      submitLabel={submitLabel}
      busy={busy}
      after={
        onResend && (
          <p className="text-center text-sm text-zinc-600 dark:text-zinc-400">
            {t('notReceived')}{' '}
            <Button
              variant="ghost"
              size="sm"
              onClick={resend}
              loading={resending}
              disabled={secondsLeft > 0}
              className="px-1.5 text-indigo-600 dark:text-indigo-400"
            >
              {secondsLeft > 0 ? t('resendIn', { seconds: secondsLeft }) : t('resend')}
            </Button>
          </p>
        )
      }
    >
      {resent && <Alert tone="success">{t('resent')}</Alert>}
      {children}
      <Field label={t('label')} error={fieldErrors.code}>
        {(p) => <CodeInput {...p} name="code" autoFocus value={code} onChange={setCode} />}
      </Field>
    </AuthForm>
  );
}
