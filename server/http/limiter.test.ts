import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLimiter, MemoryLimiterStore, RedisLimiterStore } from './limiter';

const rule = { name: 'test', limit: 3, windowMs: 10_000 };

describe('memory limiter', () => {
  it('allows the budget, then refuses until the window resets', async () => {
    const limiter = createLimiter(new MemoryLimiterStore());
    const t = 1_000_000_000_000;
    for (let i = 0; i < 3; i++) expect((await limiter.check(rule, 'a', t)).allowed).toBe(true);
    const refused = await limiter.check(rule, 'a', t + 4000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 6 });
    expect((await limiter.check(rule, 'b', t)).allowed).toBe(true);
    expect((await limiter.check(rule, 'a', t + 10_000)).allowed).toBe(true);
  });
});

describe('redis limiter', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  afterAll(() => redis.disconnect());

  it('shares one budget between nodes', async () => {
    const prefix = `latchkey:test:${randomBytes(4).toString('hex')}:`;
    const nodeA = createLimiter(new RedisLimiterStore(redis, prefix));
    const nodeB = createLimiter(new RedisLimiterStore(redis, prefix));
    const t = Date.now();
    expect((await nodeA.check(rule, 'k', t)).allowed).toBe(true);
    expect((await nodeB.check(rule, 'k', t)).allowed).toBe(true);
    expect((await nodeA.check(rule, 'k', t)).allowed).toBe(true);
    const refused = await nodeB.check(rule, 'k', t);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect((await nodeB.check(rule, 'k', t + 10_000)).allowed).toBe(true);
  });
});
