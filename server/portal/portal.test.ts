import { Resolver } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../testing/expect';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { startDnsServer, type DnsServer } from '../testing/dns-server';
import { eventsDuring } from '../testing/auth-flows';
import { makeSamlIdp, samlIdpFor } from '../testing/saml-idp';
import { scimCaller } from '../testing/scim';
import { signedInClient } from '../testing/fapi-helpers';
import { browseUntil, openOidcIdp } from '../testing/social-idps';

/**
 * The admin portal (issue 49) over HTTP: links from the BAPI, the FAPI and the dashboard's
 * table; the browser's portal session (single-use link, cookie, sliding hour); a session
 * touching only its organization and intent; domain verification through a real DNS lookup
 * (a DNS server on loopback); SAML set up, tested and activated; the directory's token;
 * the organization's audit trail.
 */
// Private targets: the OIDC IdP of the Test connection runs on loopback (the SSRF guard refuses it otherwise).
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000', ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
const i = sharedInstance(h);
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });
const PUBLIC = 'http://localhost:3000';
const fapiPath = () => `/fapi/${i.instanceId}`;

const txt = new Map<string, string[][]>();
let dns: DnsServer;
beforeAll(async () => {
  dns = await startDnsServer((name) => txt.get(name));
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([dns.address]);
  h.runtime.deps.txtResolver = { resolveTxt: (name) => resolver.resolveTxt(name) };
});
afterAll(() => dns?.close());

