'use client';

import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { useTranslations } from 'next-intl';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Alert, Button, Field, FormDialog } from '@/components/ui';
import { ApiError } from '@/lib/api-client';
import type { FapiCall } from '@/lib/fapi/api';
import type { FapiResponse } from '@/lib/generated/fapi';
import { CodeInput, PasswordInput } from './fields';
import { HostedOverride, useHosted } from './hosted-context';
import { useFormErrors } from './use-form-errors';

/**
 * Reverification on the hosted profile: a change the server guards (403
 * REVERIFICATION_REQUIRED: deleting the account, adding or removing an identifier or a factor,
 * new backup codes, a password change by code) opens a dialog in place that verifies the session
 * again with what the user has (password, emailed code, TOTP, backup code, passkey), then the
 * change is sent again and completes. Closing the dialog fails the change with the 403.
 */
type Verification = FapiResponse<'POST /v1/client/sessions/{id}/verify'>;
type Strategy = 'password' | 'email_code' | 'totp' | 'backup_code' | 'passkey';
type Pending = { resolve(): void; reject(): void };

const isReverificationRequired = (e: unknown) => e instanceof ApiError && e.code === 'REVERIFICATION_REQUIRED';

/** Wraps the hosted pages' FAPI caller below it: a guarded change asks for reverification, then is sent again. */
export function ReverificationBoundary({ children }: { children: ReactNode }) {
  const { call } = useHosted();
  const [pending, setPending] = useState<Pending | null>(null);
  const asking = useRef<Promise<void> | null>(null);

  const ask = useCallback(() => {
    // One dialog for changes that ask at once (a second one waits on the first).
    asking.current ??= new Promise<void>((resolve, reject) => setPending({ resolve, reject })).finally(() => {
      asking.current = null;
      setPending(null);
    });
    return asking.current;
  }, []);

  const guarded = useCallback<FapiCall>(
    async (path, init) => {
      try {
        return await call(path, init);
      } catch (e) {
        if (!isReverificationRequired(e)) throw e;
        await ask().catch(() => {
          throw e;
        });
        return call(path, init);
      }
    },
    [call, ask],
  ) as FapiCall;

  return (
    <HostedOverride call={guarded}>
      {children}
      {pending ? <ReverifyDialog onVerified={pending.resolve} onClose={pending.reject} /> : null}
    </HostedOverride>
  );
}

const FIELDS = ['password', 'code'] as const;

