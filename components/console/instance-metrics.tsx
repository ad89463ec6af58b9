'use client';

import { useFormatter, useTranslations } from 'next-intl';
import { useState } from 'react';
import { Card, CardBody, CardHeader, Select, Skeleton } from '@/components/ui';
import Link from 'next/link';
import { api, pages } from '@/lib/console/paths';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { ErrorState } from './states';
import type { InstanceResponse } from '@/lib/console/types';

type Metrics = InstanceResponse<'GET /metrics'>;
type Point = Metrics['series']['sign_ins'][number];
const PERIODS = ['7', '30', '90'] as const;
const sum = (points: Point[]) => points.reduce((n, p) => n + p.value, 0);
const latest = (points: Point[]) => points.at(-1)?.value ?? 0;

/** The overview's numbers: tiles, daily charts over 7/30/90 days, and the getting-started checklist. */
export function InstanceMetrics() {
  const t = useTranslations('console.metrics');
  const format = useFormatter();
  const { account } = useConsole();
  const instance = useInstance();
  const [days, setDays] = useState<(typeof PERIODS)[number]>('30');
  const metrics = useDashboard<Metrics>(`${api.instance(account.id, instance.id)}/metrics?days=${days}`);
  const m = metrics.data;
  const percent = (ok: number, failed: number) =>
    ok + failed === 0 ? '—' : format.number(ok / (ok + failed), { style: 'percent', maximumFractionDigits: 1 });

  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={
          <Select
            aria-label={t('period')}
            value={days}
            onChange={(e) => setDays(e.target.value as (typeof PERIODS)[number])}
            options={PERIODS}
            optionLabel={(d) => t('lastDays', { days: Number(d) })}
            className="h-9 w-40"
          />
        }
      />
      <CardBody className="flex flex-col gap-6">
        {metrics.error ? (
          <ErrorState error={metrics.error} onRetry={metrics.reload} />
        ) : !m ? (
          <Skeleton className="h-48 rounded-md" />
        ) : (
          <>
            <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-6">
              <Tile label={t('totalUsers')} value={format.number(latest(m.series.total_users))} />
              <Tile label={t('signUps')} value={format.number(sum(m.series.users_created))} />
              <Tile label={t('dailyActive')} value={format.number(latest(m.series.daily_active_users))} />
              <Tile label={t('monthlyActive')} value={format.number(latest(m.series.monthly_active_users))} />
              <Tile label={t('activeSessions')} value={format.number(latest(m.series.active_sessions))} />
              <Tile
                label={t('webhookSuccess')}
                value={percent(sum(m.series.webhook_deliveries_succeeded), sum(m.series.webhook_deliveries_failed))}
              />
            </dl>
            <div className="grid gap-6 lg:grid-cols-3">
              <BarChart title={t('signUpsChart')} series={[{ points: m.series.users_created, className: 'fill-indigo-500' }]} />
              <BarChart
                title={t('signInsChart', { rate: percent(sum(m.series.sign_ins), sum(m.series.sign_in_failures)) })}
                series={[
                  { points: m.series.sign_ins, className: 'fill-emerald-500' },
                  { points: m.series.sign_in_failures, className: 'fill-red-500' },
                ]}
              />
              <BarChart title={t('activeChart')} series={[{ points: m.series.daily_active_users, className: 'fill-sky-500' }]} />
            </div>
            <Checklist checklist={m.checklist} />
          </>
        )}
      </CardBody>
    </Card>
  );
}

function Tile({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-lg bg-zinc-50 px-3 py-2 ring-1 ring-inset ring-zinc-200 dark:bg-zinc-950 dark:ring-zinc-800">
      <dt className="text-xs text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="mt-1 text-xl font-semibold tabular-nums">{value}</dd>
    </div>
  );
}

/** Daily bars, side by side per day when there are several series; the numbers are in a table for screen readers. */
function BarChart({ title, series }: { title: string; series: { points: Point[]; className: string }[] }) {
  const t = useTranslations('console.metrics');
  const format = useFormatter();
  const days = series[0]!.points.length;
  const max = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.value)));
  const slot = 100 / days;
  const bar = (slot * 0.8) / series.length;
  // Nothing to draw: say so rather than show an empty frame.
  const empty = series.every((s) => s.points.every((p) => p.value === 0));
  return (
    <figure className="flex flex-col gap-2">
      <figcaption className="text-sm font-medium">{title}</figcaption>
      {empty ? (
        <p className="flex h-28 items-center justify-center rounded-md bg-zinc-50 px-3 text-center text-sm text-zinc-600 dark:bg-zinc-950 dark:text-zinc-400">
          {t('noDataYet')}
        </p>
      ) : (
        <svg viewBox="0 0 100 40" preserveAspectRatio="none" className="h-28 w-full rounded-md bg-zinc-50 dark:bg-zinc-950" aria-hidden>
          {series.map((s, i) =>
            s.points.map((p, d) => {
              const h = (p.value / max) * 38;
              return (
                <rect key={`${i}-${d}`} x={d * slot + slot * 0.1 + i * bar} y={40 - h} width={bar} height={h} className={s.className} />
              );
            }),
          )}
        </svg>
      )}
      {/* The figures for screen readers; the wrapper hides them: a table ignores sr-only’s 1px width and widened the phone page. */}
      <div className="sr-only">
        <table>
          <caption>{title}</caption>
          <tbody>
            {series[0]!.points.map((p, d) => (
              <tr key={p.date}>
                <th scope="row">{format.dateTime(new Date(p.date), { dateStyle: 'medium', timeZone: 'UTC' })}</th>
                {series.map((s, i) => (
                  <td key={i}>{s.points[d]!.value}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** Where each step of the checklist is done. */
const STEP_PAGES = {
  secret_key_used: '',
  first_user: 'users',
  first_sign_in: 'users',
  webhook_endpoint: 'webhooks',
  branding: 'settings/branding',
  production_instance: '',
  custom_domain: 'settings/domain',
} as const;

function Checklist({ checklist }: { checklist: Metrics['checklist'] }) {
  const t = useTranslations('console.metrics');
  const { account } = useConsole();
  const instance = useInstance();
  const steps = Object.keys(STEP_PAGES) as (keyof typeof STEP_PAGES)[];
  const done = steps.filter((s) => checklist[s]).length;
  return (
    <section aria-label={t('checklistTitle')} className="flex flex-col gap-2">
      <h3 className="text-sm font-medium">
        {t('checklistTitle')} · {t('checklistProgress', { done, total: steps.length })}
      </h3>
      <ul className="grid gap-2 sm:grid-cols-2">
        {steps.map((step) => (
          <li key={step} className="flex items-center gap-2 text-sm">
            <span aria-hidden className={checklist[step] ? 'text-emerald-600 dark:text-emerald-400' : 'text-zinc-500 dark:text-zinc-400'}>
              {checklist[step] ? '✓' : '○'}
            </span>
            <Link
              href={step === 'production_instance' ? pages.account(account.id) : pages.instance(account.id, instance.id, STEP_PAGES[step])}
              className="text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
            >
              {t(`checklist.${step}`)}
            </Link>
            <span className="sr-only">{checklist[step] ? t('stepDone') : t('stepToDo')}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
