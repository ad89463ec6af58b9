import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as samlify from 'samlify';
import type { FapiTestClient } from './fapi-client';
import type { TestHarness } from './harness';

/**
 * A SAML 2.0 identity provider built with samlify, signing with the test key pairs of
 * server/sso/fixtures: it reads our AuthnRequests, signs responses for any address, and
 * posts them to a connection's ACS the way a browser does (a cross-site form post).
 */
samlify.setSchemaValidator({ validate: async () => 'skipped' });

export const samlFixture = (name: string) => readFileSync(join(__dirname, '../sso/fixtures', name), 'utf8');
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

export type SamlIdp = ReturnType<typeof samlify.IdentityProvider>;
type Sp = ReturnType<typeof samlify.ServiceProvider>;

/** An IdP of `entityId` whose single sign-on URL is `ssoUrl`, signing with the fixture pair `key` (`idp` or `other`). */
export const makeSamlIdp = (o: { entityId: string; ssoUrl: string; key?: 'idp' | 'other'; wantAuthnRequestsSigned?: boolean }) =>
  samlify.IdentityProvider({
    entityID: o.entityId,
    privateKey: samlFixture(`${o.key ?? 'idp'}-key.pem`),
    signingCert: samlFixture(`${o.key ?? 'idp'}-cert.pem`),
    singleSignOnService: [{ Binding: REDIRECT_BINDING, Location: o.ssoUrl }],
    nameIDFormat: [EMAIL_FORMAT],
    ...(o.wantAuthnRequestsSigned ? { wantAuthnRequestsSigned: true } : {}),
  });

/** A connection as BAPI answers it (the SP side the IdP needs). */
export interface SamlConnection {
  id: string;
  saml: { sp_acs_url: string; sp_entity_id: string };
}

const escapeXml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const attribute = (name: string, values: string[]) =>
  `<saml:Attribute Name="${name}">${values.map((v) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`;

export interface ResponseOptions {
  /** Template values to override (Audience, Destination, InResponseTo, …). */
  over?: Record<string, string>;
  /** Another IdP signs (a forged response). */
  signer?: SamlIdp;
  /** The NameID (an address). */
  email: string;
  attributes?: Record<string, string[]>;
}

/**
 * The IdP `idp` (entity `entityId`, origin `origin`) facing one connection of one instance:
 * its SP is read from the connection's metadata over HTTP.
 */
export async function samlIdpFor(
  h: TestHarness,
  instanceId: string,
  conn: SamlConnection,
  idp: { idp: SamlIdp; entityId: string; origin: string },
) {
  const metadata = await h.request('GET', `/fapi/${instanceId}/sso/saml/${conn.id}/metadata`);
  if (metadata.status !== 200) throw new Error(`SP metadata answered ${metadata.status}`);
  const sp: Sp = samlify.ServiceProvider({ metadata: await metadata.text() });

  /** The AuthnRequest id carried by the IdP URL a sign-in's start answered. */
  async function requestIdOf(idpUrl: string): Promise<string> {
    const url = new URL(idpUrl);
    const { extract } = await idp.idp.parseLoginRequest(sp, 'redirect', { query: Object.fromEntries(url.searchParams) });
    return extract.request!.id as string;
  }

  /** The AuthnRequest id of a SAMLRequest posted with the HTTP-POST binding (base64, not deflated). */
  async function requestIdOfPosted(SAMLRequest: string): Promise<string> {
    const { extract } = await idp.idp.parseLoginRequest(sp, 'post', { body: { SAMLRequest } });
    return extract.request!.id as string;
  }

  /** The AuthnRequest id of the auto-submitting form an HTTP-POST connection's request page answers. */
  async function requestIdOfForm(html: string): Promise<string> {
    const SAMLRequest = /name="SAMLRequest" value="([^"]+)"/.exec(html)?.[1];
    if (!SAMLRequest) throw new Error('no SAMLRequest in the form');
    return requestIdOfPosted(SAMLRequest);
  }

  /** A signed SAMLResponse (base64) answering `requestId` ('' for IdP-initiated), with any template value overridden. */
  async function response(requestId: string, o: ResponseOptions): Promise<string> {
    const now = new Date();
    const later = new Date(now.getTime() + 5 * 60_000).toISOString();
    const values: Record<string, string> = {
      ID: `_${randomUUID()}`,
      AssertionID: `_${randomUUID()}`,
      Destination: conn.saml.sp_acs_url,
      Audience: conn.saml.sp_entity_id,
      SubjectRecipient: conn.saml.sp_acs_url,
      Issuer: idp.entityId,
      IssueInstant: now.toISOString(),
      StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
      ConditionsNotBefore: now.toISOString(),
      ConditionsNotOnOrAfter: later,
      SubjectConfirmationDataNotOnOrAfter: later,
      NameIDFormat: EMAIL_FORMAT,
      NameID: o.email,
      InResponseTo: requestId,
      AuthnStatement: '',
      ...o.over,
    };
    const attributes = `<saml:AttributeStatement>${Object.entries(o.attributes ?? {})
      .map(([k, v]) => attribute(k, v))
      .join('')}</saml:AttributeStatement>`;
    const signer = o.signer ?? idp.idp;
    const { context } = (await signer.createLoginResponse(
      sp,
      { extract: { request: { id: requestId } } },
      'post',
      { email: o.email },
      (template: string) => ({
        id: values.ID!,
        context: template.replace(/\{(\w+)\}/g, (_m, k: string) => (k === 'AttributeStatement' ? attributes : escapeXml(values[k] ?? ''))),
      }),
    )) as { context: string };
    return context;
  }

  /**
   * A cross-site form post from the IdP, a foreign Origin, by the browser `from`: it sends the
   * cookies a browser sends on a cross-site POST — the SameSite=None flow cookie, never the Lax
   * `__client` — or none (a stranger's browser).
   */
  async function postAcs(samlResponseB64: string, from?: FapiTestClient): Promise<Response> {
    const crossSite = [...(from?.cookies ?? [])].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await h.request('POST', `/fapi/${instanceId}/sso/saml/${conn.id}/acs`, {
      raw: new URLSearchParams({ SAMLResponse: samlResponseB64 }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: idp.origin, ...(crossSite ? { cookie: crossSite } : {}) },
    });
    // The browser keeps what it is given (its rotated client token).
    from?.keepCookies(res.headers);
    return res;
  }

  return { sp, requestIdOf, requestIdOfPosted, requestIdOfForm, response, postAcs };
}
export type SamlIdpForConnection = Awaited<ReturnType<typeof samlIdpFor>>;
