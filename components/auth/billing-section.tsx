'use client';

import { useFormatter, useTranslations } from 'next-intl';
import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Card, CardBody, CardHeader, FactList, Skeleton } from '@/components/ui';
import type { BillingStatus } from '@/lib/console/billing';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { SectionError } from './hosted-list';

const ENTITLED = new Set(['active', 'trialing', 'past_due']);

/** The hosted profile's plan: the user's current subscription and a link to the processor's billing portal. */
export function BillingSection() {
  const t = useTranslations('billing.profile');
  const { call, client } = useHosted();
  const describe = useFapiError();
  const format = useFormatter();
  const [status, setStatus] = useState<BillingStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [portalError, setPortalError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const impersonated = !!client?.session?.impersonated_by;

  const load = useCallback(() => {
    call<BillingStatus>('/v1/me/billing').then(setStatus, (e: unknown) => setError(describe(e).message));
  }, [call, describe]);
  useEffect(load, [load]);

  async function openPortal() {
    setBusy(true);
    setPortalError(null);
    try {
      const portal = await call<{ url: string }>('/v1/me/billing/portal', { method: 'POST', json: { return_url: window.location.href } });
      window.location.assign(portal.url);
    } catch (e) {
      setPortalError(describe(e).message);
      setBusy(false);
    }
  }

  const sub = status?.subscription ?? null;
  const date = (ms: number) => format.dateTime(ms, { dateStyle: 'medium' });
  const facts: Array<[string, string]> = [];
  if (sub) {
    facts.push([t('plan'), sub.plan?.name ?? t('unknownPlan')]);
    if (sub.current_period_end) facts.push([sub.cancel_at ? t('endsOn') : t('renewsOn'), date(sub.cancel_at ?? sub.current_period_end)]);
    if (sub.plan?.features.length) facts.push([t('features'), sub.plan.features.join(', ')]);
  }
  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={
          sub && (
            <Button size="sm" variant="secondary" onClick={openPortal} disabled={busy || impersonated}>
              {t('manage')}
            </Button>
          )
        }
      />
      {error ? (
        <SectionError message={error} />
      ) : !status ? (
        <Skeleton className="mx-5 my-4 h-10 rounded-md" />
      ) : (
        <CardBody>
          {sub ? (
            <div className="space-y-3">
              <Badge tone={ENTITLED.has(sub.status) ? 'green' : 'amber'}>{t(`status.${sub.status in STATUS_KEYS ? sub.status : 'other'}`)}</Badge>
              <FactList facts={facts} className="grid-cols-[10rem_1fr] gap-x-4 gap-y-1" />
            </div>
          ) : (
            <p className="text-sm text-zinc-500">{t('none')}</p>
          )}
          {portalError && (
            <div className="mt-3">
              <Alert tone="error">{portalError}</Alert>
            </div>
          )}
        </CardBody>
      )}
    </Card>
  );
}

const STATUS_KEYS = { active: 1, trialing: 1, past_due: 1, canceled: 1, unpaid: 1, incomplete: 1, paused: 1 } as const;
