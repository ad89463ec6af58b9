import { beforeAll, describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';

// Hundreds of requests on one key: the rate limit is not what is under test here.
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });

type Page = { data: { id: string; object: string }[]; has_more: boolean; next_cursor: string | null };

let seq = 0;
async function createUsers(key: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await h.call('POST', '/v1/users', { key, body: { username: `page_user_${++seq}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(res.body.id);
  }
  return ids;
}

async function page(key: string, qs: string): Promise<Page> {
  const res = await h.call('GET', `/v1/users${qs}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
  // next_cursor is null exactly when has_more is false.
  if (res.body.has_more) expect(res.body.next_cursor).toEqual(expect.any(String));
  else expect(res.body.next_cursor).toBeNull();
  return res.body;
}

/** Walks every page; `between` runs after each page with the page just read. */
async function walk(key: string, opts: { limit: number; order?: string; between?: (p: Page, i: number) => Promise<void> }) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const params = new URLSearchParams({ limit: String(opts.limit) });
    if (opts.order) params.set('order_by', opts.order);
    if (cursor) params.set('starting_after', cursor);
    const p = await page(key, `?${params}`);
    expect(p.data.length).toBeLessThanOrEqual(opts.limit);
    seen.push(...p.data.map((u) => u.id));
    pages++;
    expect(pages).toBeLessThan(1000);
    if (!p.has_more) break;
    expect(p.data.length).toBe(opts.limit);
    expect(p.next_cursor).toBe(p.data.at(-1)!.id);
    cursor = p.next_cursor;
    await opts.between?.(p, pages);
  }
  return { seen, pages };
}

const newestFirst = (ids: string[]) => [...ids].sort().reverse();

describe('cursor pagination over /v1/users', () => {
  let key: string;
  let all: string[];
  beforeAll(async () => {
    ({ secret: key } = await h.createInstance());
    all = await createUsers(key, 105);
  });

  it('pages hold 20 by default', async () => {
    const p = await page(key, '');
    expect(p.data).toHaveLength(20);
    expect(p.has_more).toBe(true);
    expect(p.data.map((u) => u.id)).toEqual(newestFirst(all).slice(0, 20));
  });

  it('clamps limit to 100', async () => {
    const p = await page(key, '?limit=500');
    expect(p.data).toHaveLength(100);
    expect(p.has_more).toBe(true);
    const exact = await page(key, '?limit=100');
    expect(exact.data).toHaveLength(100);
    const rest = await page(key, `?limit=500&starting_after=${p.next_cursor}`);
    expect(rest.data).toHaveLength(5);
    expect(rest.has_more).toBe(false);
    expect(rest.next_cursor).toBeNull();
  });

  it('honours small limits', async () => {
    const p = await page(key, '?limit=1');
    expect(p.data).toHaveLength(1);
    expect(p.data[0]!.id).toBe(newestFirst(all)[0]);
  });

  it('refuses limit=0, a negative, a fraction or a non-number with 422 naming limit', async () => {
    for (const limit of ['0', '-1', '2.5', 'abc', '']) {
      const res = await h.call('GET', `/v1/users?limit=${limit}`, { key });
      expect(res.status, `limit=${limit}`).toBe(422);
      expect(res.body).toEqual({ errors: expect.any(Array), trace_id: expect.any(String) });
      expect(res.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.any(String), meta: { param: 'limit' } });
    }
  });

  it('refuses an over-long cursor', async () => {
    const res = await h.call('GET', `/v1/users?starting_after=${'x'.repeat(65)}`, { key });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].meta.param).toBe('starting_after');
  });

  it('walking pages returns every user exactly once, newest first', async () => {
    for (const limit of [7, 20, 100]) {
      const { seen, pages } = await walk(key, { limit });
      expect(seen).toEqual(newestFirst(all));
      expect(pages).toBe(Math.ceil(all.length / limit));
    }
  });

  it('walking oldest first returns every user exactly once', async () => {
    const { seen } = await walk(key, { limit: 10, order: 'created_at' });
    expect(seen).toEqual([...all].sort());
  });

  it('an exact multiple of the limit ends with has_more false and no empty page', async () => {
    const { secret } = await h.createInstance();
    const ids = await createUsers(secret, 6);
    const first = await page(secret, '?limit=3');
    expect(first.has_more).toBe(true);
    const second = await page(secret, `?limit=3&starting_after=${first.next_cursor}`);
    expect(second.data.map((u) => u.id)).toEqual(newestFirst(ids).slice(3));
    expect(second.has_more).toBe(false);
    expect(second.next_cursor).toBeNull();
  });

  it('an empty list', async () => {
    const { secret } = await h.createInstance();
    expect(await page(secret, '')).toEqual({ data: [], has_more: false, next_cursor: null });
  });
});

describe('stable under concurrent inserts and deletes', () => {
  for (const order of [undefined, 'created_at'] as const) {
    it(`never repeats or skips a user that existed throughout (${order ?? '-created_at'})`, async () => {
      const { secret: key } = await h.createInstance();
      const initial = await createUsers(key, 60);
      const expectedOrder = order === 'created_at' ? [...initial].sort() : newestFirst(initial);
      const deleted = new Set<string>();
      const deletedAhead = new Set<string>();
      const inserted: string[] = [];
      const read = new Set<string>();

      const { seen } = await walk(key, {
        limit: 8,
        order,
        between: async (p, i) => {
          // New users arrive while the client is paging.
          inserted.push(...(await createUsers(key, 3)));
          // Users on a later page are deleted.
          for (const u of p.data) read.add(u.id);
          // Keyset order: every initial user not read yet is on a later page.
          const later = expectedOrder.filter((id) => !deleted.has(id) && !read.has(id));
          for (const id of [later[2], later[9]].filter((x): x is string => x !== undefined)) {
            const res = await h.call('DELETE', `/v1/users/${id}`, { key });
            expect(res.status).toBe(200);
            deleted.add(id);
            deletedAhead.add(id);
          }
          // Every other page, the cursor user itself is deleted: the cursor stays valid.
          if (i % 2 === 0) {
            const cursorId = p.next_cursor!;
            const res = await h.call('DELETE', `/v1/users/${cursorId}`, { key });
            expect(res.status).toBe(200);
            deleted.add(cursorId);
          }
        },
      });

      // No repeats.
      expect(new Set(seen).size).toBe(seen.length);
      // Every user that existed throughout is seen, in order.
      const survivors = expectedOrder.filter((id) => !deleted.has(id));
      expect(seen.filter((id) => initial.includes(id))).toEqual(expectedOrder.filter((id) => seen.includes(id)));
      for (const id of survivors) expect(seen).toContain(id);
      // A user deleted before its page was read is not shown.
      expect(deletedAhead.size).toBeGreaterThan(5);
      for (const id of deletedAhead) expect(seen).not.toContain(id);
      // Anything else shown was inserted during the walk (only possible oldest first).
      for (const id of seen.filter((x) => !initial.includes(x))) expect(inserted).toContain(id);
      if (order === undefined) expect(seen.filter((x) => inserted.includes(x))).toEqual([]);
      expect(deleted.size).toBeGreaterThan(5);
    });
  }
});
