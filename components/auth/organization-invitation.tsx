'use client';

import { useSearchParams } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Button } from '@/components/ui';
import { ApiError } from '@/lib/api-client';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { AuthCard, PendingAuthCard, strong } from './shell';
import type { FapiResponse } from '@/lib/generated/fapi';

/**
 * `{fapi}/organization-invitation?invitation_token=…`: where an organization invitation
 * email leads. Signed out, it offers sign-in or sign-up and comes back here; signed in,
 * it accepts the invitation (POST /v1/me/organization_invitations/accept), which the
 * server grants only to a user holding the invited address, verified.
 */
export function OrganizationInvitationPage() {
  const t = useTranslations('hosted.organizationInvitation');
  const { env, client, call, href, goToDestination } = useHosted();
  const token = useSearchParams().get('invitation_token');
  const describe = useFapiError();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [joined, setJoined] = useState<string | null>(null);

  if (!env || !client) return <PendingAuthCard title={t('title')} buttons={2} />;

  if (!token) {
    return (
      <AuthCard title={t('title')}>
        <Alert tone="error">{t('missingToken')}</Alert>
      </AuthCard>
    );
  }

  if (joined) {
    return (
      <AuthCard title={t('joinedTitle')} subtitle={t.rich('joined', { organization: joined, strong })}>
        <Button onClick={goToDestination}>{t('continue')}</Button>
      </AuthCard>
    );
  }

  const session = client.session;
  if (!session || session.status !== 'active') {
    // Back to this very page (the fapi origin, so always an allowed redirect) once signed in.
    const withReturn = (path: string) => {
      const url = new URL(href(path), window.location.origin);
      url.searchParams.set('redirect_url', window.location.href);
      return url.pathname + url.search;
    };
    return (
      <AuthCard title={t('title')} subtitle={t('signedOut')}>
        <div className="flex flex-col gap-3">
          <Button onClick={() => window.location.assign(withReturn('/sign-in'))}>{t('signIn')}</Button>
          {env.user_settings.sign_up.open && (
            <Button variant="secondary" onClick={() => window.location.assign(withReturn('/sign-up'))}>
              {t('signUp')}
            </Button>
          )}
        </div>
      </AuthCard>
    );
  }

  async function accept() {
    setBusy(true);
    setError(null);
    try {
      const result = await call<FapiResponse<'POST /v1/me/organization_invitations/accept'>>('/v1/me/organization_invitations/accept', { method: 'POST', json: { token } });
      setJoined(result.membership.organization.name);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 404 ? t('notForYou') : describe(e).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthCard title={t('title')} subtitle={t('signedIn')}>
      <div className="flex flex-col gap-4">
        {error && <Alert tone="error">{error}</Alert>}
        <Button onClick={accept} loading={busy}>
          {t('accept')}
        </Button>
      </div>
    </AuthCard>
  );
}
