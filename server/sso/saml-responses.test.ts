import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import * as samlify from 'samlify';
import { beforeAll, describe, expect, it } from 'vitest';
import { ssoAccounts } from '../db/schema';
import { fapiClient } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { makeSamlIdp, samlFixture, samlIdpFor } from '../testing/saml-idp';

/**
 * SAML Responses in the shape each identity provider sends them (fixtures/responses, sources in
 * fixtures/README.md): element order, prefixes, NameID format, attribute names and NameFormat, which
 * element is signed and with which `ds` prefix. Each is filled in (ids, times, audience, destination,
 * InResponseTo), signed with the test key as that IdP signs, and posted through the normal sign-in;
 * the user that results has the email, names and role that IdP's defaults carry — the connection
 * names only its `idp_preset` and a role mapping, no attribute mapping.
 */
const h = sharedHarness();
const i = sharedInstance(h);
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });
const read = (dir: string, name: string) => readFileSync(join(__dirname, 'fixtures', dir, name), 'utf8');

type Signed = 'response' | 'assertion' | 'both';
interface Shape {
  /** fixtures/responses/<file> */
  file: string;
  preset: string;
  /** fixtures/metadata/<file>, or the IdP's settings typed by hand (Auth0 has no metadata fixture). */
  metadata: string | { idp_entity_id: string; idp_sso_url: string };
  entityId: string;
  signed: Signed;
  /** The prefix of the XML-DSig elements ('' = default namespace, as .NET and Auth0 write them). */
  dsPrefix: string;
  /** The group the role mapping names (as the IdP sends it). */
  group: string;
  email: string;
  firstName: string;
  lastName: string;
}

const SHAPES: Record<string, Shape> = {
  okta: {
    file: 'okta.xml',
    preset: 'okta',
    metadata: 'okta.xml',
    entityId: 'http://www.okta.com/exk1fcia6d6EMsf331t8',
    signed: 'both',
    dsPrefix: 'ds',
    group: 'Latchkey Admins',
    email: 'ada.okta@okta.resp.test',
    firstName: 'Ada',
    lastName: 'Okta',
  },
  auth0: {
    file: 'auth0.xml',
    preset: 'auth0',
    metadata: { idp_entity_id: 'urn:acme.eu.auth0.com', idp_sso_url: 'https://acme.eu.auth0.com/samlp/Xq7bZ2kLmN4pR8sT1vW3yA5cE6gH9jK0' },
    entityId: 'urn:acme.eu.auth0.com',
    signed: 'assertion',
    dsPrefix: '',
    group: 'latchkey-admins',
    email: 'bob.auth0@auth0.resp.test',
    firstName: 'Bob',
    lastName: 'Auth',
  },
  adfs: {
    file: 'adfs.xml',
    preset: 'adfs',
    metadata: 'adfs.xml',
    entityId: 'http://adfs.acme.test/adfs/services/trust',
    signed: 'assertion',
    dsPrefix: 'ds',
    group: 'Latchkey-Admins',
    email: 'carol.adfs@adfs.resp.test',
    firstName: 'Carol',
    lastName: 'Federation',
  },
  onelogin: {
    file: 'onelogin.xml',
    preset: 'onelogin',
    metadata: 'onelogin.xml',
    entityId: 'https://app.onelogin.com/saml/metadata/5f1d2c3b-aaaa-bbbb-cccc-0123456789ab',
    signed: 'assertion',
    dsPrefix: 'ds',
    group: 'Latchkey Admins',
    email: 'dan.onelogin@onelogin.resp.test',
    firstName: 'Dan',
    lastName: 'Login',
  },
  ping: {
    file: 'pingfederate.xml',
    preset: 'ping',
    metadata: 'pingfederate.xml',
    entityId: 'https://sso.acme.test:9031',
    signed: 'response',
    dsPrefix: 'ds',
    group: 'CN=Latchkey Admins,OU=Groups,DC=acme,DC=test',
    email: 'erin.ping@ping.resp.test',
    firstName: 'Erin',
    lastName: 'Ping',
  },
  entra: {
    file: 'entra.xml',
    preset: 'entra',
    metadata: 'entra.xml',
    entityId: 'https://sts.windows.net/9188040d-6c67-4c5b-b112-36a304b66dad/',
    signed: 'assertion',
    dsPrefix: '',
    group: '0b5c7e3a-8d2f-4a61-b9c4-5e7f1a2d3c4b',
    email: 'frank.entra@entra.resp.test',
    firstName: 'Frank',
    lastName: 'Entra',
  },
  google: {
    file: 'google.xml',
    preset: 'google',
    metadata: 'google.xml',
    entityId: 'https://accounts.google.com/o/saml2?idpid=C01abcd23',
    signed: 'assertion',
    dsPrefix: 'ds',
    group: 'latchkey-admins@google.resp.test',
    email: 'grace.google@google.resp.test',
    firstName: 'Grace',
    lastName: 'Google',
  },
  keycloak: {
    file: 'keycloak.xml',
    preset: 'keycloak',
    metadata: 'keycloak.xml',
    entityId: 'https://keycloak.acme.test/realms/acme',
    signed: 'response',
    dsPrefix: 'dsig',
    group: 'latchkey-admin',
    email: 'heidi.keycloak@keycloak.resp.test',
    firstName: 'Heidi',
    lastName: 'Keycloak',
  },
  shibboleth: {
    file: 'shibboleth.xml',
    preset: 'shibboleth',
    metadata: 'testshib.xml',
    entityId: 'https://idp.testshib.org/idp/shibboleth',
    signed: 'response',
    dsPrefix: 'ds',
    group: 'urn:mace:testshib.org:groups:latchkey-admins',
    email: 'ivan.shib@shibboleth.resp.test',
    firstName: 'Ivan',
    lastName: 'Shibboleth',
  },
};

