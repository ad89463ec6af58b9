import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { claimedConsole, invitedViewer, type ConsoleBrowser } from '../testing/console-client';
import { createHarness, type TestHarness } from '../testing/harness';
import { createApiHandler } from '../api';
import { createRuntime } from '../runtime';
import { fapiClient } from '../testing/fapi-client';

let h: TestHarness;
let A: Awaited<ReturnType<TestHarness['createInstance']>>;

beforeAll(async () => {
  h = await createHarness();
  A = await h.createInstance();
});
afterAll(() => h.close());

const DEFAULTS = {
  object: 'attack_protection',
  user_lockout: { enabled: true, max_attempts: 10, window_minutes: 60, lockout_minutes: 60 },
  breached_passwords: { enabled: true, range_api_url: null },
};

const auditOf = (action: string) =>
  h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.instanceId, A.instanceId), eq(auditLogs.action, action)));

describe('GET/PATCH /v1/attack_protection', () => {
  it('shows the defaults, then merges a partial change and audits it', async () => {
    expect(await h.call('GET', '/v1/attack_protection', { key: A.secret })).toMatchObject({ status: 200, body: DEFAULTS });
    const patched = await h.call('PATCH', '/v1/attack_protection', {
      key: A.secret,
      body: {
        user_lockout: { max_attempts: 5, lockout_minutes: 15 },
        breached_passwords: { range_api_url: 'https://api.pwnedpasswords.com/range' },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      object: 'attack_protection',
      user_lockout: { enabled: true, max_attempts: 5, window_minutes: 60, lockout_minutes: 15 },
      breached_passwords: { enabled: true, range_api_url: 'https://api.pwnedpasswords.com/range' },
    });
    expect((await h.call('GET', '/v1/attack_protection', { key: A.secret })).body).toEqual(patched.body);
    // A later change keeps the earlier one.
    const off = await h.call('PATCH', '/v1/attack_protection', {
      key: A.secret,
      body: { breached_passwords: { enabled: false, range_api_url: null } },
    });
    expect(off.body).toMatchObject({ user_lockout: { max_attempts: 5 }, breached_passwords: { enabled: false, range_api_url: null } });
    const entries = await auditOf('attack_protection.updated');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ actor: `key:${A.keyId}`, target: A.instanceId });
  });

  it('refuses values out of bounds, unknown fields and odd URLs with 422 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ user_lockout: { max_attempts: 2 } }, 'user_lockout.max_attempts'],
      [{ user_lockout: { max_attempts: 101 } }, 'user_lockout.max_attempts'],
      [{ user_lockout: { lockout_minutes: 0 } }, 'user_lockout.lockout_minutes'],
      [{ user_lockout: { window_minutes: 1.5 } }, 'user_lockout.window_minutes'],
      [{ user_lockout: { enabled: 'yes' } }, 'user_lockout.enabled'],
      [{ breached_passwords: { range_api_url: 'ftp://example.com/range' } }, 'breached_passwords.range_api_url'],
      [{ breached_passwords: { range_api_url: 'https://user:pw@example.com/range' } }, 'breached_passwords.range_api_url'],
      [{ surprise: true }, 'surprise'],
    ];
    for (const [body, param] of cases) {
      const res = await h.call('PATCH', '/v1/attack_protection', { key: A.secret, body });
      expect(res.status, param).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param } });
    }
  });

  it('needs attack_protection:read to read and :write to change', async () => {
    const reader = await h.createKey(A.instanceId, 'attack_protection:read');
    expect((await h.call('GET', '/v1/attack_protection', { key: reader.secret })).status).toBe(200);
    const denied = await h.call('PATCH', '/v1/attack_protection', { key: reader.secret, body: {} });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'attack_protection:write' } });
    const other = await h.createKey(A.instanceId, 'users:read');
    expect((await h.call('GET', '/v1/attack_protection', { key: other.secret })).status).toBe(403);
  });
});

