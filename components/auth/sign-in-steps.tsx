'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Field, Skeleton } from '@/components/ui';
import { clearFlow, readFlow, writeFlow, type FlowState } from '@/lib/fapi/flow';
import type { SignInAnswer } from '@/lib/fapi/types';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { CodeForm } from './code-form';
import { CodeInput, IdentifierInput } from './fields';
import { useHosted } from './hosted-context';
import { useFapi } from './hosted-list';
import { useSignInStep } from './sign-in';
import { AuthCard, AuthForm, TextLink, WhenReady, Working, strong } from './shell';
import { useFormErrors } from './use-form-errors';
import { PasskeySecondFactorButton, useSecondFactors } from './passkeys';

/** The sign-in attempt this tab is in the middle of; none: back to the sign-in page. */
function useSignInFlow(): FlowState | null {
  const router = useRouter();
  const { instanceId, href } = useHosted();
  const [flow, setFlow] = useState<FlowState | null>(null);
  useEffect(() => {
    const found = readFlow(instanceId, 'sign_in');
    if (found) setFlow(found);
    else router.replace(href('/sign-in'));
  }, [instanceId, router, href]);
  return flow;
}

/** `{fapi}/sign-in/verify`: the email (or SMS) code of a sign-in. */
export function SignInVerifyPage() {
  const t = useTranslations('hosted.verify');
  const { instanceId, env, client, call, href } = useHosted();
  const flow = useSignInFlow();
  const step = useSignInStep();
  const ready = env && client && flow;

  const strategy = flow?.strategy ?? 'email_code';
  const subtitle = !flow ? (
    <Skeleton className="mx-auto h-5 w-48" />
  ) : flow.identifier.includes('@') || strategy === 'phone_code' ? (
    t.rich('sentTo', { address: flow.identifier, strong })
  ) : (
    t('sentToAccount')
  );

  return (
    <AuthCard
      title={strategy === 'phone_code' ? t('titlePhone') : t('title')}
      subtitle={strategy === 'email_link' && flow ? t.rich('linkSentTo', { address: flow.identifier, strong }) : subtitle}
      footer={<TextLink href={href('/sign-in')}>{t('useAnotherMethod')}</TextLink>}
    >
      <WhenReady value={ready} fields={1}>
        {(flow) =>
          strategy === 'email_link' ? (
            <LinkWaiting flow={flow} />
          ) : (
            <CodeForm
              sentAt={flow.sentAt}
              submitLabel={t('submit')}
              onSubmit={async (code) => {
                const res = await call<SignInAnswer>(`/v1/client/sign_ins/${flow.id}/attempt_first_factor`, { json: { strategy, code } });
                step(res, flow.identifier);
              }}
              onResend={async () => {
                await call(`/v1/client/sign_ins/${flow.id}/prepare_first_factor`, { json: { strategy } });
                writeFlow(instanceId, 'sign_in', { ...flow, sentAt: Date.now() });
              }}
            />
          )
        }
      </WhenReady>
    </AuthCard>
  );
}

