'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useRef } from 'react';
import { useEndSession, useHosted } from './hosted-context';
import { AuthCard, LoadError, Working } from './shell';

/**
 * `{fapi}/sign-out`: ends this browser's active session, then goes to `redirect_url` when
 * the server allows it, else to the sign-in page. Other sessions of the browser stay.
 */
export function SignOutPage() {
  const t = useTranslations('hosted.signOut');
  const { env, client, loadError, href, setClient } = useHosted();
  const router = useRouter();
  const leave = () => {
    if (env?.redirect?.allowed) window.location.assign(env.redirect.url);
    else router.replace(href('/sign-in'));
  };
  const { error, endSession } = useEndSession((next) => {
    setClient(next);
    leave();
  });
  const started = useRef(false);

  useEffect(() => {
    if (!env || !client || started.current) return;
    started.current = true;
    if (client.session) void endSession();
    else leave();
  }, [env, client, endSession, leave]);

  return (
    <AuthCard title={t('title')}>
      {loadError ? (
        <LoadError />
      ) : (
        <Working label={t('signingOut')} error={error} actionLabel={t('retry')} onAction={() => window.location.reload()} />
      )}
    </AuthCard>
  );
}
