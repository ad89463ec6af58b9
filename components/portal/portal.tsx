'use client';

import { useTranslations } from 'next-intl';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Alert, Button, Card, CardBody, CardHeader, Skeleton, Spinner } from '@/components/ui';
import { HostedPage, InstanceMark } from '@/components/auth/shell';
import { appName, useHosted } from '@/components/auth/hosted-context';
import { reasonOf, usePortalCall, usePortalSession, useWhen, type PortalSession } from './portal-context';
import { PortalDomains } from './domains';
import { PortalSso } from './sso';
import { PortalDirectory } from './directory';
import { PortalAuditLogs } from './audit-logs';

const REFUSALS = ['link_used', 'link_expired', 'link_invalid', 'session_missing', 'session_expired'] as const;

/** A clear page for a link or session that cannot be used (never a session). */
export function PortalRefused({ reason }: { reason: string | null }) {
  const t = useTranslations('portal.linkRefused');
  const key = (REFUSALS as readonly string[]).includes(reason ?? '') ? (reason as (typeof REFUSALS)[number]) : 'generic';
  return (
    <HostedPage>
      <Card className="px-6 py-8 sm:px-8">
        <h1 className="text-xl font-semibold tracking-tight">{t('title')}</h1>
        <p className="mt-3 text-sm text-zinc-700 dark:text-zinc-300" data-reason={key}>
          {t(key)}
        </p>
      </Card>
    </HostedPage>
  );
}

/**
 * `{fapi_url}/portal/open#portal_…`: posts the fragment's token once (it never reaches a
 * server log), forgets it from the address bar, then shows the portal.
 */
export function PortalOpen() {
  const t = useTranslations('portal');
  const router = useRouter();
  const { call, base } = usePortalCall();
  const [refused, setRefused] = useState<string | null | undefined>(undefined);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const token = window.location.hash.slice(1);
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    if (!token) {
      setRefused('link_invalid');
      return;
    }
    call<PortalSession>('/session', { json: { token } }).then(
      () => router.replace(`${base}/portal`),
      (e: unknown) => setRefused(reasonOf(e)),
    );
  }, [call, base, router]);
  if (refused !== undefined) return <PortalRefused reason={refused} />;
  return (
    <HostedPage>
      <Card className="flex items-center gap-3 px-6 py-8">
        <Spinner />
        <p className="text-sm">{t('opening')}</p>
      </Card>
    </HostedPage>
  );
}

/** The portal of this browser's session: the organization, then the steps of its intent. */
export function PortalHome() {
  const { session, error } = usePortalSession();
  if (error) return <PortalRefused reason={reasonOf(error)} />;
  if (!session) {
    return (
      <HostedPage wide>
        <Skeleton className="h-64 w-full" />
      </HostedPage>
    );
  }
  return (
    <PortalFrame session={session}>
      {session.intent === 'audit_logs' ? (
        <PortalAuditLogs />
      ) : (
        <>
          <PortalDomains />
          {session.intent === 'sso' && <PortalSso />}
          {session.intent === 'dsync' && <PortalDirectory />}
        </>
      )}
    </PortalFrame>
  );
}

/** The portal's header: the app's mark, the organization and intent, back and done. */
function PortalFrame({ session, children }: { session: PortalSession; children: ReactNode }) {
  const t = useTranslations('portal.header');
  const { env } = useHosted();
  const { call } = usePortalCall();
  const when = useWhen();
  async function done() {
    await call('/session', { method: 'DELETE' }).catch(() => undefined);
    window.location.assign(session.success_url ?? session.return_url ?? window.location.href);
  }
  return (
    <HostedPage wide>
      <div className="flex flex-col gap-6">
        <header className="flex flex-wrap items-center justify-between gap-4">
          <div className="flex min-w-0 items-center gap-3">
            {env && <InstanceMark name={appName(env)} logoUrl={env.branding?.logo_url} />}
            <div className="min-w-0">
              <p className="text-sm text-zinc-500 dark:text-zinc-400">{t(`intent.${session.intent}`)}</p>
              <h1 className="truncate text-xl font-semibold tracking-tight">
                {t('setupFor', { organization: session.organization.name })}
              </h1>
            </div>
          </div>
          <div className="flex flex-wrap gap-2">
            {session.return_url && (
              <a
                className="inline-flex h-10 items-center rounded-md px-4 text-sm font-medium text-zinc-700 ring-1 ring-zinc-300 hover:bg-zinc-50 dark:text-zinc-200 dark:ring-zinc-700"
                href={session.return_url}
              >
                {t('back')}
              </a>
            )}
            {(session.success_url || session.return_url) && <Button onClick={done}>{t('done')}</Button>}
          </div>
        </header>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">{t('expires', { time: when(session.expires_at) })}</p>
        {children}
      </div>
    </HostedPage>
  );
}

/** A section of the portal: a card with a title and an introduction. */
export function Section({ title, intro, children, label }: { title: string; intro?: string; children: ReactNode; label?: string }) {
  return (
    <Card aria-label={label ?? title} role="region">
      <CardHeader title={title} description={intro} />
      <CardBody className="flex flex-col gap-4">{children}</CardBody>
    </Card>
  );
}

export function ErrorLine({ message }: { message: string | null }) {
  return message ? <Alert tone="error">{message}</Alert> : null;
}