/** An emailed link's wait: the attempt is polled until the link, opened anywhere, completes it; the link can be sent again. */
function LinkWaiting({ flow }: { flow: FlowState }) {
  const t = useTranslations('hosted.verify');
  const { instanceId, call } = useHosted();
  const step = useSignInStep();
  const describe = useFapiError();
  const [note, setNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  // Polled through the shared cache until the attempt moves on (a failed poll is tried again at the next).
  const [moved, setMoved] = useState(false);
  const { data: answer } = useFapi<SignInAnswer>(`/v1/client/sign_ins/${flow.id}`, undefined, moved ? {} : { every: 2000 });
  useEffect(() => {
    if (moved || !answer || answer.response.status === 'needs_first_factor') return;
    setMoved(true);
    step(answer, flow.identifier);
    // Once, when the answer moves on: `step` is a new function each render.
  }, [answer, moved, flow]);

  async function resend() {
    setNote(null);
    try {
      await call(`/v1/client/sign_ins/${flow.id}/prepare_first_factor`, { json: { strategy: 'email_link' } });
      writeFlow(instanceId, 'sign_in', { ...flow, sentAt: Date.now() });
      setNote({ tone: 'success', text: t('linkResent') });
    } catch (err) {
      setNote({ tone: 'error', text: describe(err).message });
    }
  }

  return (
    <div className="flex flex-col gap-4">
      {note && <Alert tone={note.tone}>{note.text}</Alert>}
      <p className="text-sm text-zinc-600 dark:text-zinc-400" role="status">
        {t('linkWaiting')}
      </p>
      <Button variant="secondary" onClick={resend}>
        {t('linkResend')}
      </Button>
    </div>
  );
}

/** `{fapi}/sign-in/link-verified?status=…`: where an emailed sign-in link lands. */
export function LinkVerifiedPage() {
  const t = useTranslations('hosted.linkVerified');
  const { href } = useHosted();
  const [status, setStatus] = useState<'verified' | 'expired' | 'failed' | 'client_mismatch' | null>(null);
  useEffect(() => {
    const s = new URLSearchParams(window.location.search).get('status');
    setStatus(s === 'verified' || s === 'expired' || s === 'client_mismatch' ? s : 'failed');
  }, []);
  if (!status) return <AuthCard title={t('title')}>{<Skeleton className="mx-auto h-5 w-48" />}</AuthCard>;
  return (
    <AuthCard
      title={t(`${status}Title`)}
      footer={status === 'verified' ? undefined : <TextLink href={href('/sign-in')}>{t('signInAgain')}</TextLink>}
    >
      <p role="status" className="text-center text-sm text-zinc-600 dark:text-zinc-400">
        {t(status)}
      </p>
    </AuthCard>
  );
}

const FACTOR_FIELDS = ['code'] as const;

/** `{fapi}/sign-in/factor-two`: a TOTP code from the authenticator app, or a backup code. */
export function FactorTwoPage() {
  const t = useTranslations('hosted.factorTwo');
  const te = useTranslations('hosted.errors');
  const { instanceId, env, client, call, href } = useHosted();
  const flow = useSignInFlow();
  const step = useSignInStep();
  const { formError, fieldErrors, setFieldErrors, reset, busy, run, show } = useFormErrors(FACTOR_FIELDS);
  const [strategy, setStrategy] = useState<'totp' | 'backup_code'>('totp');
  const [code, setCode] = useState('');
  const [over, setOver] = useState(false);
  const factors = useSecondFactors(flow?.id ?? null);
  const withPasskey = factors?.includes('passkey') ?? false;
  const passkeyOnly = withPasskey && !factors!.includes('totp');
  const ready = env && client && flow && factors;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!flow) return;
    reset();
    if (strategy === 'totp' && code.length !== 6) return setFieldErrors({ code: te('codeFormat') });
    if (!code.trim()) return setFieldErrors({ code: te('required') });
    void run(
      async () => {
        const res = await call<SignInAnswer>(`/v1/client/sign_ins/${flow.id}/attempt_second_factor`, {
          json: { strategy, code: code.trim() },
        });
        step(res, flow.identifier);
      },
      {
        stayBusy: true,
        onFailed: (info) => {
          if (!info.restart) return;
          clearFlow(instanceId, 'sign_in');
          setOver(true);
        },
      },
    );
  }

  function switchTo(next: 'totp' | 'backup_code') {
    setStrategy(next);
    setCode('');
    reset();
  }

  return (
    <AuthCard
      title={t('title')}
      subtitle={strategy === 'totp' ? t('totpSubtitle') : t('backupSubtitle')}
      footer={<TextLink href={href('/sign-in')}>{t('backToSignIn')}</TextLink>}
    >
      <WhenReady value={ready} fields={1}>
        {() =>
          over ? (
            <div className="flex flex-col gap-4">
              <Alert tone="error">{formError}</Alert>
              <Button onClick={() => window.location.assign(href('/sign-in'))}>{t('startOver')}</Button>
            </div>
          ) : passkeyOnly ? (
            <div className="flex flex-col gap-4">
              {formError && <Alert tone="error">{formError}</Alert>}
              <PasskeySecondFactorButton primary attemptId={flow!.id} onAnswer={(res) => step(res, flow!.identifier)} onError={show} />
            </div>
          ) : (
            <AuthForm
              onSubmit={submit}
              error={formError}
              submitLabel={t('submit')}
              busy={busy}
              after={
                <>
                  <Button variant="ghost" onClick={() => switchTo(strategy === 'totp' ? 'backup_code' : 'totp')}>
                    {strategy === 'totp' ? t('useBackup') : t('useTotp')}
                  </Button>
                  {withPasskey && (
                    <PasskeySecondFactorButton attemptId={flow!.id} onAnswer={(res) => step(res, flow!.identifier)} onError={show} />
                  )}
                </>
              }
            >
              {strategy === 'totp' ? (
                <Field key="totp" label={t('totpLabel')} error={fieldErrors.code}>
                  {(p) => <CodeInput {...p} name="code" autoFocus value={code} onChange={setCode} />}
                </Field>
              ) : (
                <Field key="backup" label={t('backupLabel')} hint={t('backupHint')} error={fieldErrors.code}>
                  {(p) => (
                    <IdentifierInput
                      {...p}
                      name="backup_code"
                      autoComplete="off"
                      autoFocus
                      className="font-mono"
                      value={code}
                      onChange={(e) => setCode(e.target.value)}
                    />
                  )}
                </Field>
              )}
            </AuthForm>
          )
        }
      </WhenReady>
    </AuthCard>
  );
}

/**
 * `{fapi}/sign-in/sso-callback`: where a social sign-in started on these pages comes back
 * to: on to the second factor when the account has one, else to the destination.
 */
export function SocialReturnPage() {
  const t = useTranslations('hosted.signIn');
  const { href } = useHosted();
  const flow = useSignInFlow();
  const step = useSignInStep();
  const [incomplete, setIncomplete] = useState(false);
  const { data: answer, message } = useFapi<SignInAnswer>(flow ? `/v1/client/sign_ins/${encodeURIComponent(flow.id)}` : null);

  useEffect(() => {
    if (!flow || !answer) return;
    if (['complete', 'needs_second_factor'].includes(answer.response.status)) step(answer, flow.identifier);
    else setIncomplete(true);
    // Once per answer: `step` is a new function each render.
  }, [flow, answer]);
  const error = message ?? (incomplete ? t('socialIncomplete') : null);

  return (
    <AuthCard title={t('title')}>
      <Working
        label={t('socialReturning')}
        error={error}
        actionLabel={t('backToSignIn')}
        onAction={() => window.location.assign(href('/sign-in'))}
      />
    </AuthCard>
  );
}
