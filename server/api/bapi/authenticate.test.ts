import { systemContext } from '../../http/actor';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { secretKeys } from '../../db/schema';
import { sharedHarness } from '../../testing/harness';
import { revokeSecretKey } from '../../keys/secret-keys';

const h = sharedHarness();
let instanceId: string;
beforeAll(async () => {
  ({ instanceId } = await h.createInstance());
});

const codeOf = (body: { errors: { code: string }[] }) => body.errors[0]!.code;

describe('BAPI authentication (contract rules 1–5)', () => {
  it('answers 401 UNAUTHENTICATED without a key', async () => {
    const res = await h.call('GET', '/v1/users');
    expect(res.status).toBe(401);
    expect(codeOf(res.body)).toBe('UNAUTHENTICATED');
  });

  it.each([
    ['Basic abc'],
    ['Bearer'],
    ['Bearer not-a-key'],
    ['Bearer sk_prod_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['Bearer sk_test_short'],
    ['Bearer pk_test_bG9jYWxob3N0JA'],
  ])('answers 401 UNAUTHENTICATED for a malformed header %s', async (authorization) => {
    const res = await h.call('GET', '/v1/users', { headers: { authorization } });
    expect(res.status).toBe(401);
    expect(codeOf(res.body)).toBe('UNAUTHENTICATED');
  });

  it('answers 401 INVALID_KEY for a well-formed unknown key, without echoing it', async () => {
    const unknown = 'sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const res = await h.request('GET', '/v1/users', { key: unknown });
    const text = await res.text();
    expect(res.status).toBe(401);
    expect(JSON.parse(text).errors[0].code).toBe('INVALID_KEY');
    expect(text).not.toContain(unknown.slice(8));
  });

  it('answers 401 INVALID_KEY once a key is revoked', async () => {
    const key = await h.createKey(instanceId, '*');
    expect((await h.call('GET', '/v1/users', { key: key.secret })).status).toBe(200);
    await revokeSecretKey(h.runtime.deps, key.id, systemContext('test'));
    const res = await h.call('GET', '/v1/users', { key: key.secret });
    expect(res.status).toBe(401);
    expect(codeOf(res.body)).toBe('INVALID_KEY');
  });

  it('sees a revocation made by another node within a second', async () => {
    const key = await h.createKey(instanceId, '*');
    expect((await h.call('GET', '/v1/users', { key: key.secret })).status).toBe(200);
    // Another node revokes: only the database changes, this node's cache is untouched.
    await h.runtime.deps.db.update(secretKeys).set({ revokedAt: h.clock.now() }).where(eq(secretKeys.id, key.id));
    h.clock.advance(1001);
    expect(codeOf((await h.call('GET', '/v1/users', { key: key.secret })).body)).toBe('INVALID_KEY');
  });

  it('answers 403 SCOPE_MISSING with meta.required_scope', async () => {
    const key = await h.createKey(instanceId, 'events:read');
    const res = await h.call('POST', '/v1/users', { key: key.secret, body: { email_address: ['x@example.com'] } });
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'users:write' } });
  });

  it('lets write imply read of the same resource, and nothing else', async () => {
    const key = await h.createKey(instanceId, 'users:write');
    expect((await h.call('GET', '/v1/users', { key: key.secret })).status).toBe(200);
    const events = await h.call('GET', '/v1/events', { key: key.secret });
    expect(events.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'events:read' } });
  });

  it('does not accept another instance’s key for this instance’s data', async () => {
    const other = await h.createInstance();
    const mine = await h.createKey(instanceId, '*');
    const created = await h.call('POST', '/v1/users', { key: mine.secret, body: { email_address: ['iso@example.com'] } });
    const res = await h.call('GET', `/v1/users/${created.body.id}`, { key: other.secret });
    expect(res.status).toBe(404);
  });

  it('records last_used_at', async () => {
    const key = await h.createKey(instanceId, '*');
    await h.call('GET', '/v1/users', { key: key.secret });
    await new Promise((r) => setTimeout(r, 50));
    const [row] = await h.runtime.deps.db.select().from(secretKeys).where(eq(secretKeys.id, key.id));
    expect(row!.lastUsedAt).toBe(h.clock.now());
  });
});

describe('per-key rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After past 100 requests in 10 s on a test instance', async () => {
    const key = await h.createKey(instanceId, '*');
    for (let i = 0; i < 100; i++) {
      const ok = await h.request('GET', '/v1/events', { key: key.secret });
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
    }
    const limited = await h.call('GET', '/v1/events', { key: key.secret });
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0].code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(limited.body.errors[0].meta.retry_after).toBe(retryAfter);

    // Another key of the same instance has its own budget.
    const other = await h.createKey(instanceId, '*');
    expect((await h.call('GET', '/v1/events', { key: other.secret })).status).toBe(200);

    h.clock.advance(retryAfter * 1000);
    expect((await h.call('GET', '/v1/events', { key: key.secret })).status).toBe(200);
  });

  it('allows 1000 requests per 10 s on a live instance', async () => {
    const live = await h.createInstance({ environment: 'live' });
    h.clock.advance(10_000 - (h.clock.now() % 10_000));
    for (let i = 0; i < 1000; i++) {
      const ok = await h.request('GET', '/v1/events', { key: live.secret });
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
    }
    expect((await h.call('GET', '/v1/events', { key: live.secret })).status).toBe(429);
  });
});
