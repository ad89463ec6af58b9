'use client';

import { useFormatter, useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Badge, Button, Card, CardHeader, FactList, Skeleton } from '@/components/ui';
import type { BillingStatus } from '@/lib/console/billing';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { SectionError, useFapi, useList } from './hosted-list';
import type { FapiItem, FapiResponse } from '@/lib/generated/fapi';

const ENTITLED = new Set(['active', 'trialing', 'past_due']);
/** The permission the FAPI asks of an organization member for the organization's checkout and portal. */
const ORG_BILLING_PERMISSION = 'org:sys_memberships:manage';

/**
 * The hosted profile's plans: the user's own subscription, then each of their organizations'
 * (its admins get the link to the processor's billing portal).
 */
export function BillingSection() {
  const t = useTranslations('billing.profile');
  const { list: memberships, error } = useList<FapiItem<'GET /v1/me/organization_memberships'>>('/v1/me/organization_memberships');
  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <div className="divide-y divide-zinc-200 dark:divide-zinc-800">
        <PlanRow label={t('yours')} base="/v1/me/billing" canManage />
        {error && <SectionError message={error} />}
        {memberships?.map((m) => (
          <PlanRow
            key={m.organization.id}
            label={m.organization.name}
            base={`/v1/organizations/${encodeURIComponent(m.organization.id)}/billing`}
            canManage={m.permissions.includes(ORG_BILLING_PERMISSION)}
            organization
          />
        ))}
      </div>
    </Card>
  );
}

/** One payer's plan: `base` answers its status, `base/portal` the processor's billing portal. */
function PlanRow({
  label,
  base,
  canManage,
  organization = false,
}: {
  label: string;
  base: string;
  canManage: boolean;
  organization?: boolean;
}) {
  const t = useTranslations('billing.profile');
  const { call, client } = useHosted();
  const describe = useFapiError();
  const format = useFormatter();
  const { data: status, message: error } = useFapi<BillingStatus>(base);
  const [portalError, setPortalError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const impersonated = !!client?.session?.impersonated_by;

  async function openPortal() {
    setBusy(true);
    setPortalError(null);
    try {
      const portal = await call<FapiResponse<'POST /v1/me/billing/portal'>>(`${base}/portal`, {
        method: 'POST',
        json: { return_url: window.location.href },
      });
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
    <section aria-label={label} className="px-5 py-4">
      <div className="mb-2 flex items-center justify-between gap-3">
        <h3 className="truncate text-sm font-semibold">{label}</h3>
        {sub && canManage && (
          <Button size="sm" variant="secondary" onClick={openPortal} disabled={busy || impersonated}>
            {t('manage')}
          </Button>
        )}
      </div>
      {error ? (
        <Alert tone="error">{error}</Alert>
      ) : !status ? (
        <Skeleton className="h-10 rounded-md" />
      ) : sub ? (
        <div className="space-y-3">
          <Badge tone={ENTITLED.has(sub.status) ? 'green' : 'amber'}>
            {t(`status.${sub.status in STATUS_KEYS ? sub.status : 'other'}`)}
          </Badge>
          <FactList facts={facts} className="grid-cols-[10rem_1fr] gap-x-4 gap-y-1" />
        </div>
      ) : (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{organization ? t('noneOrganization') : t('none')}</p>
      )}
      {portalError && (
        <div className="mt-3">
          <Alert tone="error">{portalError}</Alert>
        </div>
      )}
    </section>
  );
}

const STATUS_KEYS = { active: 1, trialing: 1, past_due: 1, canceled: 1, unpaid: 1, incomplete: 1, paused: 1 } as const;
