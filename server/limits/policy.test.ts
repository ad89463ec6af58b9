import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { createHarness, type TestHarness } from '../testing/harness';
import { claimedConsole } from '../testing/console-client';
import { POLICY_CACHE_TTL_MS } from './policy';

let h: TestHarness;
let A: Awaited<ReturnType<TestHarness['createInstance']>>;

beforeAll(async () => {
  h = await createHarness({ env: { TRUST_PROXY: '1' } });
  A = await h.createInstance();
});
afterAll(() => h.close());

/** A browser at `ip` (behind our proxy) creating a sign-in on instance `i`. */
const createSignIn = (i: typeof A, ip: string) =>
  h.call('POST', `/fapi/${i.instanceId}/v1/client/sign_ins`, {
    headers: { 'x-forwarded-for': ip, 'x-publishable-key': i.publishableKey, origin: 'http://localhost:3000' },
    body: { identifier: 'nobody@example.com' },
  });

/** Moves the clock to `offset` ms before the next multiple of `windowMs`: where a fixed window would reset. */
function toBoundary(clock: TestHarness['clock'], windowMs: number, offset: number) {
  const to = windowMs - (clock.now() % windowMs) - offset;
  clock.advance(to < 0 ? to + windowMs : to); // never backwards
}

describe('GET/PATCH /v1/rate_limit_policy', () => {
  it('shows every budget with its value, default and bounds', async () => {
    const res = await h.call('GET', '/v1/rate_limit_policy', { key: A.secret });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'rate_limit_policy', updated_at: null });
    expect(res.body.budgets).toEqual({
      sign_in_per_ip: expect.objectContaining({ limit: 5, default: 5, min: 1, max: 5, window_seconds: 10, per: 'ip' }),
      sign_up_per_ip: expect.objectContaining({ limit: 5, default: 5, min: 1, max: 5, window_seconds: 10, per: 'ip' }),
      attempts_per_ip: expect.objectContaining({ limit: 3, default: 3, min: 1, max: 3, window_seconds: 10, per: 'ip' }),
      verification_sends_per_ip: expect.objectContaining({ limit: 5, default: 5, min: 1, max: 5, window_seconds: 10, per: 'ip' }),
      federation_per_ip: expect.objectContaining({ limit: 50, default: 50, min: 1, max: 50, window_seconds: 10, per: 'ip' }),
      invitations_per_user: expect.objectContaining({ limit: 20, default: 20, min: 1, max: 20, window_seconds: 3600, per: 'user' }),
      invitations_per_organization: expect.objectContaining({
        limit: 100,
        default: 100,
        min: 1,
        max: 100,
        window_seconds: 86_400,
        per: 'organization',
      }),
      sms_per_number: expect.objectContaining({ limit: 10, default: 10, min: 1, max: 10, window_seconds: 3600, per: 'phone_number' }),
      sms_per_country: expect.objectContaining({ limit: 100, default: 100, min: 1, max: 100, window_seconds: 3600, per: 'country_code' }),
      bapi_per_key: expect.objectContaining({ limit: 100, default: 100, min: 1, max: 100, window_seconds: 10, per: 'key' }),
    });
    const live = await h.createInstance({ environment: 'live' });
    const liveRes = await h.call('GET', '/v1/rate_limit_policy', { key: live.secret });
    expect(liveRes.body.budgets.bapi_per_key).toMatchObject({ limit: 1000, default: 1000, max: 1000 });
    expect(liveRes.body.budgets.sms_per_country).toMatchObject({ limit: 1000, default: 1000, max: 1000 });
  });

  it('may only tighten: above the default or below 1 is 422 naming the budget and its bounds', async () => {
    const above = await h.call('PATCH', '/v1/rate_limit_policy', { key: A.secret, body: { sign_in_per_ip: 6 } });
    expect(above.status).toBe(422);
    expect(above.body.errors[0]).toMatchObject({
      code: 'VALIDATION_FAILED',
      meta: { param: 'sign_in_per_ip', reason: 'too_big', min: 1, max: 5 },
    });
    const zero = await h.call('PATCH', '/v1/rate_limit_policy', { key: A.secret, body: { bapi_per_key: 0 } });
    expect(zero.status).toBe(422);
    expect(zero.body.errors[0]).toMatchObject({
      code: 'VALIDATION_FAILED',
      meta: { param: 'bapi_per_key', reason: 'too_small', min: 1, max: 100 },
    });
    const unknown = await h.call('PATCH', '/v1/rate_limit_policy', { key: A.secret, body: { everything: 1 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].meta).toMatchObject({ param: 'everything', reason: 'unknown_field' });
    const fractional = await h.call('PATCH', '/v1/rate_limit_policy', { key: A.secret, body: { attempts_per_ip: 1.5 } });
    expect(fractional.status).toBe(422);
    expect(fractional.body.errors[0].meta.param).toBe('attempts_per_ip');
    // Nothing was stored by a refused patch.
    expect((await h.call('GET', '/v1/rate_limit_policy', { key: A.secret })).body.updated_at).toBeNull();
  });

  it('needs rate_limit:read to read and rate_limit:write to change', async () => {
    const reader = await h.createKey(A.instanceId, 'rate_limit:read');
    expect((await h.call('GET', '/v1/rate_limit_policy', { key: reader.secret })).status).toBe(200);
    const refused = await h.call('PATCH', '/v1/rate_limit_policy', { key: reader.secret, body: { sign_in_per_ip: 1 } });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'rate_limit:write' } });
    const other = await h.createKey(A.instanceId, 'users:read');
    expect((await h.call('GET', '/v1/rate_limit_policy', { key: other.secret })).body.errors[0].meta.required_scope).toBe(
      'rate_limit:read',
    );
  });

  it('cross-site sign-in steps (LTI, SSO, social callbacks) share one per-IP budget', async () => {
    const I = await h.createInstance();
    expect((await h.call('PATCH', '/v1/rate_limit_policy', { key: I.secret, body: { federation_per_ip: 2 } })).status).toBe(200);
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    const lti = (ip: string) =>
      h.request(
        'GET',
        `/fapi/${I.instanceId}/lti/login?iss=https://lms.example.com&login_hint=x&target_link_uri=https://app.example.com`,
        from(ip),
      );
    const sso = (ip: string) => h.request('GET', `/fapi/${I.instanceId}/sso/oidc/ssoc_unknown/callback?state=x&code=y`, from(ip));
    const social = (ip: string) => h.request('GET', `/fapi/${I.instanceId}/v1/oauth_callback?state=x&code=y`, from(ip));
    // Unknown platform, connection and flow: refused, but each counted first.
    expect((await lti('198.51.100.40')).status).toBe(400);
    expect((await sso('198.51.100.40')).status).not.toBe(429);
    expect((await social('198.51.100.40')).status).toBe(429);
    expect((await lti('198.51.100.40')).status).toBe(429);
    expect((await sso('198.51.100.41')).status).not.toBe(429);
  });

  it('a tightened FAPI budget applies at once, is audited, and null restores the default', async () => {
    const I = await h.createInstance();
    const patched = await h.call('PATCH', '/v1/rate_limit_policy', { key: I.secret, body: { sign_in_per_ip: 2 } });
    expect(patched.status).toBe(200);
    expect(patched.body.budgets.sign_in_per_ip).toMatchObject({ limit: 2, default: 5 });
    expect(patched.body.updated_at).toBe(h.clock.now());

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await createSignIn(I, '198.51.100.20')).status);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await createSignIn(I, '198.51.100.20');
    expect(refused.body.errors[0]).toMatchObject({ code: 'RATE_LIMITED', meta: { retry_after: expect.any(Number) } });
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.errors[0].meta.retry_after));
    // Another address has its own budget.
    expect((await createSignIn(I, '198.51.100.21')).status).toBe(200);

    // Two refusals: one audit entry a minute per budget and address, and both counted by instance.
    const exceeded = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, I.instanceId), eq(auditLogs.action, 'rate_limit.exceeded')));
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]).toMatchObject({
      actor: 'anonymous',
      ip: '198.51.100.20',
      details: { surface: 'fapi', budget: 'sign_in_per_ip', limit: 2, window_seconds: 10 },
    });
    const metrics = await (await h.request('GET', '/metrics')).text();
    expect(metrics).toContain(`latchkey_rate_limit_rejections_total{surface="fapi",limit="fapi_sign_in",instance="${I.instanceId}"} 2`);

    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, I.instanceId), eq(auditLogs.action, 'rate_limit_policy.updated')));
    expect(entry).toMatchObject({ actor: `key:${I.keyId}`, target: I.instanceId, details: { before: {}, after: { sign_in_per_ip: 2 } } });

    const restored = await h.call('PATCH', '/v1/rate_limit_policy', { key: I.secret, body: { sign_in_per_ip: null } });
    expect(restored.body.budgets.sign_in_per_ip.limit).toBe(5);
    // The budgets may also be nested as GET shows them.
    const nested = await h.call('PATCH', '/v1/rate_limit_policy', { key: I.secret, body: { budgets: { sign_up_per_ip: 4 } } });
    expect(nested.body.budgets.sign_up_per_ip.limit).toBe(4);
    const nestedTooBig = await h.call('PATCH', '/v1/rate_limit_policy', { key: I.secret, body: { budgets: { sign_up_per_ip: 40 } } });
    expect(nestedTooBig.body.errors[0].meta).toMatchObject({ param: 'sign_up_per_ip', reason: 'too_big', min: 1, max: 5 });
  });

  it('BAPI per key: a burst across a fixed-window boundary gets the budget once', async () => {
    const I = await h.createInstance();
    await h.call('PATCH', '/v1/rate_limit_policy', { key: I.secret, body: { bapi_per_key: 3 } });
    h.clock.advance(10_000); // the PATCH itself spent one hit of the key's budget
    toBoundary(h.clock, 10_000, 300);
    const before = [];
    for (let i = 0; i < 3; i++) before.push((await h.call('GET', '/v1/users', { key: I.secret })).status);
    h.clock.advance(400); // past the boundary
    const after = await h.call('GET', '/v1/users', { key: I.secret });
    expect(before).toEqual([200, 200, 200]);
    expect(after.status).toBe(429);
    expect(after.headers.get('ratelimit-limit')).toBe('3');
    h.clock.advance(10_000);
    expect((await h.call('GET', '/v1/users', { key: I.secret })).status).toBe(200);
  });

  it('FAPI per IP: a burst across a fixed-window boundary gets the budget once', async () => {
    const I = await h.createInstance();
    toBoundary(h.clock, 10_000, 200);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await createSignIn(I, '203.0.113.40')).status);
    h.clock.advance(300);
    for (let i = 0; i < 5; i++) statuses.push((await createSignIn(I, '203.0.113.40')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
    h.clock.advance(10_000);
    expect((await createSignIn(I, '203.0.113.40')).status).toBe(200);
  });

  it('the console reads and tightens the same policy', async () => {
    const owner = await claimedConsole(h);
    const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, {
      body: { name: 'Limits', environment: 'test' },
    });
    const base = `/accounts/${owner.accountId}/instances/${instance.body.id}/rate_limit_policy`;
    expect((await owner.b.dash('GET', base)).body.budgets.attempts_per_ip.limit).toBe(3);
    const patched = await owner.b.dash('PATCH', base, { body: { attempts_per_ip: 2 } });
    expect(patched.status).toBe(200);
    expect(patched.body.budgets.attempts_per_ip.limit).toBe(2);
    const refused = await owner.b.dash('PATCH', base, { body: { attempts_per_ip: 4 } });
    expect(refused.body.errors[0].meta).toMatchObject({ param: 'attempts_per_ip', min: 1, max: 3 });
  });
});

describe('a policy change on one node', () => {
  it('is in force on a second node sharing the database within 5 seconds', async () => {
    const second = await createHarness({ env: { TRUST_PROXY: '1' }, database: h.runtime.database });
    try {
      const I = await h.createInstance();
      second.clock.advance(h.clock.now() - second.clock.now());
      // The second node reads (and caches) the default policy.
      expect((await second.call('GET', '/v1/users', { key: I.secret })).headers.get('ratelimit-limit')).toBe('100');
      expect((await h.call('PATCH', '/v1/rate_limit_policy', { key: I.secret, body: { bapi_per_key: 2 } })).status).toBe(200);
      second.clock.advance(POLICY_CACHE_TTL_MS);
      expect(POLICY_CACHE_TTL_MS).toBeLessThanOrEqual(5_000);
      const seen = await second.call('GET', '/v1/users', { key: I.secret });
      expect(seen.headers.get('ratelimit-limit')).toBe('2');
      expect((await second.call('GET', '/v1/users', { key: I.secret })).status).toBe(429);
    } finally {
      await second.close();
    }
  });
});
