import { inflateRawSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../testing/expect';
import { fapiClient } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { makeSamlIdp, samlIdpFor } from '../testing/saml-idp';

/**
 * SAML as identity providers in the field publish and answer it: connections made from each
 * IdP's metadata shape (fixtures/metadata), an HTTP-POST-only IdP reached by an
 * auto-submitting form, and the NameIDPolicy each connection asks for.
 */
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures/metadata', name), 'utf8');
const h = sharedHarness();
const i = sharedInstance(h);
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });

const DOMAINS = ['okta', 'entra', 'adfs', 'google', 'onelogin', 'testshib', 'keycloak', 'ping', 'fed', 'policy'].map(
  (d) => `${d}.field.test`,
);
let orgId: string;

beforeAll(async () => {
  const org = await bapi('POST', '/v1/organizations', { name: 'Field' });
  orgId = org.body.id;
  for (const name of DOMAINS) {
    const d = await bapi('POST', `/v1/organizations/${orgId}/domains`, { name });
    expect((await bapi('PATCH', `/v1/organizations/${orgId}/domains/${d.body.id}`, { verified: true })).status).toBe(200);
  }
});

const create = (domain: string, saml: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  bapi('POST', '/v1/sso_connections', {
    organization_id: orgId,
    provider: 'saml',
    name: domain,
    domains: [`${domain}.field.test`],
    active: true,
    saml,
    ...extra,
  });

describe('connections from each IdP metadata shape', () => {
  it.each([
    ['okta', 'okta.xml', 'redirect', 1],
    ['entra', 'entra.xml', 'redirect', 2],
    ['adfs', 'adfs.xml', 'redirect', 1],
    ['onelogin', 'onelogin.xml', 'post', 1],
    ['testshib', 'testshib.xml', 'redirect', 1],
    ['keycloak', 'keycloak.xml', 'redirect', 1],
    ['ping', 'pingfederate.xml', 'redirect', 1],
  ])('%s: made active from the metadata alone, its certificates described', async (domain, file, binding, certificates) => {
    const res = await create(domain, { idp_metadata_xml: fixture(file) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.saml).toMatchObject({ idp_sso_binding: binding, name_id_format: 'unspecified' });
    expect(res.body.saml.idp_certificate_details).toHaveLength(certificates);
    expect(res.body.saml.idp_certificate_details[0]).toMatchObject({ subject: expect.stringMatching(/^CN=/), expired: false });
  });

  it('a federation aggregate: picked by idp_entity_id, a clear 422 without it', async () => {
    expectError(await create('fed', { idp_metadata_xml: fixture('shibboleth-federation.xml') }), 422, 'VALIDATION_FAILED', {
      param: 'saml.idp_metadata_xml',
      reason: 'metadata_invalid',
    });
    const res = await create('fed', {
      idp_metadata_xml: fixture('shibboleth-federation.xml'),
      idp_entity_id: 'https://idp.south.example.edu/idp/shibboleth',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.saml.idp_sso_url).toBe('https://idp.south.example.edu/idp/profile/SAML2/Redirect/SSO');
  });

  it('an unreadable certificate given by hand is refused at creation, not at the first sign-in', async () => {
    const res = await create('policy', {
      idp_entity_id: 'https://idp.policy.test',
      idp_sso_url: 'https://idp.policy.test/sso',
      idp_certificates: ['A'.repeat(200)],
    });
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'saml.idp_certificates', reason: 'metadata_invalid' });
  });
});

describe('an IdP that offers only HTTP-POST (Google Workspace)', () => {
  const GOOGLE = 'https://accounts.google.com/o/saml2?idpid=C01abcd23';
  const idp = makeSamlIdp({ entityId: GOOGLE, ssoUrl: 'https://accounts.google.com/o/saml2/idp?idpid=C01abcd23' });

  it('the browser is sent to a page that posts the AuthnRequest; the answer signs in', async () => {
    const created = await create('google', { idp_metadata_xml: fixture('google.xml') });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.saml.idp_sso_binding).toBe('post');
    const google = await samlIdpFor(h, i.instanceId, created.body, { idp, entityId: GOOGLE, origin: 'https://accounts.google.com' });

    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const started = await b.call('POST', '/v1/client/sign_ins', {
      body: { strategy: 'enterprise_sso', identifier: 'ada@google.field.test', redirect_url: 'http://localhost:3000/after' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const url = new URL(started.body.response.first_factor_verification.external_verification_redirect_url);
    expect(url.pathname).toMatch(new RegExp(`^/fapi/${i.instanceId}/sso/saml/${created.body.id}/requests/ssor_`));

    const page = await h.request('GET', url.pathname);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[\w+/=]+'/);
    const html = await page.text();
    expect(html).toContain('<form method="post" action="https://accounts.google.com/o/saml2/idp?idpid=C01abcd23">');
    const requestId = await google.requestIdOfForm(html);

    const res = await google.postAcs(await google.response(requestId, { email: 'ada@google.field.test' }), b);
    expect(res.status, await res.clone().text()).toBe(303);
    expect((await b.call('GET', '/v1/client')).body.sessions).toHaveLength(1);
    // The page answers only a request in flight of this connection.
    expect((await h.request('GET', url.pathname)).status).toBe(404);
    expect((await h.request('GET', url.pathname.replace(/ssor_\w+$/, 'ssor_unknown'))).status).toBe(404);
  });
});

describe('NameIDPolicy', () => {
  const policyOf = async (connectionId: string, email: string) => {
    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const res = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'enterprise_sso', identifier: email } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const request = new URL(res.body.response.first_factor_verification.external_verification_redirect_url).searchParams.get(
      'SAMLRequest',
    )!;
    const xml = inflateRawSync(Buffer.from(request, 'base64')).toString('utf8');
    expect(connectionId).toBeTruthy();
    return /<samlp:NameIDPolicy[^>]*Format="([^"]+)"/.exec(xml)?.[1] ?? (xml.includes('NameIDPolicy') ? 'without format' : null);
  };

  it('asks for unspecified by default (AD FS and Shibboleth answer it without a rule), for what the connection names, or for no format', async () => {
    const adfs = (await bapi('GET', `/v1/sso_connections?organization_id=${orgId}`)).body.data.find(
      (c: { name: string }) => c.name === 'adfs',
    );
    expect(await policyOf(adfs.id, 'ada@adfs.field.test')).toBe('urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified');
    for (const [format, urn] of [
      ['email_address', 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
      ['persistent', 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent'],
      ['none', 'without format'],
    ] as const) {
      const updated = await bapi('PATCH', `/v1/sso_connections/${adfs.id}`, { saml: { name_id_format: format } });
      expect(updated.body.saml.name_id_format).toBe(format);
      expect(await policyOf(adfs.id, 'ada@adfs.field.test')).toBe(urn);
    }
  });
});

/** Each IdP's own response shape (AD FS's transient NameID and claims, Shibboleth's OIDs, …) is in saml-responses.test.ts. */
describe('attribute names without case, and a long group list', () => {
  const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';
  const connectionNamed = async (name: string) =>
    (await bapi('GET', `/v1/sso_connections?organization_id=${orgId}&limit=100`)).body.data.find((c: { name: string }) => c.name === name);

  /** Signs `nameId` in through connection `name` with IdP `entityId` sending `attributes`; answers the user and their role. */
  async function signIn(name: string, entityId: string, nameId: string, attributes: Record<string, string[]>) {
    const conn = await connectionNamed(name);
    const idp = await samlIdpFor(h, i.instanceId, conn, {
      idp: makeSamlIdp({ entityId, ssoUrl: conn.saml.idp_sso_url }),
      entityId,
      origin: new URL(conn.saml.idp_sso_url).origin,
    });
    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const started = await b.call('POST', '/v1/client/sign_ins', {
      body: { strategy: 'enterprise_sso', identifier: `someone@${name}.field.test`, redirect_url: 'http://localhost:3000/after' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const requestId = await idp.requestIdOf(started.body.response.first_factor_verification.external_verification_redirect_url);
    const res = await idp.postAcs(await idp.response(requestId, { email: nameId, attributes }), b);
    expect(res.status, await res.clone().text()).toBe(303);
    const client = await b.call('GET', '/v1/client');
    const userId = client.body.sessions[0].user?.id ?? client.body.sessions[0].user_id;
    const user = (await bapi('GET', `/v1/users/${userId}`)).body;
    const membership = (await bapi('GET', `/v1/organizations/${orgId}/memberships?limit=100`)).body.data.find(
      (m: { public_user_data: { user_id: string } }) => m.public_user_data.user_id === userId,
    );
    return { user, role: membership?.role as string, conn };
  }

  beforeAll(async () => {
    for (const name of ['keycloak', 'entra', 'okta']) {
      const conn = await connectionNamed(name);
      expect((await bapi('PATCH', `/v1/sso_connections/${conn.id}`, { role_mapping: { Admins: 'org:admin' } })).status).toBe(200);
    }
  });

  it('Keycloak: its Role attribute; OneLogin-style and mixed-case names are found without case', async () => {
    const kc = await signIn('keycloak', 'https://keycloak.acme.test/realms/acme', 'kc-user-1', {
      EMAIL: ['kay@keycloak.field.test'],
      FirstName: ['Kay'],
      lastname: ['Sparck'],
      Role: ['Admins'],
    });
    expect(kc.user).toMatchObject({ first_name: 'Kay', last_name: 'Sparck' });
    expect(kc.role).toBe('org:admin');
    const ol = await signIn('okta', 'http://www.okta.com/exk1fcia6d6EMsf331t8', 'ol-user-1', {
      'User.email': ['lin@okta.field.test'],
      'User.FirstName': ['Lin'],
      'User.LastName': ['Ma'],
      group: ['Staff'],
    });
    expect(ol.user).toMatchObject({ first_name: 'Lin', last_name: 'Ma', email_addresses: [{ email_address: 'lin@okta.field.test' }] });
  });

  it('Entra: a user in 150 groups gets the role of the mapped one, wherever it is in the list', async () => {
    const groups = Array.from({ length: 150 }, (_, n) => (n === 140 ? 'Admins' : `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`));
    const { user, role } = await signIn('entra', 'https://sts.windows.net/9188040d-6c67-4c5b-b112-36a304b66dad/', 'entra-user-1', {
      [`${CLAIMS}/emailaddress`]: ['eve@entra.field.test'],
      [`${CLAIMS}/givenname`]: ['Eve'],
      [`${CLAIMS}/surname`]: ['Smith'],
      'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups': groups,
    });
    expect(user.first_name).toBe('Eve');
    expect(role).toBe('org:admin');
  });
});
