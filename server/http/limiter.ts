import type { Redis } from 'ioredis';

/**
 * Fixed-window counters. The memory store serves one node; the Redis store lets
 * every node share one budget.
 */
export interface LimiterStore {
  /** Counts one hit in the window holding `now`; returns the count and when the window ends. */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

export interface LimitRule {
  /** Names the budget in metrics and keys, e.g. `bapi_key`. */
  name: string;
  limit: number;
  windowMs: number;
}

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets, at least 1. */
  retryAfter: number;
}

export interface Limiter {
  check(rule: LimitRule, subject: string, now: number): Promise<LimitDecision>;
}

export function createLimiter(store: LimiterStore): Limiter {
  return {
    async check(rule, subject, now) {
      const { count, resetAt } = await store.hit(`${rule.name}:${subject}`, rule.windowMs, now);
      return {
        allowed: count <= rule.limit,
        limit: rule.limit,
        remaining: Math.max(0, rule.limit - count),
        retryAfter: Math.max(1, Math.ceil((resetAt - now) / 1000)),
      };
    },
  };
}

export class MemoryLimiterStore implements LimiterStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  async hit(key: string, windowMs: number, now: number) {
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: Math.floor(now / windowMs) * windowMs + windowMs };
      this.windows.set(key, w);
    }
    w.count += 1;
    return { count: w.count, resetAt: w.resetAt };
  }

  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}

const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

export class RedisLimiterStore implements LimiterStore {
  constructor(private readonly redis: Redis, private readonly prefix = 'latchkey:rl:') {}

  async hit(key: string, windowMs: number, now: number) {
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const resetAt = windowStart + windowMs;
    const count = (await this.redis.eval(
      HIT_SCRIPT,
      1,
      `${this.prefix}${key}:${windowStart}`,
      String(windowMs + 1000),
    )) as number;
    return { count, resetAt };
  }
}