const KEY = samlFixture('idp-key.pem');
const CERT = samlFixture('idp-cert.pem');
const BARE_CERT = CERT.replace(/-----[^-]+-----|\s/g, '');
const RESPONSE = "/*[local-name(.)='Response']";
const ASSERTION = `${RESPONSE}/*[local-name(.)='Assertion']`;

/** An enveloped RSA-SHA256 signature of `element`, placed after its Issuer as SAML Core 5.3 wants, with the IdP's prefix. */
const sign = (xml: string, element: string, prefix: string): string =>
  samlify.SamlLib.constructSAMLSignature({
    rawSamlMessage: xml,
    referenceTagXPath: element,
    privateKey: KEY,
    signingCert: BARE_CERT,
    isBase64Output: false,
    signatureConfig: {
      ...(prefix ? { prefix } : {}),
      location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' },
    },
  } as Parameters<typeof samlify.SamlLib.constructSAMLSignature>[0]) as string;

/** The fixture with this request's values in, signed the way its IdP signs. */
function fill(shape: Shape, to: { acsUrl: string; audience: string; inResponseTo: string }): string {
  const now = new Date();
  const values: Record<string, string> = {
    ResponseID: `_${randomUUID()}`,
    AssertionID: `_${randomUUID()}`,
    IssueInstant: now.toISOString(),
    NotBefore: new Date(now.getTime() - 30_000).toISOString(),
    NotOnOrAfter: new Date(now.getTime() + 5 * 60_000).toISOString(),
    Destination: to.acsUrl,
    Audience: to.audience,
    InResponseTo: to.inResponseTo,
  };
  let xml = read('responses', shape.file).replace(/\{\{(\w+)\}\}/g, (_m, k: string) => {
    if (!(k in values)) throw new Error(`${shape.file}: unknown placeholder ${k}`);
    return values[k]!;
  });
  if (shape.signed !== 'response') xml = sign(xml, ASSERTION, shape.dsPrefix);
  if (shape.signed !== 'assertion') xml = sign(xml, RESPONSE, shape.dsPrefix);
  return Buffer.from(xml).toString('base64');
}

let orgId: string;
const connections = new Map<string, { id: string; saml: { sp_acs_url: string; sp_entity_id: string; idp_sso_url: string } }>();

beforeAll(async () => {
  const org = await bapi('POST', '/v1/organizations', { name: 'Responses' });
  orgId = org.body.id;
  for (const [idp, shape] of Object.entries(SHAPES)) {
    const domain = await bapi('POST', `/v1/organizations/${orgId}/domains`, { name: `${idp}.resp.test` });
    expect((await bapi('PATCH', `/v1/organizations/${orgId}/domains/${domain.body.id}`, { verified: true })).status).toBe(200);
    const saml =
      typeof shape.metadata === 'string'
        ? { idp_metadata_xml: read('metadata', shape.metadata) }
        : { ...shape.metadata, idp_certificates: [CERT] };
    const created = await bapi('POST', '/v1/sso_connections', {
      organization_id: orgId,
      provider: 'saml',
      name: idp,
      domains: [`${idp}.resp.test`],
      active: true,
      idp_preset: shape.preset,
      role_mapping: { [shape.group]: 'org:admin' },
      saml,
    });
    expect(created.status, `${idp}: ${JSON.stringify(created.body)}`).toBe(201);
    expect(created.body.attribute_mapping ?? {}).toEqual({});
    connections.set(idp, created.body);
  }
});

