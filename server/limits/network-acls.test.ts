import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { claimedConsole } from '../testing/console-client';
import { createHarness, type RequestOptions, type TestHarness } from '../testing/harness';
import { THROTTLED_AUDIT_MAX_PER_INTERVAL } from '../audit/throttled';
import { DENIAL_AUDIT_INTERVAL_MS } from './guard';
import { createDirectory } from '../testing/scim';

type Instance = Awaited<ReturnType<TestHarness['createInstance']>>;

/** `direct`: no proxy in front (the socket peer is the client). `proxied`: TRUST_PROXY with the default trusted proxies. */
let direct: TestHarness;
let proxied: TestHarness;

beforeAll(async () => {
  direct = await createHarness();
  proxied = await createHarness({ env: { TRUST_PROXY: '1' }, database: direct.runtime.database });
});
afterAll(async () => {
  await proxied.close();
  await direct.close();
});

const fapiSignIn = (h: TestHarness, i: Instance, o: RequestOptions = {}) =>
  h.call('POST', `/fapi/${i.instanceId}/v1/client/sign_ins`, {
    ...o,
    headers: { 'x-publishable-key': i.publishableKey, origin: 'http://localhost:3000', ...o.headers },
    body: { identifier: 'nobody@example.com' },
  });
const bapiUsers = (h: TestHarness, i: Instance, o: RequestOptions = {}) => h.call('GET', '/v1/users', { key: i.secret, ...o });
const addRule = async (h: TestHarness, i: Instance, body: Record<string, unknown>, o: RequestOptions = {}) => {
  const res = await h.call('POST', '/v1/network_acls', { key: i.secret, body, ...o });
  expect(res.status).toBe(200);
  return res.body as { id: string; cidr: string };
};
const ruleAudits = (h: TestHarness, i: Instance) =>
  h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.instanceId, i.instanceId), eq(auditLogs.action, 'network_acl.denied')));

