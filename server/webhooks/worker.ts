import type { Database } from '../db/client';
import { claimDueMessages, DEFAULT_LEASE_MS, deliverMessage, loadDeliveries, type DeliveryDeps } from './delivery';
import { WEBHOOK_CHANNEL } from './fanout';

export interface WorkerOptions {
  /** Messages claimed (and delivered concurrently) per round. */
  batchSize?: number;
  /** Longest wait between looks at the queue when nothing wakes the worker. */
  pollMs?: number;
  leaseMs?: number;
}

/** Claims due messages and delivers them until none is due; returns how many were attempted. */
export async function runWebhookWorkerOnce(deps: DeliveryDeps, opts: WorkerOptions = {}): Promise<number> {
  let total = 0;
  for (;;) {
    const claimed = await claimDueMessages(deps, opts.batchSize ?? 50, opts.leaseMs ?? DEFAULT_LEASE_MS);
    if (claimed.length === 0) return total;
    const results = await Promise.allSettled((await loadDeliveries(deps, claimed)).map((d) => deliverMessage(deps, d)));
    // A failed acknowledgement leaves its message leased: another round takes it when the lease lapses.
    for (const r of results) if (r.status === 'rejected') deps.logger.error({ err: r.reason }, 'webhook delivery failed');
    total += claimed.length;
  }
}

export interface WebhookWorker {
  /** Look at the queue now rather than at the next poll. */
  wake(): void;
  /** Stops claiming; resolves when the deliveries in flight are acknowledged. */
  stop(): Promise<void>;
}

/**
 * The delivery loop: woken by the fan-out's NOTIFY when a transaction with new messages
 * commits (any process on the same database), and by a poll for retries that fall due.
 */
export async function startWebhookWorker(deps: DeliveryDeps, database: Pick<Database, 'listen'>, opts: WorkerOptions = {}): Promise<WebhookWorker> {
  const pollMs = opts.pollMs ?? 1000;
  let stopping = false;
  let wakeUp: (() => void) | null = null;
  let pendingWake = false;
  const wake = () => {
    pendingWake = true;
    wakeUp?.();
  };
  const unlisten = await database.listen?.(WEBHOOK_CHANNEL, wake).catch((err: unknown) => {
    deps.logger.warn({ err }, 'webhook worker: LISTEN unavailable, polling only');
    return undefined;
  });
  const loop = (async () => {
    while (!stopping) {
      pendingWake = false;
      try {
        await runWebhookWorkerOnce(deps, opts);
      } catch (err) {
        deps.logger.error({ err }, 'webhook worker round failed');
      }
      if (stopping || pendingWake) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = null;
    }
  })();
  return {
    wake,
    async stop() {
      stopping = true;
      wakeUp?.();
      await loop;
      await unlisten?.();
    },
  };
}