/** One sign-in through the connection of `idp`, answered by its fixture: the user and their role in the organization. */
async function signIn(idp: string) {
  const shape = SHAPES[idp]!;
  const conn = connections.get(idp)!;
  const sso = await samlIdpFor(h, i.instanceId, conn, {
    idp: makeSamlIdp({ entityId: shape.entityId, ssoUrl: conn.saml.idp_sso_url }),
    entityId: shape.entityId,
    origin: new URL(conn.saml.idp_sso_url).origin,
  });
  const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
  const started = await b.call('POST', '/v1/client/sign_ins', {
    body: { strategy: 'enterprise_sso', identifier: shape.email, redirect_url: 'http://localhost:3000/after' },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const idpUrl: string = started.body.response.first_factor_verification.external_verification_redirect_url;
  // An HTTP-POST-only IdP (Google) is reached through our auto-submitting form.
  const requestId = new URL(idpUrl).searchParams.has('SAMLRequest')
    ? await sso.requestIdOf(idpUrl)
    : await sso.requestIdOfForm(await (await h.request('GET', new URL(idpUrl).pathname)).text());
  const res = await sso.postAcs(
    fill(shape, { acsUrl: conn.saml.sp_acs_url, audience: conn.saml.sp_entity_id, inResponseTo: requestId }),
    b,
  );
  expect(res.status, await res.clone().text()).toBe(303);
  const sessions = (await b.call('GET', '/v1/client')).body.sessions;
  expect(sessions).toHaveLength(1);
  const userId: string = sessions[0].user?.id ?? sessions[0].user_id;
  const user = (await bapi('GET', `/v1/users/${userId}`)).body;
  const membership = (await bapi('GET', `/v1/organizations/${orgId}/memberships?limit=100`)).body.data.find(
    (m: { public_user_data: { user_id: string } }) => m.public_user_data.user_id === userId,
  );
  return { user, role: membership?.role as string | undefined };
}

describe('responses shaped like each IdP’s, posted through the ACS with the preset’s defaults', () => {
  it.each(Object.keys(SHAPES))('%s', async (idp) => {
    const shape = SHAPES[idp]!;
    const first = await signIn(idp);
    expect(first.user).toMatchObject({
      first_name: shape.firstName,
      last_name: shape.lastName,
      email_addresses: [{ email_address: shape.email }],
    });
    expect(first.role).toBe('org:admin');
    // Signing in again (a new transient NameID for AD FS and Shibboleth) is the same user, one identity.
    const again = await signIn(idp);
    expect(again.user.id).toBe(first.user.id);
    const rows = await h.runtime.deps.db
      .select()
      .from(ssoAccounts)
      .where(eq(ssoAccounts.connectionId, connections.get(idp)!.id));
    expect(rows).toHaveLength(1);
  });
});

describe('the fixtures are held to their signatures', () => {
  it.each(['okta', 'entra', 'keycloak'])('%s: an address changed after signing is refused, nobody signed in', async (idp) => {
    const shape = SHAPES[idp]!;
    const conn = connections.get(idp)!;
    const sso = await samlIdpFor(h, i.instanceId, conn, {
      idp: makeSamlIdp({ entityId: shape.entityId, ssoUrl: conn.saml.idp_sso_url }),
      entityId: shape.entityId,
      origin: new URL(conn.saml.idp_sso_url).origin,
    });
    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'enterprise_sso', identifier: shape.email } });
    const requestId = await sso.requestIdOf(started.body.response.first_factor_verification.external_verification_redirect_url);
    const signed = Buffer.from(
      fill(shape, { acsUrl: conn.saml.sp_acs_url, audience: conn.saml.sp_entity_id, inResponseTo: requestId }),
      'base64',
    ).toString('utf8');
    const forged = signed.replaceAll(shape.email, `mallory@${idp}.resp.test`);
    expect(forged).not.toBe(signed);
    const res = await sso.postAcs(Buffer.from(forged).toString('base64'), b);
    expect(res.status).not.toBe(303);
    expect((await b.call('GET', '/v1/client')).body.sessions ?? []).toHaveLength(0);
  });
});
