import { createHash, randomBytes } from 'node:crypto';
import * as samlify from 'samlify';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../testing/expect';
import { fapiClient, type FapiTestClient } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { makeSamlIdp, samlIdpFor, type SamlIdpForConnection } from '../testing/saml-idp';
import { purgeSsoRequests } from './flow';
import { SSO_REQUEST_TTL_MS } from './saml';

/**
 * SAML 2.0 enterprise SSO against an identity provider built with samlify, signing with
 * its own certificate: SP-initiated sign-in lands signed in; each forged or stale response
 * is refused and audited with its reason.
 */
const IDP_ENTITY = 'https://idp.acme.test/saml';
const IDP_SSO_URL = 'https://idp.acme.test/sso';
const idp = makeSamlIdp({ entityId: IDP_ENTITY, ssoUrl: IDP_SSO_URL });
const otherIdp = makeSamlIdp({ entityId: IDP_ENTITY, ssoUrl: IDP_SSO_URL, key: 'other' });

const h = sharedHarness();
const i = sharedInstance(h);
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });
const fapiUrl = () => `http://localhost:3000/fapi/${i.instanceId}`;

let orgId: string;
let conn: { id: string; saml: { sp_acs_url: string; sp_entity_id: string } };
let acme: SamlIdpForConnection;

