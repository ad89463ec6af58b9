'use client';

import { useTranslations } from 'next-intl';
import { useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { Card, Skeleton } from '@/components/ui';
import { HostedPage } from '@/components/auth/shell';
import { PortalRefused } from './portal';
import { reasonOf, usePortalCall } from './portal-context';
import { TestResultView, type ConnectionTest } from './sso';

/** The test tab after the IdP answered: what it sent and how it maps, or why it failed. */
export function PortalTestResult() {
  const t = useTranslations('portal.sso.result');
  const params = useSearchParams();
  const { call } = usePortalCall();
  const [test, setTest] = useState<ConnectionTest | null>(null);
  const [error, setError] = useState<unknown>(null);
  const connection = params.get('connection') ?? '';
  const id = params.get('id') ?? '';
  useEffect(() => {
    call<ConnectionTest>(`/sso_connections/${encodeURIComponent(connection)}/tests/${encodeURIComponent(id)}`).then(setTest, setError);
  }, [call, connection, id]);
  if (error) return <PortalRefused reason={reasonOf(error)} />;
  return (
    <HostedPage wide>
      <Card className="flex flex-col gap-4 px-6 py-8 sm:px-8">
        <h1 className="text-xl font-semibold tracking-tight">{t('title')}</h1>
        {test ? <TestResultView test={test} /> : <Skeleton className="h-32 w-full" />}
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('close')}</p>
      </Card>
    </HostedPage>
  );
}
