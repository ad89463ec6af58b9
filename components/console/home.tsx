'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { Alert, Button, Field, Input, Spinner } from '@/components/ui';
import { requestJson } from '@/lib/api-client';
import { api, pages } from '@/lib/console/paths';
import type { Account, ConsoleInfo, Me } from '@/lib/console/types';
import { mutate } from '@/lib/console/use-dashboard';
import { useErrorMessage } from '@/lib/use-error-message';
import { CenteredCard } from './centered';
import { useFormError } from './use-form-error';

/**
 * `/`: signed out → /sign-in; signed in → the first account; no account (or `?new=1`) →
 * a form creating one.
 */
export function Home({ createNew }: { createNew: boolean }) {
  const t = useTranslations('console.home');
  const router = useRouter();
  const errorMessage = useErrorMessage();
  const [me, setMe] = useState<Me | null>(null);
  const [loadError, setLoadError] = useState<unknown>();

  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        const { body: info } = await requestJson<ConsoleInfo>(api.console);
        if (!info.signed_in) {
          window.location.replace(pages.signIn);
          return;
        }
        const { body } = await requestJson<Me>(api.me);
        if (cancelled) return;
        const first = body.accounts[0];
        if (first && !createNew) router.replace(pages.account(first.id));
        else setMe(body);
      } catch (e) {
        if (!cancelled) setLoadError(e);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [createNew, router]);

  return (
    <CenteredCard>
      {loadError !== undefined ? (
        <Alert tone="error">{errorMessage(loadError)}</Alert>
      ) : me ? (
        <CreateAccount me={me} />
      ) : (
        <div className="flex justify-center py-6">
          <Spinner label={t('loading')} />
        </div>
      )}
    </CenteredCard>
  );
}

function CreateAccount({ me }: { me: Me }) {
  const t = useTranslations('console.home');
  const router = useRouter();
  const form = useFormError(['name']);
  const [name, setName] = useState('');

  const submit = form.handleSubmit(
    async () => {
      const account = await mutate<Account>('POST', api.accounts, { name });
      router.push(pages.account(account.id));
    },
    { stayBusy: true },
  );

  return (
    <>
      <div>
        <h1 className="text-xl font-semibold tracking-tight">{t('createTitle')}</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          {me.accounts.length ? t('createDescription') : t('noAccountDescription')}
        </p>
      </div>
      <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
        {form.formError && <Alert tone="error">{form.formError}</Alert>}
        <Field label={t('accountName')} error={form.fieldError('name')}>
          {(p) => <Input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
        <div className="flex flex-wrap items-center justify-between gap-3">
          {me.accounts[0] ? (
            <Link
              href={pages.account(me.accounts[0].id)}
              className="text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400"
            >
              {t('cancel')}
            </Link>
          ) : (
            <span />
          )}
          <Button type="submit" loading={form.busy}>
            {t('create')}
          </Button>
        </div>
      </form>
    </>
  );
}