beforeAll(async () => {
  const org = await bapi('POST', '/v1/organizations', { name: 'Acme' });
  expect(org.status, JSON.stringify(org.body)).toBeLessThan(300);
  orgId = org.body.id;
  const domain = await bapi('POST', `/v1/organizations/${orgId}/domains`, { name: 'acme.test' });
  expect(domain.status, JSON.stringify(domain.body)).toBeLessThan(300);
  expect((await bapi('PATCH', `/v1/organizations/${orgId}/domains/${domain.body.id}`, { verified: true })).status).toBe(200);
  const created = await bapi('POST', '/v1/sso_connections', {
    organization_id: orgId,
    provider: 'saml',
    name: 'Acme IdP',
    domains: ['acme.test'],
    active: true,
    role_mapping: { admins: 'org:admin' },
    saml: { idp_metadata_xml: idp.getMetadata() },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  conn = created.body;
  acme = await samlIdpFor(h, i.instanceId, conn, { idp, entityId: IDP_ENTITY, origin: 'https://idp.acme.test' });
});

/** A browser starting enterprise SSO: the IdP URL and the AuthnRequest id it carries. */
async function startSignIn(email = 'ada@acme.test') {
  const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
  const res = await b.call('POST', '/v1/client/sign_ins', {
    body: { strategy: 'enterprise_sso', identifier: email, redirect_url: 'http://localhost:3000/after' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const url = new URL(res.body.response.first_factor_verification.external_verification_redirect_url);
  expect(url.origin + url.pathname).toBe('https://idp.acme.test/sso');
  return {
    b,
    requestId: await acme.requestIdOf(url.href),
    attemptId: res.body.response.id as string,
    setCookie: res.headers.getSetCookie(),
  };
}

/** A signed SAMLResponse (base64) from `signer` for Ada (names and groups), with any template value overridden. */
const samlResponse = (requestId: string, over: Record<string, string> = {}, signer = idp, email = 'ada@acme.test') =>
  acme.response(requestId, {
    over,
    signer,
    email,
    attributes: { firstName: ['Ada'], lastName: ['Lovelace'], groups: ['admins', 'staff'] },
  });

/** A cross-site form post from the IdP by the browser `from` (its SameSite=None flow cookie only), or a stranger's. */
const postAcs = (samlResponseB64: string, from?: FapiTestClient) => acme.postAcs(samlResponseB64, from);

const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
const encode = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

async function lastFailureReason() {
  const log = await bapi('GET', `/v1/audit_logs?action=sso.sign_in_failed&target=${conn.id}`);
  return log.body.data[0]?.details?.reason;
}

async function expectRefused(res: Response, reason: string) {
  expect(res.status).toBe(403);
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  expect(await res.text()).toContain(reason);
  expect(await lastFailureReason()).toBe(reason);
}

describe('connections', () => {
  it('shows the SP side, never a secret, and emits ssoConnection.created', async () => {
    const got = await bapi('GET', `/v1/sso_connections/${conn.id}`);
    expect(got.body).toMatchObject({
      object: 'sso_connection',
      organization_id: orgId,
      provider: 'saml',
      domains: ['acme.test'],
      active: true,
      saml: { idp_entity_id: IDP_ENTITY, idp_sso_url: 'https://idp.acme.test/sso', sp_acs_url: `${fapiUrl()}/sso/saml/${conn.id}/acs` },
      oidc: null,
    });
    const list = await bapi('GET', `/v1/sso_connections?organization_id=${orgId}`);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([conn.id]);
  });

  it('refuses an unverified domain, a domain already taken, and an incomplete active connection', async () => {
    const base = { organization_id: orgId, provider: 'saml', name: 'x' };
    expectError(await bapi('POST', '/v1/sso_connections', { ...base, domains: ['other.test'] }), 422, 'VALIDATION_FAILED', {
      param: 'domains',
      reason: 'domain_not_verified',
    });
    expectError(await bapi('POST', '/v1/sso_connections', { ...base, domains: ['acme.test'] }), 409, 'CONFLICT', {
      reason: 'domain_taken',
    });
    const domain = await bapi('POST', `/v1/organizations/${orgId}/domains`, { name: 'acme2.test' });
    await bapi('PATCH', `/v1/organizations/${orgId}/domains/${domain.body.id}`, { verified: true });
    expectError(
      await bapi('POST', '/v1/sso_connections', { ...base, domains: ['acme2.test'], saml: { idp_metadata_xml: '<nope/>' } }),
      422,
      'VALIDATION_FAILED',
      {
        reason: 'metadata_invalid',
      },
    );
    expectError(await bapi('POST', '/v1/sso_connections', { ...base, domains: ['acme2.test'], active: true }), 422, 'VALIDATION_FAILED', {
      param: 'active',
    });
  });

  it('needs the sso_connections scope', async () => {
    const key = await h.createKey(i.instanceId, 'users:read');
    expectError(await h.call('GET', '/v1/sso_connections', { key: key.secret }), 403, 'SCOPE_MISSING');
  });
});

describe('SP-initiated sign-in', () => {
  it('lands signed in: JIT user, membership with the group-mapped role, session on the client, redirect_url', async () => {
    const { b, requestId, setCookie } = await startSignIn();
    // The IdP posts from its own site: the flow cookie must be SameSite=None; Secure to come back.
    expect(setCookie.find((c) => c.startsWith('__flow_'))).toMatch(
      new RegExp(`^__flow_ssor_\\w+=[\\w-]{43}; Path=/fapi/${i.instanceId}; HttpOnly; Secure; SameSite=None; Max-Age=600$`),
    );
    const res = await postAcs(await samlResponse(requestId), b);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe('http://localhost:3000/after');
    const client = await b.call('GET', '/v1/client');
    expect(client.body.sessions, JSON.stringify(client.body)).toHaveLength(1);
    const userId = client.body.sessions[0].user?.id ?? client.body.sessions[0].user_id;
    const user = await bapi('GET', `/v1/users/${userId}`);
    expect(user.body).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', email_addresses: [{ email_address: 'ada@acme.test' }] });
    const members = await bapi('GET', `/v1/organizations/${orgId}/memberships`);
    expect(members.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ role: 'org:admin' })]));
    const log = await bapi('GET', `/v1/audit_logs?action=sso.sign_in&target=${userId}`);
    expect(log.body.data[0].details).toMatchObject({ connection_id: conn.id, user: 'created', role: 'org:admin' });

    // The second sign-in finds the same user by their NameID and syncs the profile.
    const again = await startSignIn();
    const renamed = (await samlResponse(again.requestId)).toString();
    expect((await postAcs(renamed, again.b)).status).toBe(303);
    const after = await bapi('GET', `/v1/users?email_address=ada@acme.test`);
    expect(after.body.data ?? after.body).toHaveLength(1);
  });

  it('refuses a password or an email code for a domain with an active connection', async () => {
    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const res = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'ada@acme.test', password: 'correct horse battery' } });
    expectError(res, 403, 'FORBIDDEN', { reason: 'sso_required' });
    const created = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'ada@acme.test' } });
    const code = await b.call('POST', `/v1/client/sign_ins/${created.body.response.id}/prepare_first_factor`, {
      body: { strategy: 'email_code' },
    });
    expectError(code, 403, 'FORBIDDEN', { reason: 'sso_required' });

    // Deactivating the connection lets passwords in at once (the per-node cache is dropped), reactivating stops them again.
    const signIn = () =>
      b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'ada@acme.test', password: 'correct horse battery' } });
    expect((await bapi('PATCH', `/v1/sso_connections/${conn.id}`, { active: false })).status).toBe(200);
    expectError(await signIn(), 422, 'CREDENTIALS_INVALID');
    expect((await bapi('PATCH', `/v1/sso_connections/${conn.id}`, { active: true })).status).toBe(200);
    expectError(await signIn(), 403, 'FORBIDDEN', { reason: 'sso_required' });
  });

  it('refuses enterprise_sso for a domain without a connection', async () => {
    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const res = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'enterprise_sso', identifier: 'bob@elsewhere.test' } });
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'identifier', reason: 'no_connection' });
  });
});