describe('/v1/network_acls CRUD', () => {
  let I: Instance;
  beforeAll(async () => {
    I = await direct.createInstance();
  });

  it('creates, reads, lists, updates and deletes rules (canonical CIDR, acl_ ids), each audited', async () => {
    const created = await direct.call('POST', '/v1/network_acls', {
      key: I.secret,
      body: { action: 'deny', cidr: '2001:DB8:ABCD:12::7/48', surfaces: ['fapi', 'bapi', 'fapi'], description: 'abuse' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'network_acl',
      action: 'deny',
      cidr: '2001:db8:abcd::/48',
      surfaces: ['bapi', 'fapi'],
      description: 'abuse',
    });
    expect(created.body.id).toMatch(/^acl_[0-9A-Z]{26}$/);
    const id = created.body.id;
    expect((await direct.call('GET', `/v1/network_acls/${id}`, { key: I.secret })).body).toEqual(created.body);

    const second = await addRule(direct, I, { action: 'allow', cidr: '10.1.2.3/8', surfaces: ['fapi'] });
    expect(second).toMatchObject({ cidr: '10.0.0.0/8', surfaces: ['fapi'] });
    const page1 = await direct.call('GET', '/v1/network_acls?limit=1', { key: I.secret });
    expect(page1.body).toMatchObject({ data: [{ id: second.id }], has_more: true, next_cursor: second.id });
    const page2 = await direct.call('GET', `/v1/network_acls?limit=1&starting_after=${page1.body.next_cursor}`, { key: I.secret });
    expect(page2.body).toMatchObject({ data: [{ id }], has_more: false, next_cursor: null });

    const updated = await direct.call('PATCH', `/v1/network_acls/${id}`, {
      key: I.secret,
      body: { surfaces: ['fapi'], description: 'still abuse' },
    });
    expect(updated.body).toMatchObject({ id, surfaces: ['fapi'], description: 'still abuse', cidr: '2001:db8:abcd::/48' });
    expect((await direct.call('DELETE', `/v1/network_acls/${id}`, { key: I.secret })).body).toEqual({
      object: 'network_acl',
      id,
      deleted: true,
    });
    expect((await direct.call('GET', `/v1/network_acls/${id}`, { key: I.secret })).status).toBe(404);
    await direct.call('DELETE', `/v1/network_acls/${second.id}`, { key: I.secret });

    const actions = (await direct.runtime.deps.db.select().from(auditLogs).where(eq(auditLogs.target, id))).map((e) => e.action).sort();
    expect(actions).toEqual(['network_acl.created', 'network_acl.deleted', 'network_acl.updated']);
  });

  it('refuses malformed rules with clear 422s, and other instances’ rules are 404', async () => {
    const badCidr = await direct.call('POST', '/v1/network_acls', { key: I.secret, body: { action: 'deny', cidr: '10.0.0.0/33' } });
    expect(badCidr.status).toBe(422);
    expect(badCidr.body.errors[0].meta).toMatchObject({ param: 'cidr', reason: 'invalid_cidr' });
    const badSurface = await direct.call('POST', '/v1/network_acls', {
      key: I.secret,
      body: { action: 'deny', cidr: '10.0.0.0/8', surfaces: ['dashboard'] },
    });
    expect(badSurface.status).toBe(422);
    expect(badSurface.body.errors[0].meta.param).toBe('surfaces.0');
    const badAction = await direct.call('POST', '/v1/network_acls', { key: I.secret, body: { action: 'block', cidr: '10.0.0.0/8' } });
    expect(badAction.body.errors[0].meta).toMatchObject({ param: 'action', reason: 'invalid_value' });
    const noSurfaces = await direct.call('POST', '/v1/network_acls', {
      key: I.secret,
      body: { action: 'deny', cidr: '10.0.0.0/8', surfaces: [] },
    });
    expect(noSurfaces.status).toBe(422);

    const rule = await addRule(direct, I, { action: 'deny', cidr: '192.0.2.0/24', surfaces: ['fapi'] });
    const other = await direct.createInstance();
    expect((await direct.call('GET', `/v1/network_acls/${rule.id}`, { key: other.secret })).status).toBe(404);
    expect((await direct.call('DELETE', `/v1/network_acls/${rule.id}`, { key: other.secret })).status).toBe(404);
    const reader = await direct.createKey(I.instanceId, 'network_acls:read');
    const refused = await direct.call('POST', '/v1/network_acls', { key: reader.secret, body: { action: 'deny', cidr: '10.0.0.0/8' } });
    expect(refused.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'network_acls:write' } });
    await direct.call('DELETE', `/v1/network_acls/${rule.id}`, { key: I.secret });
  });
});

