'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
  WebAuthnAbortService,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { Alert, AsyncContent, Button, Card, CardHeader, ConfirmDialog, EmptyState, Field, FormDialog, Input } from '@/components/ui';
import type { SignInAnswer } from '@/lib/fapi/types';
import type { FapiResponse } from '@/lib/generated/fapi';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { SectionError, useList } from './hosted-list';

/**
 * Passkeys on the hosted pages (@simplewebauthn/browser does the ceremonies):
 * - sign-in: `usePasskeyAutofill` waits on the browser's autofill (conditional UI) with a
 *   username-less attempt; `PasskeySignInButton` opens the browser's dialog (after an
 *   identifier, for that user's passkeys);
 * - second factor: `PasskeySecondFactorButton`;
 * - profile: `PasskeysSection` lists, adds, renames and deletes the user's passkeys.
 */

type Verification = { nonce?: string } | null;
const optionsOf = (v: Verification) => JSON.parse(v?.nonce ?? '{}') as PublicKeyCredentialRequestOptionsJSON;

/** Whether the instance takes passkeys and this browser can use them. */
export function usePasskeysOffered(): boolean {
  const { env } = useHosted();
  const [supported, setSupported] = useState(false);
  useEffect(() => setSupported(browserSupportsWebAuthn()), []);
  return supported && (env?.user_settings.first_factors.includes('passkey') ?? false);
}

/** A ceremony the user closed or the page replaced: not an error worth showing. */
const cancelled = (e: unknown) => e instanceof Error && (e.name === 'AbortError' || e.name === 'NotAllowedError');

/**
 * The browser refuses WebAuthn for this page's host (an IP address, or a host outside the
 * relying party): the background autofill then fails before anyone acted, so it says nothing;
 * the passkey button still answers the error when clicked.
 */
const refusedForHost = (e: unknown) => e instanceof Error && e.name === 'SecurityError';

/**
 * Conditional UI: a username-less attempt whose options wait on the autofill of the input with
 * `autocomplete="username webauthn"`; a passkey picked there signs in (`onAnswer`). A failed
 * answer starts a new wait (a challenge is single use).
 */
export function usePasskeyAutofill(enabled: boolean, onAnswer: (res: SignInAnswer) => void, onError: (e: unknown) => void) {
  const { call } = useHosted();
  const started = useRef(false);
  const handlers = useRef({ onAnswer, onError });
  handlers.current = { onAnswer, onError };
  useEffect(() => {
    if (!enabled || started.current) return;
    started.current = true;
    let stopped = false;
    async function wait() {
      if (!(await browserSupportsWebAuthnAutofill()) || stopped) return;
      const created = await call<SignInAnswer>('/v1/client/sign_ins', { json: { strategy: 'passkey' } });
      let answer;
      try {
        answer = await startAuthentication({
          optionsJSON: optionsOf(created.response.first_factor_verification as Verification),
          useBrowserAutofill: true,
        });
      } catch (e) {
        if (!cancelled(e) && !refusedForHost(e)) handlers.current.onError(e);
        return;
      }
      try {
        const res = await call<SignInAnswer>(`/v1/client/sign_ins/${created.response.id}/attempt_first_factor`, {
          json: { strategy: 'passkey', public_key_credential: answer },
        });
        handlers.current.onAnswer(res);
      } catch (e) {
        handlers.current.onError(e);
        if (!stopped) void wait().catch(() => undefined);
      }
    }
    void wait().catch(() => undefined);
    return () => {
      stopped = true;
    };
  }, [enabled, call]);
}

/** The browser's passkey dialog: for `identifier`'s passkeys when one is typed, else any passkey of this site. */
export function PasskeySignInButton({
  identifier,
  disabled,
  onAnswer,
  onError,
}: {
  identifier: string;
  disabled?: boolean;
  onAnswer(res: SignInAnswer): void;
  onError(e: unknown): void;
}) {
  const t = useTranslations('passkeys.signIn');
  const { call } = useHosted();
  const [busy, setBusy] = useState(false);
  async function signIn() {
    setBusy(true);
    try {
      WebAuthnAbortService.cancelCeremony();
      const created = await call<SignInAnswer>('/v1/client/sign_ins', {
        json: identifier.trim() ? { strategy: 'passkey', identifier: identifier.trim() } : { strategy: 'passkey' },
      });
      const answer = await startAuthentication({ optionsJSON: optionsOf(created.response.first_factor_verification as Verification) });
      const res = await call<SignInAnswer>(`/v1/client/sign_ins/${created.response.id}/attempt_first_factor`, {
        json: { strategy: 'passkey', public_key_credential: answer },
      });
      onAnswer(res);
    } catch (e) {
      if (!cancelled(e)) onError(e);
      setBusy(false);
    }
  }
  return (
    <Button variant="secondary" onClick={() => void signIn()} loading={busy} disabled={disabled || busy}>
      {t('button')}
    </Button>
  );
}

/** The second factors the attempt takes (null while loading). */
export function useSecondFactors(attemptId: string | null): string[] | null {
  const { call } = useHosted();
  const [factors, setFactors] = useState<string[] | null>(null);
  useEffect(() => {
    if (!attemptId) return;
    call<SignInAnswer>(`/v1/client/sign_ins/${attemptId}`).then(
      (res) => setFactors((res.response.supported_second_factors ?? []).map((f) => f.strategy)),
      () => setFactors([]),
    );
  }, [attemptId, call]);
  return factors;
}