describe('refusals', () => {
  it('a locked user', async () => {
    const [ada] = (await bapi('GET', '/v1/users?email_address=ada@acme.test')).body.data;
    expect((await bapi('POST', `/v1/users/${ada.id}/lock`)).status).toBe(200);
    const { b, requestId } = await startSignIn();
    await expectRefused(await postAcs(await samlResponse(requestId), b), 'user_locked');
    expect((await bapi('POST', `/v1/users/${ada.id}/unlock`)).status).toBe(200);
  });

  it('an unsigned response', async () => {
    const { requestId } = await startSignIn();
    const unsigned = decode(await samlResponse(requestId)).replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, '');
    await expectRefused(await postAcs(encode(unsigned)), 'invalid_signature');
  });

  it('a response signed by another key', async () => {
    const { requestId } = await startSignIn();
    await expectRefused(await postAcs(await samlResponse(requestId, {}, otherIdp)), 'invalid_signature');
  });

  it('a wrong audience', async () => {
    const { requestId } = await startSignIn();
    await expectRefused(await postAcs(await samlResponse(requestId, { Audience: 'https://evil.example/sp' })), 'wrong_audience');
  });

  it("a response signed by the connection's key that names another issuer", async () => {
    const { requestId } = await startSignIn();
    await expectRefused(await postAcs(await samlResponse(requestId, { Issuer: 'https://evil.example/saml' })), 'wrong_issuer');
  });

  it('a wrong recipient', async () => {
    const { requestId } = await startSignIn();
    await expectRefused(await postAcs(await samlResponse(requestId, { SubjectRecipient: 'https://evil.example/acs' })), 'wrong_recipient');
  });

  it('a wrong destination', async () => {
    const { requestId } = await startSignIn();
    await expectRefused(await postAcs(await samlResponse(requestId, { Destination: 'https://evil.example/acs' })), 'wrong_destination');
  });

  it('an expired assertion', async () => {
    const { requestId } = await startSignIn();
    const past = new Date(Date.now() - 10 * 60_000).toISOString();
    const old = new Date(Date.now() - 20 * 60_000).toISOString();
    const res = await postAcs(
      await samlResponse(requestId, {
        IssueInstant: old,
        ConditionsNotBefore: old,
        ConditionsNotOnOrAfter: past,
        SubjectConfirmationDataNotOnOrAfter: past,
      }),
    );
    await expectRefused(res, 'expired');
  });

  it('a replayed response', async () => {
    const { b, requestId } = await startSignIn();
    const response = await samlResponse(requestId);
    expect((await postAcs(response, b)).status).toBe(303);
    const res = await postAcs(response, b);
    expect(res.status).toBe(403);
    expect(['replayed', 'in_response_to_mismatch']).toContain(await lastFailureReason());
    // The same assertion id under a fresh request is still a replay.
    const next = await startSignIn();
    const assertionId = /<saml:Assertion[^>]* ID="([^"]+)"/.exec(decode(response))![1]!;
    await expectRefused(await postAcs(await samlResponse(next.requestId, { AssertionID: assertionId }), next.b), 'replayed');
  });

  it('an InResponseTo that answers no request of ours (and IdP-initiated while disabled)', async () => {
    await startSignIn();
    await expectRefused(await postAcs(await samlResponse('_not-a-request-of-ours')), 'in_response_to_mismatch');
  });

  it('an IdP URL sent to someone else: the response their browser posts signs nobody in, nothing is created', async () => {
    // The attacker starts enterprise_sso on their own client and sends the IdP URL to an employee,
    // whose IdP signs them in silently and posts the response from the employee's browser.
    const attacker = await startSignIn('eve@acme.test');
    const response = () => samlResponse(attacker.requestId, {}, idp, 'eve@acme.test');
    const employee = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    await employee.call('POST', '/v1/client/sign_ins', { body: { identifier: 'someone@else.test' } });
    expect(employee.token).toBeTruthy();
    for (const stranger of [undefined, employee]) await expectRefused(await postAcs(await response(), stranger), 'flow_binding_mismatch');
    // A browser holding the flow cookie of another of the attacker's flows is a stranger too.
    const other = await startSignIn('eve@acme.test');
    await expectRefused(await postAcs(await response(), other.b), 'flow_binding_mismatch');
    expect((await attacker.b.call('GET', '/v1/client')).body.sessions).toEqual([]);
    expect((await bapi('GET', '/v1/users?email_address=eve@acme.test')).body.data).toEqual([]);
  });

  it('a native app claims its SAML sign-in with the claim nonce and its verifier; an unclaimed one is purged with its request', async () => {
    const app = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey, native: true });
    const verifier = randomBytes(32).toString('base64url');
    const code_challenge = createHash('sha256').update(verifier).digest('base64url');
    const start = async () => {
      const res = await app.call('POST', '/v1/client/sign_ins', {
        body: { strategy: 'enterprise_sso', identifier: 'grace@acme.test', redirect_url: 'http://localhost:3000/after', code_challenge },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get('set-cookie')).toBeNull();
      return {
        id: res.body.response.id as string,
        requestId: await acme.requestIdOf(res.body.response.first_factor_verification.external_verification_redirect_url),
      };
    };
    // The system browser posts the response without any cookie of ours: it is sent on with a claim nonce, nobody signed in yet.
    const first = await start();
    const posted = await postAcs(await samlResponse(first.requestId, {}, idp, 'grace@acme.test'));
    expect(posted.status, await posted.clone().text()).toBe(303);
    const nonce = new URL(posted.headers.get('location')!).searchParams.get('claim_nonce')!;
    expect((await app.call('GET', '/v1/client')).body.sessions).toEqual([]);
    const claim = (id: string, code_verifier: string) =>
      app.call('POST', `/v1/client/sign_ins/${id}/claim`, { body: { claim_nonce: nonce, code_verifier } });
    expectError(await claim(first.id, randomBytes(32).toString('base64url')), 403, 'FORBIDDEN', { reason: 'claim_invalid' });
    const done = await claim(first.id, verifier);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response.status).toBe('complete');
    expect((await app.call('GET', '/v1/client')).body.sessions).toHaveLength(1);

    // Answered but never claimed: past the request's 10 minutes the purge drops it (and the identity it kept).
    const second = await start();
    const parked = await postAcs(await samlResponse(second.requestId, {}, idp, 'grace@acme.test'));
    const late = new URL(parked.headers.get('location')!).searchParams.get('claim_nonce')!;
    h.clock.advance(SSO_REQUEST_TTL_MS + 1);
    expect((await purgeSsoRequests(h.runtime.deps)).sso_requests).toBeGreaterThanOrEqual(1);
    expectError(
      await app.call('POST', `/v1/client/sign_ins/${second.id}/claim`, { body: { claim_nonce: late, code_verifier: verifier } }),
      403,
      'FORBIDDEN',
      { reason: 'claim_invalid' },
    );
  });

  it('IdP-initiated (when allowed) signs in a new client of the browser that posts, never a client that started a flow', async () => {
    expect((await bapi('PATCH', `/v1/sso_connections/${conn.id}`, { saml: { allow_idp_initiated: true } })).status).toBe(200);
    try {
      const pending = await startSignIn('frank@acme.test');
      const res = await postAcs(await samlResponse('', {}, idp, 'frank@acme.test'));
      expect(res.status, await res.clone().text()).toBe(303);
      const poster = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
      poster.keepCookies(res.headers);
      expect(poster.token).toMatch(/^ct_/);
      expect((await poster.call('GET', '/v1/client')).body.sessions).toHaveLength(1);
      expect((await pending.b.call('GET', '/v1/client')).body.sessions).toEqual([]);
    } finally {
      await bapi('PATCH', `/v1/sso_connections/${conn.id}`, { saml: { allow_idp_initiated: false } });
    }
  });

  it('a wrapped signature', async () => {
    const { requestId } = await startSignIn();
    const genuine = decode(await samlResponse(requestId, {}, idp, 'ada@acme.test'));
    // XSW: a forged response for someone else that carries the genuine signed response inside it.
    const forged = decode(await samlResponse(requestId, {}, idp, 'mallory@acme.test')).replace(
      /<ds:Signature[\s\S]*?<\/ds:Signature>/g,
      '',
    );
    const wrapped = forged.replace(
      /(<saml:Issuer>[^<]*<\/saml:Issuer>)/,
      `$1<samlp:Extensions>${genuine.replace(/^<\?xml[^>]*>/, '')}</samlp:Extensions>`,
    );
    await expectRefused(await postAcs(encode(wrapped)), 'invalid_signature');
    expect((await bapi('GET', '/v1/users?email_address=mallory@acme.test')).body.data).toEqual([]);
  });
});

