'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui';
import type { Client } from '@/lib/fapi/types';
import { appName, useHosted } from './hosted-context';
import { AuthCard, WhenReady } from './shell';
import { BackupCodes, TotpEnrollment } from './totp';

/**
 * `{fapi}/sign-in/setup-mfa`: the instance requires MFA and this session waits for it
 * (task setup_mfa). Enrolling TOTP activates the session; the backup codes are shown
 * once, then the flow goes on to its destination.
 */
export function SetupMfaPage() {
  const t = useTranslations('hosted.setupMfa');
  const { env, client, call, setClient, href, goToDestination } = useHosted();
  const router = useRouter();
  const [codes, setCodes] = useState<string[] | null>(null);
  const session = client?.session ?? null;

  useEffect(() => {
    // Nobody signed in here: back to the sign-in page.
    if (client && !session && !codes) router.replace(href('/sign-in'));
  }, [client, session, codes, router, href]);

  async function enabled(backupCodes: string[]) {
    setCodes(backupCodes);
    setClient(await call<Client>('/v1/client'));
  }

  return (
    <AuthCard title={codes ? t('doneTitle') : t('title')} subtitle={codes ? t('doneSubtitle') : t('subtitle')}>
      <WhenReady value={client && session && env} fields={1}>
        {(env) =>
          codes ? (
            <div className="flex flex-col gap-4">
              <BackupCodes codes={codes} instanceName={appName(env)} />
              <Button onClick={goToDestination}>{t('continue')}</Button>
            </div>
          ) : (
            <TotpEnrollment onEnabled={enabled} />
          )
        }
      </WhenReady>
    </AuthCard>
  );
}
