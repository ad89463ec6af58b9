import type { Database } from '../db/client';
import { claimDueMessages, DEFAULT_LEASE_MS, deliverMessage, loadDeliveries, releaseClaims, type DeliveryDeps } from './delivery';
import { WEBHOOK_CHANNEL } from '../events/statements';

export interface WorkerOptions {
  /** Messages claimed (and delivered concurrently) per round. */
  batchSize?: number;
  /** Longest wait between looks at the queue when nothing wakes the worker. */
  pollMs?: number;
  leaseMs?: number;
  /**
   * Other outbound queues the same loop drains after each webhook round, woken by the same
   * NOTIFY (the OpenID Provider's back-channel logouts: composed by server/main/delivery-rounds.ts,
   * since they live in a layer above this one).
   */
  rounds?: readonly DeliveryRound[];
}

export interface DeliveryRound {
  name: string;
  run(stopping: () => boolean): Promise<unknown>;
  /** Gives back the leases of what the round holds unfinished (the worker stopped before it was done); answers how many. */
  release(): Promise<number>;
}

/** Claims due messages and delivers them until none is due; returns how many were attempted. */
export async function runWebhookWorkerOnce(
  deps: DeliveryDeps,
  opts: WorkerOptions = {},
  loop: { held?: Set<string>; stopping?: () => boolean } = {},
): Promise<number> {
  let total = 0;
  for (;;) {
    if (loop.stopping?.()) return total;
    const claimed = await claimDueMessages(deps, opts.batchSize ?? 50, opts.leaseMs ?? DEFAULT_LEASE_MS);
    if (claimed.length === 0) return total;
    for (const m of claimed) loop.held?.add(m.id);
    try {
      const results = await Promise.allSettled((await loadDeliveries(deps, claimed)).map((d) => deliverMessage(deps, d)));
      // A failed acknowledgement leaves its message leased: another round takes it when the lease lapses.
      for (const r of results) if (r.status === 'rejected') deps.logger.error({ err: r.reason }, 'webhook delivery failed');
    } finally {
      for (const m of claimed) loop.held?.delete(m.id);
    }
    total += claimed.length;
  }
}

export interface WebhookWorker {
  /** Look at the queue now rather than at the next poll. */
  wake(): void;
  /**
   * Stops claiming; resolves when the deliveries in flight are acknowledged, or after
   * `timeoutMs` with the leases of the unfinished ones given back (another worker takes
   * them at once; one still finishing here may then be delivered twice, at least once).
   */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * The delivery loop: woken by the fan-out's NOTIFY when a transaction with new messages
 * commits (any process on the same database), and by a poll for retries that fall due.
 * It drains `opts.rounds` too (the OpenID Provider's back-channel logouts).
 */
export async function startWebhookWorker(
  deps: DeliveryDeps,
  database: Pick<Database, 'listen'>,
  opts: WorkerOptions = {},
): Promise<WebhookWorker> {
  const pollMs = opts.pollMs ?? 1000;
  let stopping = false;
  let wakeUp: (() => void) | null = null;
  let pendingWake = false;
  const held = new Set<string>();
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
        await runWebhookWorkerOnce(deps, opts, { held, stopping: () => stopping });
      } catch (err) {
        deps.logger.error({ err }, 'webhook worker round failed');
      }
      for (const round of opts.rounds ?? []) {
        try {
          await round.run(() => stopping);
        } catch (err) {
          deps.logger.error({ err, round: round.name }, 'delivery round failed');
        }
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
    async stop(timeoutMs = Number.POSITIVE_INFINITY) {
      stopping = true;
      wakeUp?.();
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        loop.then(() => true),
        Number.isFinite(timeoutMs)
          ? new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))
          : new Promise<boolean>(() => {}),
      ]);
      clearTimeout(timer);
      if (!finished) {
        await releaseClaims(deps, [...held]).catch((err: unknown) => deps.logger.warn({ err }, 'webhook worker: releasing claims failed'));
        deps.logger.warn({ released: held.size }, 'webhook worker stopped with deliveries unfinished; their claims are released');
        for (const round of opts.rounds ?? []) {
          const released = await round.release().catch((err: unknown) => {
            deps.logger.warn({ err, round: round.name }, 'webhook worker: releasing claims failed');
            return 0;
          });
          if (released) deps.logger.warn({ released, round: round.name }, 'delivery round stopped unfinished; its claims are released');
        }
      }
      await unlisten?.();
    },
  };
}