let seq = 0;
const newOrg = async () => (await bapi('POST', '/v1/organizations', { name: `Portal org ${++seq}` })).body as { id: string };
const link = async (orgId: string, intent: string, extra: Record<string, unknown> = {}) => {
  const res = await bapi('POST', `/v1/organizations/${orgId}/portal_links`, { intent, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; link: string; expires_at: number };
};
const tokenOf = (url: string) => new URL(url).hash.slice(1);

/** A browser on the portal pages: keeps its cookies, sends the portal's Origin on writes. */
function portalBrowser(origin = PUBLIC) {
  const cookies = new Map<string, string>();
  const keep = (headers: Headers) => {
    for (const c of headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  const cookie = () =>
    [...cookies]
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  return {
    cookies,
    async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const res = await h.call(method, `${fapiPath()}${path}`, {
        body,
        headers: { ...(method === 'GET' ? {} : { origin }), ...(cookies.size ? { cookie: cookie() } : {}), ...headers },
      });
      keep(res.headers);
      return res;
    },
    async open(url: string) {
      return this.call('POST', '/v1/portal/session', { token: tokenOf(url) });
    },
  };
}
const opened = async (orgId: string, intent: string) => {
  const b = portalBrowser();
  const l = await link(orgId, intent);
  const res = await b.open(l.link);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { b, link: l };
};

describe('portal links', () => {
  it('BAPI mints a single-use link of 5 minutes in the fragment of {fapi_url}/portal/open; only allowed return/success URLs', async () => {
    const org = await newOrg();
    const now = h.clock.now();
    const l = await link(org.id, 'sso', {
      return_url: `${PUBLIC}/fapi/${i.instanceId}/back`,
      success_url: `${PUBLIC}/fapi/${i.instanceId}/done`,
    });
    expect(l).toMatchObject({ object: 'portal_link', id: expect.stringMatching(/^ptl_/), organization_id: org.id, intent: 'sso' });
    expect(l.link).toMatch(new RegExp(`^${PUBLIC}/fapi/${i.instanceId}/portal/open#portal_[\\w-]{43}$`));
    expect(l.expires_at).toBe(now + 5 * 60_000);
    expectError(
      await bapi('POST', `/v1/organizations/${org.id}/portal_links`, { intent: 'sso', return_url: 'https://evil.example/' }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'return_url',
        reason: 'redirect_url_not_allowed',
      },
    );
    expectError(await bapi('POST', `/v1/organizations/${org.id}/portal_links`, { intent: 'everything' }), 422, 'VALIDATION_FAILED', {
      param: 'intent',
    });
    expectError(await bapi('POST', '/v1/organizations/org_01JZZZZZZZZZZZZZZZZZZZZZZZ/portal_links', { intent: 'sso' }), 404, 'NOT_FOUND');
    const reader = await h.createKey(i.instanceId, 'organizations:read');
    expectError(
      await h.call('POST', `/v1/organizations/${org.id}/portal_links`, { key: reader.secret, body: { intent: 'sso' } }),
      403,
      'SCOPE_MISSING',
    );
    const entry = (await bapi('GET', `/v1/audit_logs?action=portal_link.created&target=${l.id}`)).body.data[0];
    expect(entry).toMatchObject({ actor: expect.stringMatching(/^key:/), details: { organization_id: org.id, intent: 'sso' } });
    // Only the digest is stored.
    expect(JSON.stringify(entry)).not.toContain(tokenOf(l.link));
  });

  it('opens one session bound to the browser (HttpOnly cookie, one hour, sliding); a reused, expired or unknown link opens none', async () => {
    const org = await newOrg();
    const l = await link(org.id, 'domain_verification');
    const b = portalBrowser();
    const res = await b.open(l.link);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      object: 'portal_session',
      id: l.id,
      intent: 'domain_verification',
      organization: { id: org.id },
      expires_at: h.clock.now() + 3_600_000,
    });
    expect(res.headers.getSetCookie().find((c) => c.startsWith('__portal='))).toMatch(
      new RegExp(`^__portal=portals_[\\w-]{43}; Path=/fapi/${i.instanceId}; HttpOnly; SameSite=Lax; Max-Age=3600$`),
    );
    expect((await b.call('GET', '/v1/portal/session')).status).toBe(200);

    // The same link again, from another browser: refused, no session.
    const other = portalBrowser();
    expectError(await other.open(l.link), 403, 'FORBIDDEN', { reason: 'link_used' });
    expect(other.cookies.has('__portal')).toBe(false);
    expectError(await other.call('GET', '/v1/portal/session'), 401, 'UNAUTHENTICATED', { reason: 'session_missing' });

    const late = await link(org.id, 'sso');
    h.clock.advance(5 * 60_000 + 1);
    expectError(await portalBrowser().open(late.link), 403, 'FORBIDDEN', { reason: 'link_expired' });
    expectError(await portalBrowser().call('POST', '/v1/portal/session', { token: `portal_${'x'.repeat(43)}` }), 403, 'FORBIDDEN', {
      reason: 'link_invalid',
    });

    // Sliding: used after 55 minutes, it lives on past the first hour; then an hour idle ends it.
    h.clock.advance(50 * 60_000);
    expect((await b.call('GET', '/v1/portal/domains')).status).toBe(200);
    h.clock.advance(30 * 60_000);
    expect((await b.call('GET', '/v1/portal/domains')).status).toBe(200);
    h.clock.advance(60 * 60_000 + 1);
    expectError(await b.call('GET', '/v1/portal/domains'), 401, 'UNAUTHENTICATED', { reason: 'session_expired' });
  });

  it('FAPI: a member holding org:sys_portal:manage (admins) gets a link; a plain member does not', async () => {
    const org = await newOrg();
    const userOf = async (email: string) => (await bapi('POST', '/v1/users', { email_address: [email] })).body.id as string;
    const adminId = await userOf(`admin${++seq}@portal.test`);
    const memberId = await userOf(`member${++seq}@portal.test`);
    await bapi('POST', `/v1/organizations/${org.id}/memberships`, { user_id: adminId, role: 'org:admin' });
    await bapi('POST', `/v1/organizations/${org.id}/memberships`, { user_id: memberId, role: 'org:member' });
    const admin = await signedInClient(h, i, adminId);
    const member = await signedInClient(h, i, memberId);
    const asAdmin = await admin.b.call('POST', `/v1/organizations/${org.id}/portal_links`, { body: { intent: 'dsync' } });
    expect(asAdmin.status, JSON.stringify(asAdmin.body)).toBe(201);
    expect(asAdmin.body).toMatchObject({ object: 'portal_link', intent: 'dsync', organization_id: org.id });
    expectError(await member.b.call('POST', `/v1/organizations/${org.id}/portal_links`, { body: { intent: 'dsync' } }), 403, 'FORBIDDEN');
  });
});

