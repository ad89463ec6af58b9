'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { Badge, Button, EmptyState, Field, Input, Select, cn, focusRing } from '@/components/ui';
import { useDates } from '@/lib/console/format';
import { query } from '@/lib/console/paths';
import type { WebhookMessage } from '@/lib/console/webhooks';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { Pager, useCursorPages } from './pager';
import { InlineError, TableSkeleton } from './states';
import { useActions } from './use-actions';
import type { InstanceResponse } from '@/lib/console/types';

type StatusFilter = '' | WebhookMessage['status'];

const STATUS_TONE = { pending: 'amber', succeeded: 'green', failed: 'red' } as const;

/** The delivery log of one endpoint: messages newest first, each with its attempts; retry one, or recover failed ones since a time. */
export function WebhookDeliveries({ path, disabled }: { path: string; disabled: boolean }) {
  const t = useTranslations('webhooks.deliveries');
  const { canWrite } = useConsole();
  const [status, setStatus] = useState<StatusFilter>('');
  const cursor = useCursorPages([status]);
  const log = useDashboard<InstanceResponse<'GET /webhook_endpoints/{id}/deliveries'>>(
    `${path}/deliveries${query({ limit: 20, status, starting_after: cursor.current })}`,
  );
  const [openId, setOpenId] = useState<string | null>(null);
  const { busy: retrying, act, alert } = useActions();
  const invalidate = useInvalidate();
  /** The log changed (a retry, a recovery, a test sent from the endpoint's card): every page of it again. */
  const changed = () => void invalidate(`${path}/deliveries`);

  const retry = (message: WebhookMessage) =>
    act(message.id, async () => {
      await mutate('POST', `${path}/deliveries/${message.id}/retry`);
      changed();
      return t('retried');
    });

  const messages = log.data?.data;
  return (
    <section className="flex flex-col gap-3" aria-labelledby="deliveries-title">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h3 id="deliveries-title" className="text-sm font-semibold">
          {t('title')}
        </h3>
        <div className="flex items-end gap-2">
          <Field label={t('status')}>
            {(p) => (
              <Select
                {...p}
                value={status}
                onChange={(e) => setStatus(e.target.value as StatusFilter)}
                options={['pending', 'succeeded', 'failed'] as const}
                optionLabel={(s) => t(`statuses.${s}`)}
              >
                <option value="">{t('allStatuses')}</option>
              </Select>
            )}
          </Field>
          <Button variant="secondary" onClick={log.reload} loading={log.loading}>
            {t('refresh')}
          </Button>
        </div>
      </div>
      {alert}
      <div className="overflow-hidden rounded-md ring-1 ring-inset ring-zinc-200 dark:ring-zinc-800">
        {log.error ? (
          <InlineError error={log.error} onRetry={log.reload} />
        ) : !messages ? (
          <TableSkeleton columns={4} rows={3} />
        ) : messages.length === 0 ? (
          <EmptyState title={t('emptyTitle')} description={t('emptyDescription')} />
        ) : (
          <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {messages.map((m) => (
              <MessageRow
                key={m.id}
                message={m}
                open={openId === m.id}
                onToggle={() => setOpenId(openId === m.id ? null : m.id)}
                canRetry={canWrite && !disabled}
                retrying={retrying === m.id}
                onRetry={() => void retry(m)}
              />
            ))}
          </ul>
        )}
        <Pager state={cursor} page={log.data} loading={log.loading} />
      </div>
      {canWrite && !disabled && <RecoverForm path={path} onRecovered={changed} />}
    </section>
  );
}

