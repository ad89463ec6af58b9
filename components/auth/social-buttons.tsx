'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Button } from '@/components/ui';
import { writeFlow } from '@/lib/fapi/flow';
import type { SignInAnswer, SignUpAnswer } from '@/lib/fapi/types';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { Divider } from './shell';

type Started = SignInAnswer | SignUpAnswer;

/**
 * "Continue with …" for each enabled social provider of the instance, on the hosted sign-in
 * and sign-up pages. The browser goes to the provider and comes back to
 * `/sign-in/sso-callback`, which asks for a second factor when the account has one and
 * then goes on to the allowed redirect_url (else the profile).
 */
export function SocialButtons({ flow }: { flow: 'sign_in' | 'sign_up' }) {
  const t = useTranslations('social');
  const { instanceId, env, call, href } = useHosted();
  const describe = useFapiError();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const providers = env?.user_settings.social ?? [];
  if (providers.length === 0) return null;

  async function go(strategy: string) {
    setBusy(strategy);
    setError(null);
    try {
      // Back to these pages first: an account with a second factor asks for it there.
      const back = new URL(href('/sign-in/sso-callback'), window.location.href).href;
      const res = await call<Started>(flow === 'sign_in' ? '/v1/client/sign_ins' : '/v1/client/sign_ups', {
        json: { strategy, redirect_url: back },
      });
      writeFlow(instanceId, 'sign_in', { id: res.response.id, identifier: '' });
      const attempt = res.response;
      const url =
        'first_factor_verification' in attempt
          ? attempt.first_factor_verification?.external_verification_redirect_url
          : attempt.verifications?.external_account?.external_verification_redirect_url;
      if (url) window.location.assign(url);
    } catch (err) {
      setError(describe(err).message);
      setBusy(null);
    }
  }

  return (
    <div className="flex flex-col gap-3">
      {error && <Alert tone="error">{error}</Alert>}
      {providers.map((p) => (
        <Button
          key={p.strategy}
          variant="secondary"
          loading={busy === p.strategy}
          disabled={busy !== null}
          onClick={() => void go(p.strategy)}
        >
          {t('continueWith', { provider: p.display_name })}
        </Button>
      ))}
      <Divider label={t('or')} />
    </div>
  );
}