describe('a portal session', () => {
  it('touches only its organization and intent; writes need the portal’s Origin', async () => {
    const mine = await newOrg();
    const theirs = await newOrg();
    const theirDomain = (await bapi('POST', `/v1/organizations/${theirs.id}/domains`, { name: `theirs${++seq}.test` })).body;
    const { b } = await opened(mine.id, 'domain_verification');
    expectError(await b.call('POST', `/v1/portal/domains/${theirDomain.id}/verify`), 404, 'NOT_FOUND');
    expectError(await b.call('DELETE', `/v1/portal/domains/${theirDomain.id}`), 404, 'NOT_FOUND');
    expectError(await b.call('GET', '/v1/portal/sso_connections'), 403, 'FORBIDDEN', { reason: 'intent_not_allowed' });
    expectError(await b.call('GET', '/v1/portal/directory'), 403, 'FORBIDDEN', { reason: 'intent_not_allowed' });
    expectError(await b.call('GET', '/v1/portal/audit_logs'), 403, 'FORBIDDEN', { reason: 'intent_not_allowed' });
    // CSRF: another site's form, or no Origin at all.
    expectError(
      await b.call('POST', '/v1/portal/domains', { name: `x${++seq}.test` }, { origin: 'https://evil.example' }),
      403,
      'ORIGIN_NOT_ALLOWED',
    );
    const list = await b.call('GET', '/v1/portal/domains');
    expect(list.body.data).toEqual([]);
  });

  it('verifies a domain through a real DNS lookup; changes are audited as portal:<link id> with the usual events', async () => {
    const org = await newOrg();
    const { b, link: l } = await opened(org.id, 'domain_verification');
    const name = `acme${++seq}.test`;
    const added = await b.call('POST', '/v1/portal/domains', { name });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const domain = added.body;
    const missing = await b.call('POST', `/v1/portal/domains/${domain.id}/verify`);
    expectError(missing, 422, 'VALIDATION_FAILED', { reason: 'txt_record_not_found' });
    expect(missing.body.errors[0].message).toContain('No TXT record');
    txt.set(domain.txt_record.name, [['something-else']]);
    const wrong = await b.call('POST', `/v1/portal/domains/${domain.id}/verify`);
    expect(wrong.body.errors[0].message).toContain('do not hold the expected value');
    // The failed check stays on the domain, for the page reloaded later.
    const listed = (await b.call('GET', '/v1/portal/domains')).body.data.find((x: { id: string }) => x.id === domain.id);
    expect(listed.verification).toMatchObject({
      status: 'unverified',
      last_checked_at: h.clock.now(),
      error: wrong.body.errors[0].message,
    });
    txt.set(domain.txt_record.name, [[domain.txt_record.value]]);
    const { result: verified, events } = await eventsDuring(h, i.instanceId, () =>
      b.call('POST', `/v1/portal/domains/${domain.id}/verify`),
    );
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.verification).toMatchObject({ status: 'verified', strategy: 'dns_record' });
    expect(events.map((e) => e.type)).toEqual(['organizationDomain.updated']);
    const entries = (await bapi('GET', `/v1/audit_logs?actor=portal:${l.id}`)).body.data.map(
      (e: { action: string; actor_kind: string }) => [e.action, e.actor_kind],
    );
    expect(entries).toEqual(
      expect.arrayContaining([
        ['organization_domain.created', 'portal'],
        ['organization_domain.verified', 'portal'],
        ['portal_session.opened', 'portal'],
      ]),
    );
  });

  it('SSO: a SAML connection from the IdP’s metadata, validated like the BAPI; activated only after a successful Test connection', async () => {
    const org = await newOrg();
    const domainName = `sso${++seq}.test`;
    const d = (await bapi('POST', `/v1/organizations/${org.id}/domains`, { name: domainName })).body;
    await bapi('PATCH', `/v1/organizations/${org.id}/domains/${d.id}`, { verified: true });
    const { b, link: l } = await opened(org.id, 'sso');
    const idp = makeSamlIdp({ entityId: `https://idp.${domainName}/saml`, ssoUrl: `https://idp.${domainName}/sso` });
    const other = makeSamlIdp({ entityId: `https://idp.${domainName}/saml`, ssoUrl: `https://idp.${domainName}/sso`, key: 'other' });
    // The BAPI's validation: an unverified domain, bad metadata, an active flag are refused.
    expectError(
      await b.call('POST', '/v1/portal/sso_connections', { provider: 'saml', name: 'x', domains: ['nope.test'] }),
      422,
      'VALIDATION_FAILED',
      { reason: 'domain_not_verified' },
    );
    expectError(
      await b.call('POST', '/v1/portal/sso_connections', {
        provider: 'saml',
        name: 'x',
        domains: [domainName],
        saml: { idp_metadata_xml: '<x/>' },
      }),
      422,
      'VALIDATION_FAILED',
      {
        reason: 'metadata_invalid',
      },
    );
    expectError(
      await b.call('POST', '/v1/portal/sso_connections', { provider: 'saml', name: 'x', domains: [domainName], active: true }),
      422,
      'VALIDATION_FAILED',
    );
    const created = await b.call('POST', '/v1/portal/sso_connections', {
      provider: 'saml',
      name: 'Okta',
      domains: [domainName],
      role_mapping: { admins: 'org:admin' },
      saml: { idp_metadata_xml: idp.getMetadata() },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const conn = created.body;
    expect(conn).toMatchObject({ organization_id: org.id, active: false, saml: { idp_entity_id: `https://idp.${domainName}/saml` } });
    expectError(await b.call('POST', `/v1/portal/sso_connections/${conn.id}/activate`), 409, 'CONFLICT', { reason: 'test_required' });

    const saml = await samlIdpFor(h, i.instanceId, conn, {
      idp,
      entityId: `https://idp.${domainName}/saml`,
      origin: `https://idp.${domainName}`,
    });
    const runTest = async (respond: (requestId: string) => Promise<string>) => {
      const started = await b.call('POST', `/v1/portal/sso_connections/${conn.id}/tests`);
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      expect(started.body).toMatchObject({
        object: 'sso_connection_test',
        status: 'pending',
        url: expect.stringContaining(`https://idp.${domainName}/sso?`),
      });
      const flow = [...b.cookies]
        .filter(([k]) => k.startsWith('__flow_'))
        .map(([k, v]) => `${k}=${v}`)
        .join('; ');
      const res = await h.request('POST', `${fapiPath()}/sso/saml/${conn.id}/acs`, {
        raw: new URLSearchParams({ SAMLResponse: await respond(await saml.requestIdOf(started.body.url)) }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `https://idp.${domainName}`, cookie: flow },
      });
      expect(res.status, await res.clone().text()).toBe(303);
      expect(res.headers.get('location')).toBe(`${PUBLIC}${fapiPath()}/portal/sso/test?connection=${conn.id}&id=${started.body.id}`);
      return (await b.call('GET', `/v1/portal/sso_connections/${conn.id}/tests/${started.body.id}`)).body;
    };
    const attributes = { firstName: ['Ada'], lastName: ['Lovelace'], groups: ['admins'] };
    const forged = await runTest((id) => saml.response(id, { email: `ada@${domainName}`, signer: other, attributes }));
    expect(forged).toMatchObject({ status: 'failed', reason: 'invalid_signature', result: { detail: 'certificate_mismatch' } });
    const wrongAudience = await runTest((id) =>
      saml.response(id, { email: `ada@${domainName}`, over: { Audience: 'https://elsewhere' }, attributes }),
    );
    expect(wrongAudience).toMatchObject({ status: 'failed', reason: 'wrong_audience' });
    const good = await runTest((id) => saml.response(id, { email: `ada@${domainName}`, attributes }));
    expect(good).toMatchObject({
      status: 'succeeded',
      result: {
        subject: `ada@${domainName}`,
        email: `ada@${domainName}`,
        first_name: 'Ada',
        last_name: 'Lovelace',
        groups: ['admins'],
        mapping: { email_domain: domainName, domain_allowed: true, role: 'org:admin' },
      },
    });
    // Nobody signed in or was created by the tests.
    expect((await bapi('GET', `/v1/users?email_address=ada@${domainName}`)).body.data ?? []).toHaveLength(0);

    const { result: activated, events } = await eventsDuring(h, i.instanceId, () =>
      b.call('POST', `/v1/portal/sso_connections/${conn.id}/activate`),
    );
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
    expect(activated.body.active).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['ssoConnection.updated']);
    const actions = (await bapi('GET', `/v1/audit_logs?actor=portal:${l.id}`)).body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['sso_connection.created', 'sso_connection.test_started', 'sso_connection.activated']));

    // Another organization's connection is not this session's.
    const elsewhere = await newOrg();
    const { b: theirs } = await opened(elsewhere.id, 'sso');
    expectError(await theirs.call('GET', `/v1/portal/sso_connections/${conn.id}`), 404, 'NOT_FOUND');
    expectError(await theirs.call('POST', `/v1/portal/sso_connections/${conn.id}/activate`), 404, 'NOT_FOUND');
    expectError(await theirs.call('POST', `/v1/portal/sso_connections/${conn.id}/tests`), 404, 'NOT_FOUND');
  });

  it('SSO with any OIDC IdP: Test connection is a real round trip; a wrong client secret or issuer fails with its reason; activated only after success', async () => {
    const org = await newOrg();
    const domainName = `oidc${++seq}.test`;
    const d = (await bapi('POST', `/v1/organizations/${org.id}/domains`, { name: domainName })).body;
    await bapi('PATCH', `/v1/organizations/${org.id}/domains/${d.id}`, { verified: true });
    const idp = await openOidcIdp();
    try {
      idp.accounts.set('grace', { email: `grace@${domainName}`, email_verified: true, given_name: 'Grace', family_name: 'Hopper' });
      idp.accounts.set('mallory', { email: 'mallory@elsewhere.test', email_verified: true, given_name: 'Mal', family_name: 'Lory' });
      const SECRET = 'the-right-client-secret-of-the-portal-test';
      const { b, link: l } = await opened(org.id, 'sso');
      // Created with a mistyped secret, as an IT admin might.
      const created = await b.call('POST', '/v1/portal/sso_connections', {
        provider: 'oidc',
        name: 'Corporate IdP',
        domains: [domainName],
        oidc: { issuer: idp.issuer, client_id: 'latchkey-portal', client_secret: 'a-mistyped-client-secret' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const conn = created.body;
      expect(conn).toMatchObject({ provider: 'oidc', active: false, oidc: { issuer: idp.issuer, client_secret_set: true } });
      expect(JSON.stringify(conn)).not.toContain('mistyped');
      idp.serve({ clientId: 'latchkey-portal', clientSecret: SECRET, redirectUris: [conn.oidc.redirect_uri] });
      expectError(await b.call('POST', `/v1/portal/sso_connections/${conn.id}/activate`), 409, 'CONFLICT', { reason: 'test_required' });

      /** Test connection: the new tab signs in at the IdP as `login` and comes back to our redirect URI with this browser's cookies. */
      const runTest = async (login: string) => {
        const started = await b.call('POST', `/v1/portal/sso_connections/${conn.id}/tests`);
        expect(started.status, JSON.stringify(started.body)).toBe(201);
        if (started.body.status !== 'pending') return started.body;
        const auth = new URL(started.body.url);
        expect(auth.origin + auth.pathname).toBe(`${idp.issuer}/auth`);
        expect(auth.searchParams.get('redirect_uri')).toBe(conn.oidc.redirect_uri);
        expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
        idp.loginAs = login;
        const callback = await browseUntil(auth.href, PUBLIC);
        expect(callback.pathname).toBe(`${fapiPath()}/sso/oidc/${conn.id}/callback`);
        const flow = [...b.cookies]
          .filter(([k, v]) => k.startsWith('__flow_') && v)
          .map(([k, v]) => `${k}=${v}`)
          .join('; ');
        const res = await h.request('GET', callback.pathname + callback.search, { headers: { cookie: flow } });
        expect(res.status, await res.clone().text()).toBe(303);
        expect(res.headers.get('location')).toBe(`${PUBLIC}${fapiPath()}/portal/sso/test?connection=${conn.id}&id=${started.body.id}`);
        return (await b.call('GET', `/v1/portal/sso_connections/${conn.id}/tests/${started.body.id}`)).body;
      };

      // The IdP refuses the secret at its token endpoint: the reason says so, with the IdP's own error.
      const wrongSecret = await runTest('grace');
      expect(wrongSecret).toMatchObject({ status: 'failed', reason: 'oidc_callback_failed' });
      expect(wrongSecret.message).toContain('invalid_client');
      expectError(await b.call('POST', `/v1/portal/sso_connections/${conn.id}/activate`), 409, 'CONFLICT', { reason: 'test_required' });

      const fixed = await b.call('PATCH', `/v1/portal/sso_connections/${conn.id}`, { oidc: { client_secret: SECRET } });
      expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
      // Someone of another domain: the IdP's answer is read and shown, but refused.
      const stranger = await runTest('mallory');
      expect(stranger).toMatchObject({
        status: 'failed',
        reason: 'email_domain_mismatch',
        result: { email: 'mallory@elsewhere.test', mapping: { email_domain: 'elsewhere.test', domain_allowed: false } },
      });
      const good = await runTest('grace');
      expect(good).toMatchObject({
        status: 'succeeded',
        reason: null,
        result: {
          subject: 'grace',
          email: `grace@${domainName}`,
          first_name: 'Grace',
          last_name: 'Hopper',
          groups: [],
          mapping: { email_domain: domainName, domain_allowed: true, role: 'org:member', mapped_groups: [] },
        },
      });

      // A wrong issuer: its discovery fails when the test starts; the test says why, and the tab goes nowhere.
      const moved = await b.call('PATCH', `/v1/portal/sso_connections/${conn.id}`, { oidc: { issuer: `${idp.issuer}/tenant-b` } });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      const wrongIssuer = await runTest('grace');
      expect(wrongIssuer).toMatchObject({ status: 'failed', reason: 'discovery_failed' });
      expect(wrongIssuer.url).toBeUndefined();
      expect(wrongIssuer.message).toContain(`${idp.issuer}/tenant-b`);
      // The earlier success was of other settings.
      expectError(await b.call('POST', `/v1/portal/sso_connections/${conn.id}/activate`), 409, 'CONFLICT', { reason: 'test_required' });

      await b.call('PATCH', `/v1/portal/sso_connections/${conn.id}`, { oidc: { issuer: idp.issuer } });
      expect(await runTest('grace')).toMatchObject({ status: 'succeeded' });
      // Nobody signed in or was created by the tests.
      expect((await bapi('GET', `/v1/users?email_address=grace@${domainName}`)).body.data ?? []).toHaveLength(0);
      const { result: activated, events } = await eventsDuring(h, i.instanceId, () =>
        b.call('POST', `/v1/portal/sso_connections/${conn.id}/activate`),
      );
      expect(activated.status, JSON.stringify(activated.body)).toBe(200);
      expect(activated.body.active).toBe(true);
      expect(events.map((e) => e.type)).toEqual(['ssoConnection.updated']);
      const actions = (await bapi('GET', `/v1/audit_logs?actor=portal:${l.id}`)).body.data.map((e: { action: string }) => e.action);
      expect(actions).toEqual(
        expect.arrayContaining(['sso_connection.created', 'sso_connection.test_started', 'sso_connection.activated']),
      );
    } finally {
      await idp.close();
    }
  });

  it('directory sync: the SCIM token shown once, live status, rotation revokes the old token', async () => {
    const org = await newOrg();
    const { b } = await opened(org.id, 'dsync');
    const made = await b.call('POST', '/v1/portal/directory/tokens', { name: 'Okta' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.token).toMatch(/^scim_/);
    const scim = scimCaller(
      () => h,
      () => made.body.token,
    );
    const user = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: `ann${++seq}@dsync.test`,
      name: { givenName: 'Ann', familyName: 'Lee' },
    });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const status = await b.call('GET', '/v1/portal/directory');
    expect(status.body).toMatchObject({
      object: 'directory',
      scim_base_url: `${PUBLIC}/scim/v2`,
      users_count: 1,
      groups_count: 0,
      last_request_at: expect.any(Number),
    });
    expect(JSON.stringify(status.body)).not.toContain(made.body.token);
    expect(status.body).toMatchObject({ errors_count: 0, last_error: null });
    // A request the directory got wrong: counted, and kept as the last error without its body.
    const bad = await scim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], name: { givenName: 'Secret' } });
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
    await scim('GET', '/Users/nope');
    const failing = (await b.call('GET', '/v1/portal/directory')).body;
    expect(failing).toMatchObject({
      errors_count: 2,
      last_error: { method: 'GET', path: '/scim/v2/Users/nope', status: 404, at: expect.any(Number) },
    });
    expect(JSON.stringify(failing)).not.toContain('Secret');
    const rotated = await b.call('POST', `/v1/portal/directory/tokens/${made.body.id}/rotate`);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(201);
    expect((await scim('GET', '/Users')).status).toBe(401);
    expect(
      (
        await scimCaller(
          () => h,
          () => rotated.body.token,
        )('GET', '/Users')
      ).status,
    ).toBe(200);
  });

  it('audit logs: the organization’s own trail, filtered by actor and date, exported as CSV', async () => {
    const org = await newOrg();
    const other = await newOrg();
    const { b: setup, link: l } = await opened(org.id, 'domain_verification');
    await setup.call('POST', '/v1/portal/domains', { name: `trail${++seq}.test` });
    await bapi('POST', `/v1/organizations/${other.id}/domains`, { name: `other${++seq}.test` });
    const { b } = await opened(org.id, 'audit_logs');
    const list = await b.call('GET', '/v1/portal/audit_logs');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const actions = list.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['organization_domain.created', 'portal_session.opened']));
    expect(
      list.body.data.every(
        (e: { target: string | null; details: { organization_id?: string } }) =>
          e.details.organization_id !== other.id && e.target !== other.id,
      ),
    ).toBe(true);
    const byActor = await b.call('GET', `/v1/portal/audit_logs?actor=portal:${l.id}`);
    expect(byActor.body.data.every((e: { actor: string }) => e.actor === `portal:${l.id}`)).toBe(true);
    const future = await b.call('GET', `/v1/portal/audit_logs?since=${h.clock.now() + 60_000}`);
    expect(future.body.data).toEqual([]);
    const csv = await h.request('GET', `${fapiPath()}/v1/portal/audit_logs/export?actor=portal:${l.id}`, {
      headers: { cookie: `__portal=${b.cookies.get('__portal')}` },
    });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('id,created_at,actor,actor_kind,action,target,ip,user_agent,details');
    expect(lines.slice(1).some((line) => line.includes('organization_domain.created'))).toBe(true);
  });
});
