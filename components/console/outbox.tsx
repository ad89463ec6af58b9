'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Alert, Badge, Card, CardBody, EmptyState, FactList, PageHeader, Skeleton, cn, focusRing } from '@/components/ui';
import { useDates } from '@/lib/console/format';
import { api, query } from '@/lib/console/paths';
import type { Email, InstanceResponse, Sms } from '@/lib/console/types';
import { errorReason, useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { InlineError } from './states';

type Kind = 'emails' | 'sms';

/**
 * `…/outbox`: what a test instance would have sent by email and SMS, rendered safely. On a
 * live instance, the SMS and their delivery status only, without their text (the API
 * withholds it: body_redacted) and no emails (403 live_instance).
 */
export function Outbox() {
  const t = useTranslations('console.outbox');
  const instance = useInstance();
  const [kind, setKind] = useState<Kind>('emails');

  if (instance.environment === 'live') {
    return (
      <div className="flex flex-col gap-6">
        <PageHeader title={t('title')} description={t('liveDescriptionSms', { name: instance.name })} />
        <LiveExplanation />
        <section aria-label={t('tabs.sms')}>
          <MessageList kind="sms" />
        </section>
      </div>
    );
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader title={t('title')} description={t('description', { name: instance.name })} />
      <div role="tablist" aria-label={t('title')} className="flex gap-1 self-start rounded-lg bg-zinc-100 p-1 dark:bg-zinc-900">
        {(['emails', 'sms'] as const).map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            id={`outbox-tab-${k}`}
            aria-selected={kind === k}
            aria-controls="outbox-panel"
            tabIndex={kind === k ? 0 : -1}
            onClick={() => setKind(k)}
            onKeyDown={(e) => {
              if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
              const next = k === 'emails' ? 'sms' : 'emails';
              setKind(next);
              document.getElementById(`outbox-tab-${next}`)?.focus();
            }}
            className={cn(
              'rounded-md px-3 py-1.5 text-sm font-medium',
              focusRing,
              kind === k
                ? 'bg-white shadow-sm dark:bg-zinc-800'
                : 'text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100',
            )}
          >
            {t(`tabs.${k}`)}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="outbox-panel" aria-labelledby={`outbox-tab-${kind}`}>
        <MessageList key={kind} kind={kind} />
      </div>
    </div>
  );
}

function LiveExplanation() {
  const t = useTranslations('console.outbox');
  return (
    <Alert tone="info" title={t('liveTitle')}>
      {t('liveDescription')}
    </Alert>
  );
}

function MessageList({ kind }: { kind: Kind }) {
  const t = useTranslations('console.outbox');
  const dates = useDates();
  const { account } = useConsole();
  const instance = useInstance();
  const cursor = useCursorPages([kind]);
  const list = useDashboard<InstanceResponse<'GET /emails'> | InstanceResponse<'GET /sms'>>(
    `${api.instance(account.id, instance.id)}/${kind}${query({ limit: 20, starting_after: cursor.current })}`,
  );
  const [selectedId, setSelectedId] = useState<string | null>(null);

  if (list.error && errorReason(list.error) === 'live_instance') return <LiveExplanation />;
  if (list.error) {
    return (
      <Card>
        <InlineError error={list.error} onRetry={list.reload} />
      </Card>
    );
  }

  const messages = list.data?.data;
  const selected = messages?.find((m) => m.id === selectedId) ?? messages?.[0];

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,22rem)_minmax(0,1fr)]">
      <Card className="self-start overflow-hidden">
        {!messages ? (
          <ul aria-hidden className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {Array.from({ length: 4 }, (_, i) => (
              <li key={i} className="flex flex-col gap-2 px-4 py-3">
                <Skeleton className="h-4 w-48" />
                <Skeleton className="h-3 w-32" />
              </li>
            ))}
          </ul>
        ) : messages.length === 0 ? (
          <EmptyState title={t(`empty.${kind}`)} description={t('emptyDescription')} />
        ) : (
          <ul aria-label={t(`tabs.${kind}`)} className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {messages.map((m) => {
              const active = selected?.id === m.id;
              return (
                <li key={m.id}>
                  <button
                    type="button"
                    aria-current={active || undefined}
                    onClick={() => setSelectedId(m.id)}
                    className={cn(
                      'flex w-full flex-col gap-0.5 px-4 py-3 text-left',
                      focusRing,
                      active ? 'bg-indigo-50 dark:bg-indigo-950/50' : 'hover:bg-zinc-50 dark:hover:bg-zinc-800/40',
                    )}
                  >
                    <span className="truncate text-sm font-medium">
                      {m.object === 'email' ? m.subject : (m.body ?? t(`messageStatus.${m.status}`))}
                    </span>
                    <span className="truncate text-xs text-zinc-600 dark:text-zinc-400">{t('toLine', { to: m.to })}</span>
                    <span className="flex items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
                      <Badge>{m.template}</Badge>
                      {dates.dateTime(m.created_at)}
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
        <Pager state={cursor} page={list.data} loading={list.loading} />
      </Card>
      {selected && <MessageView message={selected} />}
    </div>
  );
}

function MessageView({ message }: { message: Email | Sms }) {
  const t = useTranslations('console.outbox');
  const dates = useDates();
  const header: Array<[string, string]> = [
    [t('to'), message.to],
    [t('from'), message.from ?? '—'],
    [t('template'), message.template],
    [t('sent'), dates.dateTime(message.created_at)],
    [t('status'), t.has(`messageStatus.${message.status}`) ? t(`messageStatus.${message.status}`) : message.status],
    ...(message.object === 'sms' && message.delivered_by !== 'outbox'
      ? ([[t('attempts'), String(message.attempts)]] as Array<[string, string]>)
      : []),
    ...(message.error
      ? ([
          [t('deliveryError'), message.object === 'sms' && message.error_code ? `${message.error_code}: ${message.error}` : message.error],
        ] as Array<[string, string]>)
      : []),
  ];
  return (
    <Card className="min-w-0 self-start">
      <CardBody className="flex flex-col gap-4">
        <h2 className="text-lg font-semibold break-words">{message.object === 'email' ? message.subject : t('smsTitle')}</h2>
        <FactList facts={header} className="grid-cols-[auto_1fr] gap-x-4 gap-y-1" />
        {message.object === 'email' ? (
          <>
            <section className="flex flex-col gap-2">
              <h3 className="text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{t('html')}</h3>
              {/* No scripts, no same-origin: the message cannot reach the console. */}
              <iframe
                title={t('preview', { subject: message.subject })}
                sandbox=""
                srcDoc={message.html}
                className="h-[28rem] w-full rounded-md bg-white ring-1 ring-zinc-200 dark:ring-zinc-800"
              />
            </section>
            <section className="flex flex-col gap-2">
              <h3 className="text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{t('text')}</h3>
              <pre
                tabIndex={0}
                className="max-h-72 overflow-auto whitespace-pre-wrap rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800"
              >
                {message.text}
              </pre>
            </section>
          </>
        ) : message.body === null ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('bodyRedacted')}</p>
        ) : (
          <pre className="whitespace-pre-wrap rounded-md bg-zinc-100 p-3 font-mono text-sm dark:bg-zinc-800">{message.body}</pre>
        )}
      </CardBody>
    </Card>
  );
}
