/**
 * Limiter decisions per second on Redis, measured by `npm run bench` (target `limiter`) or
 * alone with `npx tsx bench/limiter.ts`. One process, one Redis connection (as one API node
 * has), BENCH_CONNECTIONS decisions in flight, for BENCH_DURATION seconds each, round-robin
 * in BENCH_ROUNDS rounds next to two ceilings measured the same way in the same run:
 *
 *   ping      PING round trips: the connection's ceiling
 *   script    a one-line Lua script (EVALSHA returning 1): the ceiling of any atomic decision
 *   admit     RedisLimiterStore.take over 1000 keys at 1000 per 10 s: nearly every hit admitted
 *             (one ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE)
 *   refuse    take on one key at 5 per 10 s: nearly every hit refused (a ZRANGE instead of the writes)
 *
 * REDIS_URL (default redis://127.0.0.1:6379); keys live under a random prefix and expire.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisLimiterStore } from '../server/infra/limiter';

export interface LimiterBenchRow {
  name: string;
  perSecond: number;
  vsPing: number;
  vsScript: number;
}

type Op = (i: number) => Promise<unknown>;

async function runFor(op: Op, inFlight: number, ms: number): Promise<number> {
  const until = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, lane) => {
      for (let i = lane; performance.now() < until; i += inFlight) {
        await op(i);
        done++;
      }
    }),
  );
  return done;
}

export async function measureLimiter(opts: {
  redisUrl: string;
  inFlight: number;
  seconds: number;
  rounds: number;
  warmupSeconds: number;
}): Promise<LimiterBenchRow[]> {
  const redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const prefix = `latchkey:bench:${randomBytes(4).toString('hex')}:`;
    const store = new RedisLimiterStore(redis, prefix);
    redis.defineCommand('benchOne', { numberOfKeys: 0, lua: 'return 1' });
    const one = (redis as unknown as { benchOne: () => Promise<number> }).benchOne.bind(redis);
    const ops: [string, Op][] = [
      ['ping', () => redis.ping()],
      ['script', () => one()],
      ['admit', (i) => store.take(`admit:${i % 1000}`, 1000, 10_000, Date.now())],
      ['refuse', () => store.take('refuse', 5, 10_000, Date.now())],
    ];
    for (const [, op] of ops) await runFor(op, opts.inFlight, opts.warmupSeconds * 1000);
    const counts = new Map(ops.map(([name]) => [name, 0]));
    const slice = (opts.seconds * 1000) / opts.rounds;
    for (let r = 0; r < opts.rounds; r++) {
      for (const [name, op] of ops) counts.set(name, counts.get(name)! + (await runFor(op, opts.inFlight, slice)));
    }
    const rate = (name: string) => counts.get(name)! / opts.seconds;
    return ops.map(([name]) => ({ name, perSecond: rate(name), vsPing: rate(name) / rate('ping'), vsScript: rate(name) / rate('script') }));
  } finally {
    redis.disconnect();
  }
}

export function limiterTable(rows: LimiterBenchRow[]): string {
  const lines = [
    ['operation', 'per second', 'vs ping', 'vs script'],
    ...rows.map((r) => [r.name, r.perSecond.toFixed(0), r.vsPing.toFixed(2), r.vsScript.toFixed(2)]),
  ];
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines.map((l) => l.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = process.env;
  const rows = await measureLimiter({
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    inFlight: Number(env.BENCH_CONNECTIONS ?? 10),
    seconds: Number(env.BENCH_DURATION ?? 8),
    rounds: Math.max(1, Number(env.BENCH_ROUNDS ?? 4)),
    warmupSeconds: Number(env.BENCH_WARMUP ?? 2),
  });
  process.stdout.write(`Limiter decisions on Redis, one connection, ${env.BENCH_CONNECTIONS ?? 10} in flight:\n\n${limiterTable(rows)}\n`);
}
