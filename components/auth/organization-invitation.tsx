'use client';

import { useSearchParams } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
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
  const preview = useInvitationPreview(token);
  const describe = useFapiError();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [joined, setJoined] = useState<string | null>(null);

  if (!env || !client || (token && preview === undefined)) return <PendingAuthCard title={t('title')} buttons={2} />;

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

  if (preview === null) {
    return (
      <AuthCard title={t('title')}>
        <Alert tone="error">{t('unknown')}</Alert>
      </AuthCard>
    );
  }
  const invitation = <InvitationSummary preview={preview!} />;
  if (preview!.status !== 'pending') {
    return (
      <AuthCard title={t('title')}>
        {invitation}
        <Alert tone="info">{t('noLonger')}</Alert>
      </AuthCard>
    );
  }

  const session = client.session;
  if (!session || session.status !== 'active') {
    // Back to this very page (the fapi origin, so always an allowed redirect) once signed in;
    // the sign-up takes the token too, which proves the invited address.
    const withReturn = (path: string) => {
      const url = new URL(href(path), window.location.origin);
      url.searchParams.set('redirect_url', window.location.href);
      if (path === '/sign-up') url.searchParams.set('invitation_token', token);
      return url.pathname + url.search;
    };
    return (
      <AuthCard title={t('title')} subtitle={t('signedOut')}>
        {invitation}
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
      const result = await call<FapiResponse<'POST /v1/me/organization_invitations/accept'>>('/v1/me/organization_invitations/accept', {
        method: 'POST',
        json: { token },
      });
      setJoined(result.membership.organization.name);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 404 ? t('notForYou') : describe(e).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthCard title={t('title')} subtitle={t('signedIn')}>
      {invitation}
      <div className="flex flex-col gap-4">
        {error && <Alert tone="error">{error}</Alert>}
        <Button onClick={accept} loading={busy}>
          {t('accept')}
        </Button>
      </div>
    </AuthCard>
  );
}

export type InvitationPreview = FapiResponse<'POST /v1/organization_invitations/preview'>;

/** What an invitation link's token invites to (undefined while loading, null when the token names none). */
export function useInvitationPreview(token: string | null): InvitationPreview | null | undefined {
  const { call } = useHosted();
  const [preview, setPreview] = useState<InvitationPreview | null | undefined>(undefined);
  useEffect(() => {
    if (!token) return;
    let live = true;
    call<InvitationPreview>('/v1/organization_invitations/preview', { json: { token } }).then(
      (p) => live && setPreview(p),
      () => live && setPreview(null),
    );
    return () => {
      live = false;
    };
  }, [token, call]);
  return token ? preview : null;
}

/** The organization (with its logo), who invited, the role, and the invited address. */
function InvitationSummary({ preview }: { preview: InvitationPreview }) {
  const t = useTranslations('hosted.organizationInvitation');
  const values = { organization: preview.organization.name, role: preview.role.name, strong };
  return (
    <div
      className="mb-5 flex items-center gap-3 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
      data-testid="invitation-summary"
    >
      {preview.organization.image_url ? (
        <img src={preview.organization.image_url} alt="" className="size-10 rounded-md object-cover" />
      ) : (
        <span
          aria-hidden
          className="flex size-10 shrink-0 items-center justify-center rounded-md bg-zinc-100 text-base font-semibold dark:bg-zinc-800"
        >
          {preview.organization.name.slice(0, 1).toUpperCase()}
        </span>
      )}
      <div className="min-w-0 text-sm">
        <p>{preview.inviter_name ? t.rich('invitedBy', { ...values, inviter: preview.inviter_name }) : t.rich('invited', values)}</p>
        <p className="truncate text-xs text-zinc-600 dark:text-zinc-400">{t('forAddress', { email: preview.email_address })}</p>
      </div>
    </div>
  );
}
