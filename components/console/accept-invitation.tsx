'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Skeleton } from '@/components/ui';
import { requestJson } from '@/lib/api-client';
import { displayName, primaryEmail } from '@/lib/console/format';
import { api, pages, query } from '@/lib/console/paths';
import type { ConsoleInfo, Me } from '@/lib/console/types';
import { errorReason } from '@/lib/console/use-dashboard';
import { useErrorMessage } from '@/lib/use-error-message';
import { CenteredCard } from './centered';
import { NameFields, NewPasswordField } from './operator-fields';
import { useFormError } from './use-form-error';

const FIELDS = ['password', 'first_name', 'last_name'] as const;

/** Accepts an operator invitation: signed in, joins as oneself; signed out, creates the operator. */
export function AcceptInvitation({ token }: { token: string | null }) {
  const t = useTranslations('console.acceptInvitation');
  const router = useRouter();
  const errorMessage = useErrorMessage();
  const form = useFormError(FIELDS);
  const [state, setState] = useState<{ signedIn: boolean; me?: Me } | { error: unknown } | null>(null);
  const [values, setValues] = useState({ password: '', first_name: '', last_name: '' });
  const set = (key: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        const { body } = await requestJson<ConsoleInfo>(api.console);
        const me = body.signed_in ? (await requestJson<Me>(api.me)).body : undefined;
        if (!cancelled) setState({ signedIn: body.signed_in, me });
      } catch (error) {
        if (!cancelled) setState({ error });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, []);

  const here = `/accept-invitation${query({ token })}`;
  const signInLink = `${pages.signIn}${query({ redirect_url: here })}`;
  const reason = errorReason(form.error);
  const invalid = !token || reason === 'invitation_invalid';

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!state || !('signedIn' in state)) return;
    void form.run(
      async () => {
        const extra = state.signedIn ? {} : Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ''));
        const { body } = await requestJson<Me>(api.acceptInvitation, { method: 'POST', json: { token, ...extra } });
        // The account joined: the one that is new to this operator (else their first).
        const before = new Set(state.me?.accounts.map((a) => a.id) ?? []);
        const joined = body.accounts.find((a) => !before.has(a.id)) ?? body.accounts[0];
        router.replace(joined ? pages.account(joined.id) : pages.home);
      },
      { stayBusy: true },
    );
  }

  let content;
  if (invalid) {
    content = (
      <Alert tone="error" title={t('invalidTitle')}>
        {t('invalidDescription')}
      </Alert>
    );
  } else if (state === null) {
    content = (
      <div className="flex flex-col gap-4" aria-busy>
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} className="h-10 w-full" />
        ))}
      </div>
    );
  } else if ('error' in state) {
    content = <Alert tone="error">{errorMessage(state.error)}</Alert>;
  } else {
    content = (
      <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
        {reason === 'email_mismatch' ? (
          <Alert tone="error" title={t('mismatchTitle')}>
            {errorMessage(form.error)}
          </Alert>
        ) : reason === 'sign_in_required' ? (
          <Alert tone="warning" title={t('signInRequiredTitle')}>
            <p>{t('signInRequiredDescription')}</p>
            <Link href={signInLink} className="mt-2 inline-block font-medium underline">
              {t('signIn')}
            </Link>
          </Alert>
        ) : (
          form.formError && <Alert tone="error">{form.formError}</Alert>
        )}
        {state.signedIn ? (
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            {t('signedInAs', { name: (state.me && (displayName(state.me.user) ?? primaryEmail(state.me.user))) ?? '' })}
          </p>
        ) : (
          <>
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              {t('newOperator')}{' '}
              <Link href={signInLink} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                {t('haveAccount')}
              </Link>
            </p>
            <NameFields
              labels={{ firstName: t('firstName'), lastName: t('lastName') }}
              values={values}
              onChange={set}
              fieldError={form.fieldError}
            />
            <NewPasswordField
              label={t('password')}
              hint={t('passwordHint')}
              value={values.password}
              onChange={set('password')}
              error={form.fieldError('password')}
            />
          </>
        )}
        <Button type="submit" loading={form.busy} className="w-full">
          {state.signedIn ? t('join') : t('createAndJoin')}
        </Button>
      </form>
    );
  }

  return (
    <CenteredCard title={t('title')} description={t('description')}>
      {content}
    </CenteredCard>
  );
}
