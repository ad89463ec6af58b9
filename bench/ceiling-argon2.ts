import argon2 from 'argon2';

/**
 * Ceiling of the password rows: argon2id hashes/s at the configured cost (PASSWORD_ARGON2_*,
 * OWASP's baseline by default) in this process, `BENCH_INFLIGHT` at once, for
 * BENCH_SECONDS. Run pinned to the servers' core; prints {"perSecond": n}. A verify costs
 * the same as a hash of the same parameters.
 */
const memoryCost = Number(process.env.PASSWORD_ARGON2_MEMORY_KIB ?? 19 * 1024);
const timeCost = Number(process.env.PASSWORD_ARGON2_TIME ?? 2);
const parallelism = Number(process.env.PASSWORD_ARGON2_PARALLELISM ?? 1);
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const inflight = Number(process.env.BENCH_INFLIGHT ?? 4);

const opts = { type: argon2.argon2id as 2, memoryCost, timeCost, parallelism };
await argon2.hash('warm up', opts);
const end = Date.now() + seconds * 1000;
let done = 0;
const started = Date.now();
await Promise.all(
  Array.from({ length: inflight }, async () => {
    while (Date.now() < end) {
      await argon2.hash(`bench passphrase ${done}`, opts);
      done++;
    }
  }),
);
process.stdout.write(`${JSON.stringify({ perSecond: done / ((Date.now() - started) / 1000), memoryCost, timeCost, parallelism })}\n`);
