import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLimiter, MemoryLimiterStore, RedisLimiterStore, type LimiterStore } from './limiter';

const rule = { name: 'test', limit: 3, windowMs: 10_000 };
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
afterAll(() => redis.disconnect());

const stores: [string, () => LimiterStore][] = [
  ['memory', () => new MemoryLimiterStore()],
  ['redis', () => new RedisLimiterStore(redis, `latchkey:test:${randomBytes(4).toString('hex')}:`)],
];

describe.each(stores)('%s limiter', (_name, makeStore) => {
  it('allows the budget, then refuses until the oldest hit leaves the window', async () => {
    const limiter = createLimiter(makeStore());
    const t = 1_000_000_000_000;
    for (let i = 0; i < 3; i++) expect((await limiter.check(rule, 'a', t + i * 1000)).allowed).toBe(true);
    const refused = await limiter.check(rule, 'a', t + 4000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 6 });
    expect((await limiter.check(rule, 'b', t)).allowed).toBe(true);
    // The first hit leaves the window at t + 10 s; the second is still in it.
    expect((await limiter.check(rule, 'a', t + 10_000)).allowed).toBe(true);
    expect((await limiter.check(rule, 'a', t + 10_500)).allowed).toBe(false);
    expect((await limiter.check(rule, 'a', t + 11_000)).allowed).toBe(true);
  });

  it('holds over any window-length interval: a burst across a fixed-window boundary gets the budget once', async () => {
    const limiter = createLimiter(makeStore());
    const boundary = 1_000_000_010_000; // a multiple of the window: where a fixed window would reset
    const admitted = [];
    for (const at of [boundary - 300, boundary - 200, boundary - 100, boundary, boundary + 100, boundary + 200]) {
      admitted.push((await limiter.check(rule, 'burst', at)).allowed);
    }
    expect(admitted).toEqual([true, true, true, false, false, false]);
    const again = await limiter.check(rule, 'burst', boundary + 9_700);
    expect(again.allowed).toBe(true);
  });

  it('refused hits spend nothing, and a tightened budget applies at once', async () => {
    const limiter = createLimiter(makeStore());
    const t = 1_000_000_020_000;
    for (let i = 0; i < 3; i++) await limiter.check(rule, 'c', t);
    for (let i = 0; i < 20; i++) expect((await limiter.check(rule, 'c', t + 5000)).allowed).toBe(false);
    expect((await limiter.check(rule, 'c', t + 10_000)).allowed).toBe(true);
    const tighter = { ...rule, limit: 1 };
    expect((await limiter.check(tighter, 'c', t + 10_001)).allowed).toBe(false);
  });
});

describe('redis limiter', () => {
  it('shares one budget between nodes on separate connections', async () => {
    const other = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
    try {
      const prefix = `latchkey:test:${randomBytes(4).toString('hex')}:`;
      const nodeA = createLimiter(new RedisLimiterStore(redis, prefix));
      const nodeB = createLimiter(new RedisLimiterStore(other, prefix));
      const t = Date.now();
      expect((await nodeA.check(rule, 'k', t)).allowed).toBe(true);
      expect((await nodeB.check(rule, 'k', t)).allowed).toBe(true);
      expect((await nodeA.check(rule, 'k', t)).allowed).toBe(true);
      const refused = await nodeB.check(rule, 'k', t);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfter).toBe(10);
      expect((await nodeB.check(rule, 'k', t + 10_000)).allowed).toBe(true);
    } finally {
      other.disconnect();
    }
  });
});

describe('redis limiter, Redis out of reach', () => {
  it('decides from the node’s own memory at once: the limit holds per node, nothing fails or waits', async () => {
    const gone = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 1, lazyConnect: false });
    gone.on('error', () => {});
    let warned = 0;
    const store = new RedisLimiterStore(gone, 'latchkey:test:gone:', { timeoutMs: 100, onDegraded: () => warned++ });
    try {
      const limiter = createLimiter(store);
      const t = Date.now();
      const started = performance.now();
      const decisions = [];
      for (let i = 0; i < 5; i++) decisions.push((await limiter.check(rule, 'k', t)).allowed);
      expect(decisions).toEqual([true, true, true, false, false]);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(store.degraded).toBe(true);
      expect(warned).toBe(1);
    } finally {
      gone.disconnect();
    }
  });
});