function MessageRow({
  message,
  open,
  onToggle,
  canRetry,
  retrying,
  onRetry,
}: {
  message: WebhookMessage;
  open: boolean;
  onToggle: () => void;
  canRetry: boolean;
  retrying: boolean;
  onRetry: () => void;
}) {
  const t = useTranslations('webhooks.deliveries');
  const dates = useDates();
  return (
    <li>
      <div className="flex flex-wrap items-center gap-3 px-4 py-3">
        <button
          type="button"
          aria-expanded={open}
          onClick={onToggle}
          className={cn('flex min-w-0 flex-1 flex-wrap items-center gap-3 rounded text-left', focusRing)}
        >
          <Badge tone={STATUS_TONE[message.status]}>{t(`statuses.${message.status}`)}</Badge>
          <span className="font-mono text-xs">{message.event_type}</span>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">{dates.dateTime(message.created_at)}</span>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">{t('attemptCount', { count: message.attempt_count })}</span>
          {message.next_attempt_at !== null && (
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              {t('nextAttempt', { when: dates.relative(message.next_attempt_at) })}
            </span>
          )}
        </button>
        {canRetry && (
          <Button variant="ghost" size="sm" loading={retrying} onClick={onRetry} aria-label={t('retryMessage', { id: message.id })}>
            {t('retry')}
          </Button>
        )}
      </div>
      {open && (
        <div className="flex flex-col gap-2 bg-zinc-50 px-4 py-3 dark:bg-zinc-900/50">
          <p className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{t('ids', { message: message.id, event: message.event_id })}</p>
          {message.payload && (
            <details>
              <summary className="cursor-pointer text-sm font-medium">{t('payload')}</summary>
              <pre
                tabIndex={0}
                aria-label={t('payload')}
                className="mt-2 max-h-80 overflow-auto rounded bg-white p-2 font-mono text-xs whitespace-pre-wrap break-all ring-1 ring-inset ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800"
              >
                {JSON.stringify(message.payload, null, 2)}
              </pre>
            </details>
          )}
          {message.attempts.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('noAttempts')}</p>
          ) : (
            <ol className="flex flex-col gap-2">
              {message.attempts.map((a) => (
                <li
                  key={a.id}
                  className="flex flex-col gap-1 rounded-md bg-white p-3 ring-1 ring-inset ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800"
                >
                  <div className="flex flex-wrap items-center gap-3 text-xs">
                    <Badge tone={a.status_code !== null && a.status_code >= 200 && a.status_code < 300 ? 'green' : 'red'}>
                      {a.status_code ?? t('noResponse')}
                    </Badge>
                    <span>{dates.dateTime(a.created_at)}</span>
                    <span>{t('duration', { ms: a.duration_ms })}</span>
                  </div>
                  {a.error && <p className="text-xs text-red-700 dark:text-red-300">{a.error}</p>}
                  {a.response && <p className="text-xs font-medium">{t('response')}</p>}
                  {a.response && (
                    <pre
                      tabIndex={0}
                      aria-label={t('response')}
                      className="max-h-40 overflow-auto whitespace-pre-wrap break-all rounded bg-zinc-100 p-2 font-mono text-xs dark:bg-zinc-800"
                    >
                      {a.response}
                    </pre>
                  )}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </li>
  );
}

/** `datetime-local` value of a moment, in the browser's time zone. */
const localInput = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};

function RecoverForm({ path, onRecovered }: { path: string; onRecovered: () => void }) {
  const t = useTranslations('webhooks.deliveries');
  const [since, setSince] = useState(() => localInput(Date.now() - 24 * 3_600_000));
  const { busy, act, alert } = useActions();

  function submit(e: FormEvent) {
    e.preventDefault();
    void act('recover', async () => {
      const ms = new Date(since).getTime();
      const res = await mutate<InstanceResponse<'POST /webhook_endpoints/{id}/recover'>>('POST', `${path}/recover`, {
        since: Number.isFinite(ms) ? ms : 0,
      });
      onRecovered();
      return t('recovered', { count: res.requeued });
    });
  }

  return (
    <form className="flex flex-col gap-2" onSubmit={submit}>
      <div className="flex flex-wrap items-end gap-2">
        <Field label={t('recoverSince')} hint={t('recoverHint')}>
          {(p) => <Input {...p} type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} required />}
        </Field>
        <Button type="submit" variant="secondary" loading={busy === 'recover'}>
          {t('recover')}
        </Button>
      </div>
      {alert}
    </form>
  );
}
