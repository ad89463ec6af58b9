'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Spinner } from '@/components/ui';
import type { Envelope } from '@/lib/fapi/types';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { AuthCard, LoadError } from './shell';

/**
 * `{fapi}/sign-out`: ends this browser's active session, then goes to `redirect_url` when
 * the server allows it, else to the sign-in page. Other sessions of the browser stay.
 */
export function SignOutPage() {
  const t = useTranslations('hosted.signOut');
  const { env, client, loadError, call, href, setClient } = useHosted();
  const router = useRouter();
  const describe = useFapiError();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (!env || !client || started.current) return;
    started.current = true;
    const leave = () => {
      if (env.redirect?.allowed) window.location.assign(env.redirect.url);
      else router.replace(href('/sign-in'));
    };
    const session = client.session;
    if (!session) return leave();
    call<Envelope<unknown>>(`/v1/client/sessions/${session.id}/end`, { method: 'POST' }).then(
      (res) => {
        setClient(res.client);
        leave();
      },
      (e: unknown) => setError(describe(e).message),
    );
  }, [env, client, call, href, router, setClient, describe]);

  return (
    <AuthCard title={t('title')}>
      {loadError ? (
        <LoadError />
      ) : error ? (
        <div className="flex flex-col gap-4">
          <Alert tone="error">{error}</Alert>
          <Button variant="secondary" onClick={() => window.location.reload()}>
            {t('retry')}
          </Button>
        </div>
      ) : (
        <div className="flex justify-center py-6">
          <Spinner label={t('signingOut')} />
        </div>
      )}
    </AuthCard>
  );
}