/** "Use a passkey" on the second-factor page. */
export function PasskeySecondFactorButton({
  attemptId,
  primary,
  onAnswer,
  onError,
}: {
  attemptId: string;
  primary?: boolean;
  onAnswer(res: SignInAnswer): void;
  onError(e: unknown): void;
}) {
  const t = useTranslations('passkeys.factorTwo');
  const { call } = useHosted();
  const [busy, setBusy] = useState(false);
  async function verify() {
    setBusy(true);
    try {
      const prepared = await call<SignInAnswer>(`/v1/client/sign_ins/${attemptId}/prepare_second_factor`, {
        json: { strategy: 'passkey' },
      });
      const answer = await startAuthentication({ optionsJSON: optionsOf(prepared.response.second_factor_verification as Verification) });
      onAnswer(
        await call<SignInAnswer>(`/v1/client/sign_ins/${attemptId}/attempt_second_factor`, {
          json: { strategy: 'passkey', public_key_credential: answer },
        }),
      );
    } catch (e) {
      if (!cancelled(e)) onError(e);
      setBusy(false);
    }
  }
  return (
    <Button variant={primary ? 'primary' : 'secondary'} onClick={() => void verify()} loading={busy} disabled={busy}>
      {t('button')}
    </Button>
  );
}

type Passkey = FapiResponse<'GET /v1/me/passkeys'>['data'][number];

/** The profile's "Passkeys": the user's passkeys, add one (the browser's dialog), rename, delete. */
export function PasskeysSection() {
  // Nothing is asked of the server when the instance takes no passkeys (it would answer 403).
  return usePasskeysOffered() ? <OwnPasskeys /> : null;
}

function OwnPasskeys() {
  const t = useTranslations('passkeys.profile');
  const { call } = useHosted();
  const describe = useFapiError();
  const { list, setList, error, load } = useList<Passkey>('/v1/me/passkeys');
  const [adding, setAdding] = useState(false);
  const [addError, setAddError] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<Passkey | null>(null);
  const [name, setName] = useState('');
  const [renameError, setRenameError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Passkey | null>(null);

  async function add() {
    setAdding(true);
    setAddError(null);
    try {
      WebAuthnAbortService.cancelCeremony();
      const { options } = await call<{ options: PublicKeyCredentialCreationOptionsJSON }>('/v1/me/passkeys/prepare_registration', {
        method: 'POST',
      });
      const credential = await startRegistration({ optionsJSON: options });
      await call('/v1/me/passkeys', { json: { public_key_credential: credential } });
      load();
    } catch (e) {
      if (!cancelled(e)) setAddError(describe(e).message);
    } finally {
      setAdding(false);
    }
  }

  async function rename(e: FormEvent) {
    e.preventDefault();
    if (!renaming) return;
    try {
      const updated = await call<Passkey>(`/v1/me/passkeys/${renaming.id}`, { method: 'PATCH', json: { name } });
      setList((l) => l?.map((p) => (p.id === updated.id ? updated : p)) ?? null);
      setRenaming(null);
    } catch (err) {
      setRenameError(describe(err).message);
    }
  }

  async function remove() {
    if (!deleting) return;
    await call(`/v1/me/passkeys/${deleting.id}`, { method: 'DELETE' });
    setList((l) => l?.filter((p) => p.id !== deleting.id) ?? null);
  }

  const when = (ms: number) => new Date(ms).toLocaleDateString();
  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={
          <Button size="sm" onClick={() => void add()} loading={adding} disabled={adding}>
            {t('add')}
          </Button>
        }
      />
      {addError && (
        <div className="px-5 pt-4">
          <Alert tone="error">{addError}</Alert>
        </div>
      )}
      <AsyncContent data={list} error={error && <SectionError message={error} />} loading={null} empty={<EmptyState title={t('empty')} />}>
        {(passkeys) => (
          <ul aria-label={t('title')} className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {passkeys.map((p) => (
              <li key={p.id} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
                <div className="min-w-0 text-sm">
                  <p className="font-medium">{p.name}</p>
                  <p className="text-xs text-zinc-600 dark:text-zinc-400">
                    {t('added', { date: when(p.created_at) })}
                    {' · '}
                    {p.last_used_at ? t('lastUsed', { date: when(p.last_used_at) }) : t('neverUsed')}
                  </p>
                  {p.status === 'disabled' && <p className="text-xs text-red-700 dark:text-red-400">{t('disabled')}</p>}
                </div>
                <div className="flex gap-2">
                  <Button
                    variant="secondary"
                    size="sm"
                    aria-label={t('renameLabel', { name: p.name })}
                    onClick={() => {
                      setName(p.name);
                      setRenameError(null);
                      setRenaming(p);
                    }}
                  >
                    {t('rename')}
                  </Button>
                  <Button variant="secondary" size="sm" aria-label={t('deleteLabel', { name: p.name })} onClick={() => setDeleting(p)}>
                    {t('delete')}
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </AsyncContent>
      <FormDialog
        open={renaming !== null}
        onClose={() => setRenaming(null)}
        title={t('renameTitle')}
        onSubmit={(e) => void rename(e)}
        error={renameError}
        submitLabel={t('save')}
        busy={false}
      >
        <Field label={t('nameLabel')}>
          {(p) => <Input {...p} name="passkey_name" maxLength={64} autoFocus value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
      </FormDialog>
      <ConfirmDialog
        open={deleting !== null}
        title={t('deleteTitle')}
        description={t('deleteBody', { name: deleting?.name ?? '' })}
        confirmLabel={t('delete')}
        describeError={(e) => describe(e).message}
        onConfirm={remove}
        onClose={() => setDeleting(null)}
      />
    </Card>
  );
}
