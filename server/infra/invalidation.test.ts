import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../db/client';
import { createLogger } from './logger';
import { createCacheInvalidation, PG_INVALIDATION_CHANNEL, type CacheInvalidation } from './invalidation';
import { CacheRegistry } from './ttl-cache';
import { processDatabase } from '../testing/processes';

/** Two nodes on one PostgreSQL database without Redis: invalidations travel by LISTEN/NOTIFY. */
const pg = await processDatabase('cache-notify');
const logger = createLogger('silent');
const nodes: { caches: CacheRegistry; database: Database; inv: CacheInvalidation }[] = [];

describe.skipIf(!pg.available)('cache invalidation over PostgreSQL LISTEN/NOTIFY', () => {
  beforeAll(async () => {
    await pg.create();
    for (let n = 0; n < 2; n++) {
      const caches = new CacheRegistry();
      const database = openPostgres(pg.dbUrl, { max: 2 });
      nodes.push({ caches, database, inv: createCacheInvalidation(caches, { publisher: null, logger, database }) });
    }
    await Promise.all(nodes.map((n) => n.inv.ready));
  });
  afterAll(async () => {
    for (const n of nodes) {
      n.inv.close();
      await n.database.close();
    }
    await pg.drop();
  });

  it('an entry dropped on one node is dropped on the other within a second, other entries stay', async () => {
    const now = Date.now();
    for (const n of nodes) {
      n.caches.get<string>('settings', 60_000).set('ins_a', 'stale', now);
      n.caches.get<string>('settings', 60_000).set('ins_b', 'kept', now);
    }
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    a.inv.invalidate('settings', 'ins_a');
    // At once on the node that changed it…
    expect(a.caches.get<string>('settings', 60_000).get('ins_a', now)).toBeUndefined();
    // …and through NOTIFY on the other.
    await expect.poll(() => b.caches.get<string>('settings', 60_000).get('ins_a', now), { timeout: 1000, interval: 20 }).toBeUndefined();
    expect(b.caches.get<string>('settings', 60_000).get('ins_b', now)).toBe('kept');
  });

  it("several entries in one message (invalidateMany), past one NOTIFY payload's worth of keys", async () => {
    const now = Date.now();
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const keys = Array.from({ length: 250 }, (_, n) => `sess_${String(n).padStart(26, '0')}`);
    for (const k of [...keys, 'sess_kept']) b.caches.get<string>('session-state', 60_000).set(k, 'live', now);
    a.inv.invalidateMany('session-state', keys);
    await expect
      .poll(() => keys.filter((k) => b.caches.get<string>('session-state', 60_000).get(k, now) !== undefined).length, {
        timeout: 1000,
        interval: 20,
      })
      .toBe(0);
    expect(b.caches.get<string>('session-state', 60_000).get('sess_kept', now)).toBe('live');
  });

  it('a payload that is not ours is ignored', async () => {
    const now = Date.now();
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    b.caches.get<string>('settings', 60_000).set('ins_c', 'v', now);
    await a.database.db.execute(sql`select pg_notify(${PG_INVALIDATION_CHANNEL}, 'not json')`);
    a.inv.invalidate('settings', 'ins_c');
    await expect.poll(() => b.caches.get<string>('settings', 60_000).get('ins_c', now), { timeout: 1000, interval: 20 }).toBeUndefined();
  });
});
