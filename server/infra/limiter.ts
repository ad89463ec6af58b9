import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';

/**
 * Sliding-window logs: a budget of `limit` hits holds over every interval of `windowMs`,
 * not per fixed window, so a burst on both sides of a boundary cannot spend twice the
 * budget. Only admitted hits are recorded (a refused one spends nothing), so a log never
 * holds more than `limit` entries. The memory store serves one node; the Redis store lets
 * every node share one budget, one atomic script per decision.
 */
export interface LimiterStore {
  /** Admits the hit when fewer than `limit` were admitted in (now − windowMs, now]. */
  take(key: string, limit: number, windowMs: number, now: number): Promise<StoreDecision>;
}

export interface StoreDecision {
  allowed: boolean;
  /** Hits admitted in the window, this one included when allowed. */
  count: number;
  /** When refused: until the oldest admitted hit leaves the window. */
  retryAfterMs: number;
}

export interface LimitRule {
  /** Names the budget in metrics and keys, e.g. `bapi_key`. */
  name: string;
  /** The instance policy's name of the budget (`bapi_per_key`), when it is one. */
  budget?: string;
  limit: number;
  windowMs: number;
}

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a hit would be admitted again (refused), or until the budget is whole again; at least 1. */
  retryAfter: number;
}

export interface Limiter {
  check(rule: LimitRule, subject: string, now: number): Promise<LimitDecision>;
}

export function createLimiter(store: LimiterStore): Limiter {
  return {
    async check(rule, subject, now) {
      const d = await store.take(`${rule.name}:${subject}`, rule.limit, rule.windowMs, now);
      return {
        allowed: d.allowed,
        limit: rule.limit,
        remaining: Math.max(0, rule.limit - d.count),
        retryAfter: Math.max(1, Math.ceil((d.allowed ? rule.windowMs : d.retryAfterMs) / 1000)),
      };
    },
  };
}

export class MemoryLimiterStore implements LimiterStore {
  /** Admitted hit times per key, oldest first, from `head` on (the ones before it have left the window). */
  private readonly logs = new Map<string, { hits: number[]; head: number; windowMs: number }>();
  private lastSweep = 0;

  async take(key: string, limit: number, windowMs: number, now: number): Promise<StoreDecision> {
    this.sweep(now);
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { hits: [], head: 0, windowMs }));
    log.windowMs = windowMs;
    const hits = log.hits;
    let head = log.head;
    while (head < hits.length && hits[head]! <= now - windowMs) head++;
    // Expired hits are dropped once they are half the log, not on every hit: a large budget's
    // log holds tens of thousands of times, and moving them all per request costs more than the request.
    if (head > 0 && head * 2 >= hits.length) {
      hits.splice(0, head);
      head = 0;
    }
    log.head = head;
    const count = hits.length - head;
    if (count >= limit) {
      return { allowed: false, count, retryAfterMs: hits[hits.length - limit]! + windowMs - now };
    }
    hits.push(now);
    return { allowed: true, count: count + 1, retryAfterMs: 0 };
  }

  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, log] of this.logs) {
      const last = log.hits[log.hits.length - 1];
      if (last === undefined || last <= now - log.windowMs) this.logs.delete(k);
    }
  }
}

/**
 * KEYS[1] the log (a sorted set of admitted hits scored by time); ARGV: now, window, limit,
 * a unique member. Returns {admitted 0|1, count, retry_after_ms}.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, n + 1, 0}
end
local edge = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {0, n, tonumber(edge[2]) + window - now}`;

/**
 * Budgets shared by every node through Redis. While Redis is unreachable (not connected, or a
 * decision not answered within `timeoutMs`) each node decides alone from its own memory
 * store: the limits stay enforced, per node rather than across nodes, and requests neither
 * fail nor wait for Redis (failing open to a per-node limit, not closed: Redis holds only
 * counters, and refusing every request while they are out of reach would turn a cache
 * outage into an outage). Shared budgets resume as soon as Redis answers again.
 */
const AWAY = new Set(['reconnecting', 'close', 'end', 'wait']);

export class RedisLimiterStore implements LimiterStore {
  private seq = 0;
  private readonly nodeTag = randomBytes(6).toString('hex');
  private readonly local = new MemoryLimiterStore();
  /** When this node last noticed Redis unreachable (for one warning per minute), 0 when fine. */
  private degradedSince = 0;
  private warnedAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'latchkey:rl:',
    private readonly opts: { timeoutMs?: number; onDegraded?: (err: unknown) => void } = {},
  ) {
    redis.defineCommand('latchkeyTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  }

  /** Whether decisions are per node now (Redis unreachable). */
  get degraded() {
    return this.degradedSince !== 0;
  }

  async take(key: string, limit: number, windowMs: number, now: number): Promise<StoreDecision> {
    // Between connection attempts (and after the end) nothing would answer: no wait for it.
    if (AWAY.has(this.redis.status)) return this.fallBack(key, limit, windowMs, now, new Error(`redis ${this.redis.status}`));
    // Members must be unique across nodes and within one millisecond.
    const member = `${now}:${this.nodeTag}:${(this.seq = (this.seq + 1) % 1e9)}`;
    const run = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<[number, number, number]>>).latchkeyTake!;
    let timer: NodeJS.Timeout | undefined;
    try {
      const [admitted, count, retryAfterMs] = await Promise.race([
        run.call(this.redis, `${this.prefix}${key}`, now, windowMs, limit, member),
        new Promise<never>(
          (_, reject) => (timer = setTimeout(() => reject(new Error('redis did not answer in time')), this.opts.timeoutMs ?? 250)),
        ),
      ]);
      this.degradedSince = 0;
      return { allowed: admitted === 1, count, retryAfterMs };
    } catch (err) {
      return this.fallBack(key, limit, windowMs, now, err);
    } finally {
      clearTimeout(timer);
    }
  }

  private fallBack(key: string, limit: number, windowMs: number, now: number, err: unknown) {
    if (!this.degradedSince) this.degradedSince = now;
    if (now - this.warnedAt >= 60_000) {
      this.warnedAt = now;
      this.opts.onDegraded?.(err);
    }
    return this.local.take(key, limit, windowMs, now);
  }
}