describe('the network ACL guard', () => {
  it('deny rules refuse their block on the surfaces they name with 403 IP_DENIED (IPv4 socket peer)', async () => {
    const I = await direct.createInstance();
    await addRule(direct, I, { action: 'deny', cidr: '198.51.100.0/24', surfaces: ['fapi'] });
    const denied = await fapiSignIn(direct, I, { remoteAddress: '198.51.100.7' });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0]).toMatchObject({ code: 'IP_DENIED', meta: { reason: 'denied_by_rule' } });
    // IPv4-mapped peers (dual-stack sockets) are the same address.
    expect((await fapiSignIn(direct, I, { remoteAddress: '::ffff:198.51.100.7' })).status).toBe(403);
    expect((await fapiSignIn(direct, I, { remoteAddress: '198.51.101.7' })).status).toBe(200);
    // The rule names the FAPI only.
    expect((await bapiUsers(direct, I, { remoteAddress: '198.51.100.7' })).status).toBe(200);
  });

  it('the OpenID Provider (token, discovery) is a surface of its own: its deny rules refuse there and nowhere else', async () => {
    const I = await direct.createInstance();
    await addRule(direct, I, { action: 'deny', cidr: '198.51.100.0/24', surfaces: ['oidc'] });
    const discovery = (remoteAddress: string) =>
      direct.call('GET', `/fapi/${I.instanceId}/.well-known/openid-configuration`, { remoteAddress });
    const token = await direct.call('POST', `/fapi/${I.instanceId}/oauth2/token`, {
      remoteAddress: '198.51.100.7',
      raw: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(403);
    expect((await discovery('198.51.100.7')).status).toBe(403);
    expect((await discovery('198.51.101.7')).status).toBe(200);
    expect((await fapiSignIn(direct, I, { remoteAddress: '198.51.100.7' })).status).toBe(200);
  });

  it('the SSO, LTI and SCIM surfaces are each a surface of their own: their deny rules refuse there before anything else', async () => {
    const { key, instanceId, token } = await createDirectory(direct, 'Acme', 'okta');
    const I = { instanceId, secret: key } as Instance;
    const fapiPath = (path: string) => `/fapi/${instanceId}${path}`;
    const calls = {
      // An unknown connection, a login without its parameters: what an allowed address gets is never a 403.
      sso: (remoteAddress: string) =>
        direct.request('GET', fapiPath('/sso/saml/ssoc_00000000000000000000000000/metadata'), { remoteAddress }),
      lti: (remoteAddress: string) => direct.request('GET', fapiPath('/lti/login'), { remoteAddress }),
      scim: (remoteAddress: string) => direct.request('GET', '/scim/v2/Users', { key: token, remoteAddress }),
    };
    const allowed = { sso: 404, lti: 400, scim: 200 };
    for (const surface of ['sso', 'lti', 'scim'] as const) {
      expect((await calls[surface]('198.51.100.7')).status, surface).toBe(allowed[surface]);
      const rule = await addRule(direct, I, { action: 'deny', cidr: '198.51.100.0/24', surfaces: [surface] });
      expect(rule).toMatchObject({ surfaces: [surface] });
      const denied = await calls[surface]('198.51.100.7');
      expect(denied.status, surface).toBe(403);
      expect(await denied.text(), surface).toContain('not allowed by this application’s network rules');
      expect((await calls[surface]('198.51.101.7')).status, surface).toBe(allowed[surface]);
      // The rule names this surface only.
      expect((await bapiUsers(direct, I, { remoteAddress: '198.51.100.7' })).status).toBe(200);
      await direct.call('DELETE', `/v1/network_acls/${rule.id}`, { key });
    }
    const audited = (await ruleAudits(direct, I)).map((e) => e.details);
    expect(audited).toEqual([
      { surface: 'sso', reason: 'denied_by_rule' },
      { surface: 'lti', reason: 'denied_by_rule' },
      { surface: 'scim', reason: 'denied_by_rule' },
    ]);
  });

  it('a rule made without surfaces covers every instance surface, SSO, LTI and SCIM included', async () => {
    const { key, instanceId, token } = await createDirectory(direct, 'Acme', 'okta');
    const created = await direct.call('POST', '/v1/network_acls', { key, body: { action: 'deny', cidr: '203.0.113.0/24' } });
    expect(created.body.surfaces).toEqual(['bapi', 'fapi', 'oidc', 'sso', 'lti', 'scim']);
    expect((await direct.request('GET', '/scim/v2/Users', { key: token, remoteAddress: '203.0.113.9' })).status).toBe(403);
    expect((await direct.request('GET', `/fapi/${instanceId}/lti/login`, { remoteAddress: '203.0.113.9' })).status).toBe(403);
    expect(
      (
        await direct.request('GET', `/fapi/${instanceId}/sso/saml/ssoc_00000000000000000000000000/metadata`, {
          remoteAddress: '203.0.113.9',
        })
      ).status,
    ).toBe(403);
    // SCIM discovery names no instance: no instance's rule applies to it.
    expect((await direct.request('GET', '/scim/v2/ServiceProviderConfig', { remoteAddress: '203.0.113.9' })).status).toBe(200);
  });

  it('IPv6: an allow rule admits only its block, and deny beats allow', async () => {
    const I = await direct.createInstance();
    await addRule(direct, I, { action: 'allow', cidr: '2001:db8:abcd::/48', surfaces: ['bapi'] });
    expect((await bapiUsers(direct, I, { remoteAddress: '2001:db8:abcd:1::5' })).status).toBe(200);
    const outside = await bapiUsers(direct, I, { remoteAddress: '2001:db8:ffff::1' });
    expect(outside.status).toBe(403);
    expect(outside.body.errors[0]).toMatchObject({ code: 'IP_DENIED', meta: { reason: 'not_in_allow_list' } });
    expect((await bapiUsers(direct, I, { remoteAddress: '203.0.113.1' })).status).toBe(403);
    // Managing rules goes through the BAPI too: from inside the allowed block.
    const deny = await addRule(
      direct,
      I,
      { action: 'deny', cidr: '2001:db8:abcd:1::/64', surfaces: ['bapi'] },
      { remoteAddress: '2001:db8:abcd:2::5' },
    );
    const denied = await bapiUsers(direct, I, { remoteAddress: '2001:db8:abcd:1::5' });
    expect(denied.body.errors[0].meta.reason).toBe('denied_by_rule');
    expect((await bapiUsers(direct, I, { remoteAddress: '2001:db8:abcd:2::5' })).status).toBe(200);
    // The FAPI has no allow rule: any address passes there.
    expect((await fapiSignIn(direct, I, { remoteAddress: '2001:db8:ffff::1' })).status).toBe(200);
    // Rules are read through the guard's cache: deleting the deny rule frees the address on this node at once.
    await direct.call('DELETE', `/v1/network_acls/${deny.id}`, { key: I.secret, remoteAddress: '2001:db8:abcd:2::5' });
    expect((await bapiUsers(direct, I, { remoteAddress: '2001:db8:abcd:1::5' })).status).toBe(200);
  });

  it('IPv6 on the FAPI: a /64 deny rule refuses its addresses, from the socket or behind a trusted proxy', async () => {
    const I = await direct.createInstance();
    await addRule(direct, I, { action: 'deny', cidr: '2001:db8:1:2::/64', surfaces: ['fapi'] });
    const denied = await fapiSignIn(direct, I, { remoteAddress: '2001:db8:1:2:aaaa::1' });
    expect(denied.body.errors[0]).toMatchObject({ code: 'IP_DENIED', meta: { reason: 'denied_by_rule' } });
    expect((await fapiSignIn(direct, I, { remoteAddress: '2001:db8:1:3::1' })).status).toBe(200);
    const viaProxy = { remoteAddress: 'fd00::2', headers: { 'x-forwarded-for': '2001:db8:1:2::99, fd00::7' } };
    expect((await fapiSignIn(proxied, I, viaProxy)).status).toBe(403);
    expect((await bapiUsers(direct, I, { remoteAddress: '2001:db8:1:2::99' })).status).toBe(200);
  });

  it('X-Forwarded-For is ignored without TRUST_PROXY: a denied peer cannot claim another address', async () => {
    const I = await direct.createInstance();
    await addRule(direct, I, { action: 'deny', cidr: '198.51.100.0/24' });
    const spoofed = await fapiSignIn(direct, I, { remoteAddress: '198.51.100.9', headers: { 'x-forwarded-for': '8.8.8.8' } });
    expect(spoofed.status).toBe(403);
    const bapiSpoofed = await bapiUsers(direct, I, { remoteAddress: '198.51.100.9', headers: { 'x-forwarded-for': '8.8.8.8' } });
    expect(bapiSpoofed.status).toBe(403);
    // Nor can an allowed peer get itself denied by naming a denied address.
    expect((await fapiSignIn(direct, I, { remoteAddress: '8.8.8.8', headers: { 'x-forwarded-for': '198.51.100.9' } })).status).toBe(200);
  });

  it('under TRUST_PROXY the client is the rightmost untrusted hop: hops the client prepends change nothing', async () => {
    const I = await proxied.createInstance();
    await addRule(proxied, I, { action: 'deny', cidr: '198.51.100.0/24' });
    // client 198.51.100.9 → proxy 10.0.0.2, which appends the client's address.
    const viaProxy = { remoteAddress: '10.0.0.2' };
    expect((await fapiSignIn(proxied, I, { ...viaProxy, headers: { 'x-forwarded-for': '198.51.100.9' } })).status).toBe(403);
    expect((await fapiSignIn(proxied, I, { ...viaProxy, headers: { 'x-forwarded-for': '8.8.8.8, 198.51.100.9' } })).status).toBe(403);
    expect((await fapiSignIn(proxied, I, { ...viaProxy, headers: { 'x-forwarded-for': '198.51.100.9, 10.0.0.7' } })).status).toBe(403);
    expect((await fapiSignIn(proxied, I, { ...viaProxy, headers: { 'x-forwarded-for': '198.51.100.9, 8.8.8.8' } })).status).toBe(200);
  });

  it('runs before rate limiting: a denied address spends no budget', async () => {
    const I = await direct.createInstance();
    await direct.call('PATCH', '/v1/rate_limit_policy', { key: I.secret, body: { sign_in_per_ip: 1 } });
    const rule = await addRule(direct, I, { action: 'deny', cidr: '203.0.113.0/24', surfaces: ['fapi'] });
    for (let i = 0; i < 4; i++) expect((await fapiSignIn(direct, I, { remoteAddress: '203.0.113.5' })).status).toBe(403);
    await direct.call('DELETE', `/v1/network_acls/${rule.id}`, { key: I.secret });
    expect((await fapiSignIn(direct, I, { remoteAddress: '203.0.113.5' })).status).toBe(200);
    expect((await fapiSignIn(direct, I, { remoteAddress: '203.0.113.5' })).status).toBe(429);
  });

  it('denials are counted in /metrics by instance and rule, and audited once a minute per address', async () => {
    const I = await direct.createInstance();
    const rule = await addRule(direct, I, { action: 'deny', cidr: '192.0.2.0/24', surfaces: ['bapi'] });
    for (let i = 0; i < 3; i++) await bapiUsers(direct, I, { remoteAddress: '192.0.2.10', headers: { 'user-agent': 'stuffer/1' } });
    const entries = await ruleAudits(direct, I);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: 'anonymous',
      target: rule.id,
      ip: '192.0.2.10',
      userAgent: 'stuffer/1',
      details: { surface: 'bapi', reason: 'denied_by_rule' },
    });
    await bapiUsers(direct, I, { remoteAddress: '192.0.2.11' });
    expect(await ruleAudits(direct, I)).toHaveLength(2);
    direct.clock.advance(DENIAL_AUDIT_INTERVAL_MS);
    await bapiUsers(direct, I, { remoteAddress: '192.0.2.10' });
    expect(await ruleAudits(direct, I)).toHaveLength(3);

    // Rotating addresses does not flood the log: at most 100 entries per instance and minute on a node.
    direct.clock.advance(DENIAL_AUDIT_INTERVAL_MS);
    for (let i = 0; i < 120; i++) await bapiUsers(direct, I, { remoteAddress: `192.0.2.${i + 100}` });
    expect(await ruleAudits(direct, I)).toHaveLength(3 + THROTTLED_AUDIT_MAX_PER_INTERVAL);

    const metrics = await (await direct.request('GET', '/metrics')).text();
    expect(metrics).toContain(`latchkey_network_acl_denials_total{surface="bapi",instance="${I.instanceId}",rule="${rule.id}"} 125`);
  });

  it('a rule change on one node is in force on another sharing the database within 5 seconds', async () => {
    const I = await direct.createInstance();
    const peer = { remoteAddress: '10.9.9.9', headers: { 'x-forwarded-for': '203.0.113.99' } };
    proxied.clock.advance(direct.clock.now() - proxied.clock.now());
    expect((await fapiSignIn(proxied, I, peer)).status).toBe(200);
    await addRule(direct, I, { action: 'deny', cidr: '203.0.113.99' });
    proxied.clock.advance(4_000);
    expect((await fapiSignIn(proxied, I, peer)).status).toBe(403);
  });

  it('never applies to the dashboard API: an operator cannot lock themselves out', async () => {
    const owner = await claimedConsole(direct);
    const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, {
      body: { name: 'Locked', environment: 'test' },
    });
    const base = `/accounts/${owner.accountId}/instances/${instance.body.id}/network_acls`;
    const created = await owner.b.dash('POST', base, { body: { action: 'allow', cidr: '192.0.2.1/32', description: 'office only' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'network_acl',
      action: 'allow',
      cidr: '192.0.2.1/32',
      surfaces: ['bapi', 'fapi', 'oidc', 'sso', 'lti', 'scim'],
    });
    await owner.b.dash('POST', base, { body: { action: 'deny', cidr: '0.0.0.0/0' } });
    // The dashboard answers any address; its list shows both rules.
    const listed = await direct.call('GET', `/v1/dashboard${base}`, {
      remoteAddress: '203.0.113.200',
      headers: { cookie: `__console_client=${owner.b.cookie}` },
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
  });
});
