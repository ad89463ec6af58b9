'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { Alert, Button, Card, CardBody, Spinner } from '@/components/ui';
import { requestJson } from '@/lib/api-client';
import { api, query, safeReturnPath } from '@/lib/console/paths';
import type { ConsoleInfo } from '@/lib/console/types';
import { useErrorMessage } from '@/lib/use-error-message';
import { Centered } from './centered';

/**
 * The console's sign-in is the platform instance's hosted sign-in page: this sends the
 * browser there, asking it to come back to `redirect_url` (a console path). Already
 * signed in: straight back.
 */
export function SignInRedirect({ redirectUrl, locale }: { redirectUrl: string | null; locale: string | null }) {
  const t = useTranslations('console.signIn');
  const errorMessage = useErrorMessage();
  const [target, setTarget] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let cancelled = false;
    const back = new URL(safeReturnPath(redirectUrl), window.location.origin).toString();
    requestJson<ConsoleInfo>(api.console).then(
      ({ body }) => {
        if (cancelled) return;
        const href = body.signed_in ? back : `${body.fapi_url}/sign-in${query({ redirect_url: back, locale })}`;
        setTarget(href);
        window.location.replace(href);
      },
      (e: unknown) => {
        if (!cancelled) setError(e);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [redirectUrl, locale, attempt]);

  return (
    <Centered>
      <Card>
        <CardBody className="flex flex-col items-center gap-4 p-8 text-center">
          <h1 className="text-xl font-semibold tracking-tight">{t('title')}</h1>
          {error !== undefined ? (
            <>
              <Alert tone="error" className="w-full text-left">
                {errorMessage(error)}
              </Alert>
              <Button
                variant="secondary"
                onClick={() => {
                  setError(undefined);
                  setAttempt((a) => a + 1);
                }}
              >
                {t('retry')}
              </Button>
            </>
          ) : (
            <>
              <Spinner label={t('redirecting')} />
              <p className="text-sm text-zinc-600 dark:text-zinc-400">
                {t('fallback')}{' '}
                {target ? (
                  <a href={target} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                    {t('continue')}
                  </a>
                ) : (
                  <span className="text-zinc-500 dark:text-zinc-400">{t('continue')}</span>
                )}
              </p>
            </>
          )}
        </CardBody>
      </Card>
    </Centered>
  );
}