describe('signed AuthnRequests', () => {
  it('turned on, the SP metadata says so with its certificate and samlify (wantAuthnRequestsSigned) verifies the redirect signature; a tampered query fails', async () => {
    const on = await bapi('PATCH', `/v1/sso_connections/${conn.id}`, { saml: { sign_authn_requests: true } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.saml.sign_authn_requests).toBe(true);
    expect(on.body.saml.sp_signing_certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(JSON.stringify(on.body)).not.toContain('PRIVATE KEY');

    const metadata = await (await h.request('GET', `/fapi/${i.instanceId}/sso/saml/${conn.id}/metadata`)).text();
    expect(metadata).toContain('AuthnRequestsSigned="true"');
    expect(metadata).toMatch(/<KeyDescriptor use="signing">/);
    const signingSp = samlify.ServiceProvider({ metadata });
    const strictIdp = makeSamlIdp({ entityId: IDP_ENTITY, ssoUrl: IDP_SSO_URL, wantAuthnRequestsSigned: true });

    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const res = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'enterprise_sso', identifier: 'ada@acme.test' } });
    const url = new URL(res.body.response.first_factor_verification.external_verification_redirect_url);
    expect(url.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(url.searchParams.get('Signature')).toBeTruthy();
    const query = Object.fromEntries(url.searchParams);
    const octetString = url.search
      .slice(1)
      .split('&')
      .filter((p) => !p.startsWith('Signature='))
      .join('&');
    const { extract } = await strictIdp.parseLoginRequest(signingSp, 'redirect', { query, octetString });
    expect(extract.request?.id).toMatch(/^_/);

    const tampered = new URL(url);
    tampered.searchParams.set('RelayState', 'somewhere-else');
    const tamperedOctets = tampered.search
      .slice(1)
      .split('&')
      .filter((p) => !p.startsWith('Signature='))
      .join('&');
    await expect(
      strictIdp.parseLoginRequest(signingSp, 'redirect', { query: Object.fromEntries(tampered.searchParams), octetString: tamperedOctets }),
    ).rejects.toBeTruthy();

    // Off again: unsigned requests, the metadata says so.
    const off = await bapi('PATCH', `/v1/sso_connections/${conn.id}`, { saml: { sign_authn_requests: false } });
    expect(off.body.saml).toMatchObject({ sign_authn_requests: false, sp_signing_certificate: null });
    expect(await (await h.request('GET', `/fapi/${i.instanceId}/sso/saml/${conn.id}/metadata`)).text()).toContain(
      'AuthnRequestsSigned="false"',
    );
  });
});

describe('organization deleted', () => {
  it('its connections go with it: a password for its domain is no longer refused for SSO', async () => {
    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const signIn = () =>
      b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'ada@acme.test', password: 'correct horse battery' } });
    expectError(await signIn(), 403, 'FORBIDDEN', { reason: 'sso_required' });
    expect((await bapi('DELETE', `/v1/organizations/${orgId}`)).status).toBe(200);
    expectError(await signIn(), 422, 'CREDENTIALS_INVALID');
  });
});