describe('GET/PATCH /v1/risk_based_mfa', () => {
  it('is off by default; turning it on is audited; scopes apply', async () => {
    expect(await h.call('GET', '/v1/risk_based_mfa', { key: A.secret })).toMatchObject({
      status: 200,
      body: { object: 'risk_based_mfa', enabled: false, geoip_enabled: false },
    });
    const on = await h.call('PATCH', '/v1/risk_based_mfa', { key: A.secret, body: { enabled: true } });
    expect(on.body).toEqual({ object: 'risk_based_mfa', enabled: true, geoip_enabled: false });
    expect((await h.call('GET', '/v1/risk_based_mfa', { key: A.secret })).body.enabled).toBe(true);
    expect(await auditOf('risk_based_mfa.updated')).toHaveLength(1);
    expect((await h.call('PATCH', '/v1/risk_based_mfa', { key: A.secret, body: { enabled: 1 } })).status).toBe(422);
    const reader = await h.createKey(A.instanceId, 'risk_based_mfa:read');
    expect((await h.call('PATCH', '/v1/risk_based_mfa', { key: reader.secret, body: { enabled: false } })).status).toBe(403);
  });
});

describe('dashboard API', () => {
  let owner: Awaited<ReturnType<typeof claimedConsole>>;
  let viewer: ConsoleBrowser;
  let base: string;

  beforeAll(async () => {
    owner = await claimedConsole(h);
    const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, {
      body: { name: 'Guarded', environment: 'test' },
    });
    base = `/accounts/${owner.accountId}/instances/${instance.body.id}`;
    viewer = await invitedViewer(h, owner);
  });

  it('an admin reads and changes both settings; a viewer only reads', async () => {
    expect((await viewer.dash('GET', `${base}/attack_protection`)).body).toEqual(DEFAULTS);
    expect((await viewer.dash('PATCH', `${base}/attack_protection`, { body: { user_lockout: { enabled: false } } })).status).toBe(403);
    const changed = await owner.b.dash('PATCH', `${base}/attack_protection`, { body: { user_lockout: { enabled: false } } });
    expect(changed.status).toBe(200);
    expect(changed.body.user_lockout.enabled).toBe(false);
    const rbm = await owner.b.dash('PATCH', `${base}/risk_based_mfa`, { body: { enabled: true } });
    expect(rbm.body).toMatchObject({ enabled: true });
    expect((await viewer.dash('GET', `${base}/risk_based_mfa`)).body.enabled).toBe(true);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'risk_based_mfa.updated'), eq(auditLogs.instanceId, base.split('/').at(-1)!)));
    expect(entry!.actor).toBe(`operator:${owner.operator.id}`);
  });
});

describe('a change on one node', () => {
  it('is in force on another node (its own caches, the same database) within 5 seconds', async () => {
    const node2 = await createRuntime(h.runtime.deps.config, { database: h.runtime.database, clock: h.clock });
    const handler = createApiHandler(node2);
    const onNode2 = {
      ...h,
      request: (method: string, path: string, o: { headers?: Record<string, string>; body?: unknown } = {}) =>
        handler(
          new Request(`http://localhost:3000${path}`, {
            method,
            headers: { 'content-type': 'application/json', ...o.headers },
            body: o.body === undefined ? undefined : JSON.stringify(o.body),
          }),
        ),
    } as TestHarness;
    try {
      const I = await h.createInstance();
      await h.call('PATCH', '/v1/attack_protection', { key: I.secret, body: { user_lockout: { enabled: false, max_attempts: 3 } } });
      await h.call('POST', '/v1/users', { key: I.secret, body: { email_address: ['node@example.com'], password: 'a long passphrase' } });
      const guess = () =>
        fapiClient(onNode2, I.instanceId, { publishableKey: I.publishableKey }).call('POST', '/v1/client/sign_ins', {
          body: { identifier: 'node@example.com', password: 'a wrong passphrase' },
        });
      for (let i = 0; i < 3; i++) expect((await guess()).body.errors[0].code).toBe('CREDENTIALS_INVALID'); // node 2 has cached "off"
      await h.call('PATCH', '/v1/attack_protection', { key: I.secret, body: { user_lockout: { enabled: true } } });
      h.clock.advance(5_000);
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await guess()).body.errors[0].code);
      expect(codes).toEqual(['CREDENTIALS_INVALID', 'CREDENTIALS_INVALID', 'USER_LOCKED']);
    } finally {
      await node2.deps.passwords.close();
    }
  });
});
