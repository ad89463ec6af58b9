import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsSince } from '../testing/auth-flows';
import { fapiClient, type FapiTestClient } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { browseUntil, openOidcIdp, type OidcIdp } from '../testing/social-idps';

/**
 * OIDC enterprise connection against `oidc-provider` on loopback: code flow with PKCE, state
 * and nonce through openid-client; the user lands signed in, a forged state is refused.
 */
const h = sharedHarness({ env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
const i = sharedInstance(h);
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });

const CLIENT_SECRET = 'a-long-enough-client-secret-for-hs256';
let idp: OidcIdp;
let connectionId: string;

beforeAll(async () => {
  idp = await openOidcIdp();
  for (const id of ['grace', 'linus', 'ken'])
    idp.accounts.set(id, { email: `${id}@hopper.test`, email_verified: true, given_name: 'Grace', family_name: 'Hopper' });
  const org = (await bapi('POST', '/v1/organizations', { name: 'Hopper Inc' })).body;
  const domain = (await bapi('POST', `/v1/organizations/${org.id}/domains`, { name: 'hopper.test' })).body;
  await bapi('PATCH', `/v1/organizations/${org.id}/domains/${domain.id}`, { verified: true });
  const created = await bapi('POST', '/v1/sso_connections', {
    organization_id: org.id,
    provider: 'oidc',
    name: 'Hopper IdP',
    domains: ['hopper.test'],
    active: true,
    oidc: { issuer: idp.issuer, client_id: 'latchkey', client_secret: CLIENT_SECRET },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.oidc).toMatchObject({ client_secret_set: true });
  expect(JSON.stringify(created.body)).not.toContain('a-long-enough-client-secret');
  connectionId = created.body.id;
  idp.serve({ clientId: 'latchkey', clientSecret: CLIENT_SECRET, redirectUris: [created.body.oidc.redirect_uri] });
});
afterAll(() => idp?.close());

/** A browser at the IdP, signed in there as `login`: where the IdP sends it back to us. */
async function browseIdp(start: string, login: string): Promise<string> {
  idp.loginAs = login;
  return (await browseUntil(start, 'http://localhost:3000/')).href;
}

const browser = () => fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
/** The browser `b` arriving back from the IdP at the callback, with the cookies it holds (none for a stranger). */
const arrive = async (callback: URL, b?: FapiTestClient) => {
  const cookie = b?.cookieHeader();
  const res = await h.request('GET', callback.pathname + callback.search, { headers: cookie ? { cookie } : {} });
  // The browser keeps what it is given (its rotated client token).
  b?.keepCookies(res.headers);
  return res;
};

async function startSso(b: FapiTestClient, identifier: string, extra: Record<string, unknown> = {}) {
  const start = await b.call('POST', '/v1/client/sign_ins', {
    body: { strategy: 'enterprise_sso', identifier, redirect_url: 'http://localhost:3000/done', ...extra },
  });
  expect(start.status, JSON.stringify(start.body)).toBe(200);
  return {
    id: start.body.response.id as string,
    authUrl: new URL(start.body.response.first_factor_verification.external_verification_redirect_url),
    setCookie: start.headers.getSetCookie(),
  };
}

async function lastFailure() {
  const failures = (await bapi('GET', `/v1/audit_logs?action=sso.sign_in_failed&target=${connectionId}`)).body.data;
  return failures[0]?.details?.reason;
}

describe('OIDC connection', () => {
  it('signs in through the IdP: code + PKCE + state + nonce, JIT user and membership', async () => {
    const b = browser();
    const { authUrl, setCookie } = await startSso(b, 'grace@hopper.test');
    // The flow is bound to this browser: a cookie it sends back at the callback (a top-level GET, so SameSite=Lax).
    const flowCookie = setCookie.find((c) => c.startsWith('__flow_ssor_'));
    expect(flowCookie).toMatch(
      new RegExp(`^__flow_ssor_\\w+=[\\w-]{43}; Path=/fapi/${i.instanceId}; HttpOnly; SameSite=Lax; Max-Age=600$`),
    );
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('nonce')).toBeTruthy();
    const callback = new URL(await browseIdp(authUrl.href, 'grace'));
    expect(callback.pathname).toBe(`/fapi/${i.instanceId}/sso/oidc/${connectionId}/callback`);

    // A forged state is refused and audited.
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged');
    const refused = await h.request('GET', forged.pathname + forged.search);
    expect(refused.status).toBe(403);

    const res = await arrive(callback, b);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe('http://localhost:3000/done');
    const client = (await b.call('GET', '/v1/client')).body;
    expect(client.sessions).toHaveLength(1);
    const users = (await bapi('GET', '/v1/users?email_address=grace@hopper.test')).body.data;
    expect(users).toMatchObject([{ first_name: 'Grace', last_name: 'Hopper' }]);

    // The code cannot be redeemed twice.
    expect((await arrive(callback, b)).status).toBe(403);
    const failures = (await bapi('GET', `/v1/audit_logs?action=sso.sign_in_failed&target=${connectionId}`)).body.data;
    expect(failures.map((f: { details: { reason: string } }) => f.details.reason)).toEqual([
      'in_response_to_mismatch',
      'in_response_to_mismatch',
    ]);
  });

  it('an IdP URL sent to someone else signs nobody in: their browser is refused and nothing is created', async () => {
    // The attacker starts enterprise_sso on their own client for an address of the domain…
    const attacker = browser();
    const { authUrl } = await startSso(attacker, 'linus@hopper.test');
    // …and the employee opens the IdP URL: their IdP signs them in and sends their browser back.
    const callback = new URL(await browseIdp(authUrl.href, 'linus'));
    const employee = browser();
    await employee.call('POST', '/v1/client/sign_ins', { body: { identifier: 'someone@else.test' } });
    expect(employee.token).toBeTruthy();
    for (const stranger of [employee, undefined]) {
      const res = await arrive(callback, stranger);
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(await res.text()).toContain('flow_binding_mismatch');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(await lastFailure()).toBe('flow_binding_mismatch');
    }
    expect((await attacker.call('GET', '/v1/client')).body.sessions).toEqual([]);
    expect((await employee.call('GET', '/v1/client')).body.sessions).toEqual([]);
    expect((await bapi('GET', '/v1/users?email_address=linus@hopper.test')).body.data).toEqual([]);
  });

  it('a native app (no cookies) binds by its code challenge: the browser comes back with a claim nonce, the app claims with its verifier', async () => {
    const app = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey, native: true });
    const refused = await app.call('POST', '/v1/client/sign_ins', {
      body: { strategy: 'enterprise_sso', identifier: 'ken@hopper.test', redirect_url: 'http://localhost:3000/done' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].meta).toEqual({ param: 'code_challenge', reason: 'required' });

    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const { id, authUrl, setCookie } = await startSso(app, 'ken@hopper.test', { code_challenge: challenge });
    expect(setCookie).toEqual([]);
    // The system browser signs in at the IdP and comes back without any cookie of ours.
    const back = await arrive(new URL(await browseIdp(authUrl.href, 'ken')));
    expect(back.status, await back.clone().text()).toBe(303);
    const landing = new URL(back.headers.get('location')!);
    expect(landing.origin + landing.pathname).toBe('http://localhost:3000/done');
    const nonce = landing.searchParams.get('claim_nonce')!;
    expect(nonce).toMatch(/^[\w-]{43}$/);
    expect((await app.call('GET', '/v1/client')).body.sessions).toEqual([]);

    // Without the verifier (an attacker holding only the nonce) or the nonce (only the verifier), nothing.
    const other = randomBytes(32).toString('base64url');
    for (const body of [
      { claim_nonce: nonce, code_verifier: other },
      { claim_nonce: 'x'.repeat(43), code_verifier: verifier },
    ]) {
      const res = await app.call('POST', `/v1/client/sign_ins/${id}/claim`, { body });
      expect(res.status).toBe(403);
      expect(res.body.errors[0].meta).toEqual({ reason: 'claim_invalid' });
    }
    const stranger = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey, native: true });
    await stranger.call('POST', '/v1/client/sign_ins', { body: { identifier: 'nobody@else.test' } });
    expect(
      (await stranger.call('POST', `/v1/client/sign_ins/${id}/claim`, { body: { claim_nonce: nonce, code_verifier: verifier } })).status,
    ).toBe(403);

    const claimed = await app.call('POST', `/v1/client/sign_ins/${id}/claim`, { body: { claim_nonce: nonce, code_verifier: verifier } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body.response).toMatchObject({ status: 'complete', created_session_id: expect.stringMatching(/^sess_/) });
    expect((await app.call('GET', '/v1/client')).body.sessions).toHaveLength(1);
    // Single use.
    expect(
      (await app.call('POST', `/v1/client/sign_ins/${id}/claim`, { body: { claim_nonce: nonce, code_verifier: verifier } })).status,
    ).toBe(403);
  });

  it('updates and deletes the connection: events without the secret, audited, secret replaced encrypted', async () => {
    h.clock.advance(1);
    const since = h.clock.now();
    const updated = await bapi('PATCH', `/v1/sso_connections/${connectionId}`, {
      name: 'Renamed',
      oidc: { client_secret: 'another-long-client-secret-value' },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Renamed', oidc: { client_secret_set: true } });
    const { ssoConnections } = await import('../db/schema');
    const [row] = await h.runtime.deps.db.select().from(ssoConnections);
    expect(row!.oidcClientSecretEncrypted).toMatch(/^v1\./);
    expect(row!.oidcClientSecretEncrypted).not.toContain('another-long-client-secret-value');
    const deleted = await bapi('DELETE', `/v1/sso_connections/${connectionId}`);
    expect(deleted.body).toMatchObject({ id: connectionId, deleted: true });
    expect((await bapi('GET', `/v1/sso_connections/${connectionId}`)).status).toBe(404);
    const evts = await eventsSince(h, i.instanceId, since);
    expect(evts.map((e) => e.type)).toEqual(['ssoConnection.updated', 'ssoConnection.deleted']);
    expect(JSON.stringify(evts)).not.toMatch(/client-secret|client_secret"/);
    const log = await bapi('GET', `/v1/audit_logs?target=${connectionId}&action=sso_connection.updated`);
    expect(log.body.data).toHaveLength(1);
  });
});