function ReverifyDialog({ onVerified, onClose }: { onVerified(): void; onClose(): void }) {
  const t = useTranslations('hosted.reverify');
  const te = useTranslations('hosted.errors');
  const tf = useTranslations('hosted.fields');
  const { call, client } = useHosted();
  const sessionId = client?.session?.id ?? '';
  const { formError, fieldErrors, busy, handleSubmit, run, show } = useFormErrors(FIELDS);
  const [verification, setVerification] = useState<Verification | null>(null);
  const [strategy, setStrategy] = useState<Strategy | null>(null);
  const [value, setValue] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const started = useRef(false);

  const verify = useCallback(
    <T,>(step: string, json: Record<string, unknown>) => call<T>(`/v1/client/sessions/${sessionId}/verify${step}`, { json }),
    [call, sessionId],
  );

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void verify<Verification>('', { level: 'second_factor' }).then(
      (v) => {
        setVerification(v);
        setStrategy(strategiesOf(v)[0] ?? null);
      },
      (e: unknown) => show(e),
    );
  }, [verify, show]);

  const step = verification?.status === 'needs_second_factor' ? 'second' : 'first';
  const strategies = useMemo(() => (verification ? strategiesOf(verification) : []), [verification]);

  function done(v: Verification) {
    setVerification(v);
    if (v.status === 'complete') onVerified();
    else {
      setStrategy(strategiesOf(v)[0] ?? null);
      setValue('');
    }
  }

  function choose(s: Strategy) {
    setStrategy(s);
    setValue('');
    setCodeSent(false);
  }

  const sendCode = () =>
    run(async () => {
      await verify('/prepare_first_factor', { strategy: 'email_code' });
      setCodeSent(true);
    });

  const usePasskey = () =>
    run(async () => {
      const prepared = await verify<Verification>(`/prepare_${step}_factor`, { strategy: 'passkey' });
      const v = (step === 'first' ? prepared.first_factor_verification : prepared.second_factor_verification) as { nonce?: string } | null;
      const answer = await startAuthentication({ optionsJSON: JSON.parse(v?.nonce ?? '{}') as PublicKeyCredentialRequestOptionsJSON });
      done(await verify<Verification>(`/attempt_${step}_factor`, { strategy: 'passkey', public_key_credential: answer }));
    });

  const submit = handleSubmit(
    async () => {
      if (strategy === 'password')
        return done(await verify<Verification>('/attempt_first_factor', { strategy: 'password', password: value }));
      if (strategy === 'totp' || strategy === 'backup_code') await verify('/prepare_second_factor', { strategy });
      done(await verify<Verification>(`/attempt_${step}_factor`, { strategy, code: value.trim() }));
    },
    {
      check: (): Record<string, string> | false =>
        strategy === 'password'
          ? !value && { password: te('required') }
          : strategy === 'backup_code'
            ? !value.trim() && { code: te('required') }
            : value.length !== 6 && { code: te('codeFormat') },
    },
  );

  const needsInput = strategy !== null && strategy !== 'passkey' && (strategy !== 'email_code' || codeSent);
  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('title')}
      onSubmit={submit}
      error={formError}
      submitLabel={t('confirm')}
      busy={busy}
      disabled={!needsInput}
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t(step === 'second' ? 'secondFactorDescription' : 'description')}</p>
      {strategies.length > 1 ? (
        <div className="flex flex-wrap gap-2" role="group" aria-label={t('methods')}>
          {strategies.map((s) => (
            <Button
              key={s}
              type="button"
              size="sm"
              variant={s === strategy ? 'primary' : 'secondary'}
              aria-pressed={s === strategy}
              onClick={() => choose(s)}
            >
              {t(`strategy.${s}`)}
            </Button>
          ))}
        </div>
      ) : null}
      {strategy === 'password' ? (
        <Field key="password" label={tf('password')} error={fieldErrors.password}>
          {(p) => (
            <PasswordInput
              {...p}
              name="password"
              autoComplete="current-password"
              autoFocus
              value={value}
              onChange={(e) => setValue(e.target.value)}
            />
          )}
        </Field>
      ) : null}
      {strategy === 'email_code' && !codeSent ? (
        <Button type="button" variant="secondary" onClick={() => void sendCode()} loading={busy}>
          {t('sendCode')}
        </Button>
      ) : null}
      {needsInput && strategy !== 'password' ? (
        <Field
          key={strategy}
          label={t(strategy === 'backup_code' ? 'backupCodeLabel' : strategy === 'totp' ? 'totpLabel' : 'emailCodeLabel')}
          error={fieldErrors.code}
        >
          {(p) =>
            strategy === 'backup_code' ? (
              <PasswordInput {...p} name="code" autoComplete="off" autoFocus value={value} onChange={(e) => setValue(e.target.value)} />
            ) : (
              <CodeInput {...p} name="code" autoFocus value={value} onChange={setValue} />
            )
          }
        </Field>
      ) : null}
      {strategy === 'passkey' ? (
        <Button type="button" variant="secondary" onClick={() => void usePasskey()} loading={busy}>
          {t('usePasskey')}
        </Button>
      ) : null}
      {verification && strategies.length === 0 ? <Alert tone="error">{t('noFactor')}</Alert> : null}
    </FormDialog>
  );
}

/** The strategies the verification's current step takes, in the order offered. */
function strategiesOf(v: Verification): Strategy[] {
  const factors = v.status === 'needs_second_factor' ? (v.supported_second_factors ?? []) : v.supported_first_factors;
  const seen = new Set<Strategy>();
  for (const f of factors) seen.add(f.strategy as Strategy);
  return [...seen];
}
