import { DOMParser } from '@xmldom/xmldom';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { ssoAssertionIds, ssoConnections, ssoRequests } from '../db/schema';
import { bareCertificate } from './idp-metadata';
import type { SsoReason } from './reasons';

type ConnectionRow = typeof ssoConnections.$inferSelect;

/** Small skew for the assertion's validity window. */
const SAML_CLOCK_SKEW_MS = 60_000;
/** How long an AuthnRequest may wait for its answer. */
export const SSO_REQUEST_TTL_MS = 10 * 60_000;

export const spUrls = (fapiUrl: string, connectionId: string) => ({
  entityId: `${fapiUrl}/sso/saml/${connectionId}/metadata`,
  acsUrl: `${fapiUrl}/sso/saml/${connectionId}/acs`,
  metadataUrl: `${fapiUrl}/sso/saml/${connectionId}/metadata`,
});

/**
 * InResponseTo is checked against the AuthnRequests this connection sent and that are
 * still waiting (sso_requests); the callback consumes the row in its transaction.
 */
function requestStore(deps: Pick<Deps, 'db' | 'clock'>, connectionId: string): CacheProvider {
  return {
    saveAsync: async () => null,
    removeAsync: async () => null,
    getAsync: async (key) => {
      const [row] = await deps.db
        .select({ createdAt: ssoRequests.createdAt })
        .from(ssoRequests)
        .where(
          and(
            eq(ssoRequests.connectionId, connectionId),
            eq(ssoRequests.handle, key),
            isNull(ssoRequests.consumedAt),
            gt(ssoRequests.expiresAt, deps.clock.now()),
          ),
        );
      return row ? new Date(row.createdAt).toISOString() : null;
    },
  };
}

/** `none`: a NameIDPolicy without Format. AD FS refuses an emailAddress policy (MSIS1000), Shibboleth one it has no rule for. */
const NAME_ID_FORMAT_URNS: Record<ConnectionRow['nameIdFormat'], string | null> = {
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  email_address: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  none: null,
};

type SamlDeps = Pick<Deps, 'db' | 'clock' | 'cipher'>;

/** The connection's SP signing key, when its AuthnRequests go out signed. */
const signingOptions = (deps: SamlDeps, c: ConnectionRow) =>
  c.signAuthnRequests && c.spSigningKeyEncrypted
    ? { privateKey: deps.cipher.decrypt(c.spSigningKeyEncrypted), signatureAlgorithm: 'sha256' as const }
    : {};

function samlFor(deps: SamlDeps, c: ConnectionRow, fapiUrl: string, requestId?: string) {
  const sp = spUrls(fapiUrl, c.id);
  return new SAML({
    ...signingOptions(deps, c),
    issuer: sp.entityId,
    audience: sp.entityId,
    callbackUrl: sp.acsUrl,
    entryPoint: c.idpSsoUrl ?? undefined,
    idpIssuer: c.idpEntityId ?? undefined,
    idpCert: c.idpCertificates.length ? c.idpCertificates.map(bareCertificate) : ['-'],
    // At least one of the response and its assertion must carry a valid signature (node-saml refuses neither).
    wantAssertionsSigned: false,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    validateInResponseTo: c.allowIdpInitiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SSO_REQUEST_TTL_MS,
    cacheProvider: requestStore(deps, c.id),
    identifierFormat: NAME_ID_FORMAT_URNS[c.nameIdFormat],
    // HTTP-POST binding carries the request base64 encoded, not deflated (SAML Bindings §3.5.4).
    ...(c.idpSsoBinding === 'post' ? { authnRequestBinding: 'HTTP-POST', skipRequestCompression: true } : {}),
    disableRequestedAuthnContext: true,
    generateUniqueId: () => requestId ?? `_${crypto.randomUUID()}`,
  });
}

/**
 * The SP metadata document of a connection (no encryption key: assertions come signed, in
 * clear). With signed AuthnRequests it says AuthnRequestsSigned="true" and carries the
 * signing certificate in a KeyDescriptor use="signing".
 */
export const spMetadata = (deps: SamlDeps, c: ConnectionRow, fapiUrl: string) =>
  samlFor(deps, c, fapiUrl).generateServiceProviderMetadata(
    null,
    c.signAuthnRequests && c.spSigningCertificate ? c.spSigningCertificate : null,
  );

/**
 * Where the browser goes to reach the IdP: the AuthnRequest in the redirect's query, or —
 * for an HTTP-POST-only IdP — our page that posts it (samlRequestForm).
 */
export async function authnRequestUrl(
  deps: SamlDeps,
  c: ConnectionRow,
  fapiUrl: string,
  handle: string,
  requestRowId: string,
): Promise<string> {
  if (c.idpSsoBinding === 'post') return `${fapiUrl}/sso/saml/${c.id}/requests/${requestRowId}`;
  return samlFor(deps, c, fapiUrl, handle).getAuthorizeUrlAsync('', undefined, {});
}

/** The fields of an HTTP-POST AuthnRequest answering request `handle` (same id, so InResponseTo still matches). */
export async function authnRequestFields(deps: SamlDeps, c: ConnectionRow, fapiUrl: string, handle: string) {
  const message = await samlFor(deps, c, fapiUrl, handle).getAuthorizeMessageAsync('', undefined, {});
  return Object.fromEntries(Object.entries(message).map(([k, v]) => [k, String(v)]));
}

export class SsoRefused extends Error {
  constructor(
    readonly reason: SsoReason,
    message: string,
  ) {
    super(message);
    this.name = 'SsoRefused';
  }
}

const attr = (el: Element | undefined | null, name: string) => el?.getAttribute(name) ?? null;

/**
 * Validates a posted SAMLResponse: signature (response or assertion, by the connection's
 * certificates, no wrapping), issuer, audience, validity window, InResponseTo (node-saml),
 * then Destination, Recipient and the assertion id's replay here.
 */
export async function validateSamlResponse(deps: SamlDeps, c: ConnectionRow, fapiUrl: string, samlResponse: string) {
  const sp = spUrls(fapiUrl, c.id);
  let profile: Profile | null;
  try {
    ({ profile } = await samlFor(deps, c, fapiUrl).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (err) {
    throw new SsoRefused(reasonOf(err), `The SAML response was refused: ${(err as Error).message}`);
  }
  if (!profile) throw new SsoRefused('no_assertion', 'The SAML response carries no assertion.');
  const responseXml = profile.getSamlResponseXml?.() ?? '';
  const responseRoot = new DOMParser().parseFromString(responseXml, 'text/xml').documentElement;
  const destination = attr(responseRoot, 'Destination');
  if (destination !== null && destination !== sp.acsUrl)
    throw new SsoRefused('wrong_destination', 'The SAML response is addressed to another Destination.');
  // The verified assertion (node-saml returns the signed element, or the signed response's only assertion).
  const assertion = new DOMParser().parseFromString(profile.getAssertionXml?.() ?? '', 'text/xml').documentElement;
  // node-saml checks idpIssuer only on logout messages: the response's Issuer (optional) and the
  // signed assertion's (required) must both name the connection's IdP.
  const issuerOf = (el: Element | null | undefined) => {
    const first = el ? Array.from(el.childNodes).find((n) => (n as Element).localName === 'Issuer') : undefined;
    return first ? (first.textContent ?? '').trim() : null;
  };
  const responseIssuer = issuerOf(responseRoot);
  const assertionIssuer = issuerOf(assertion);
  if (!c.idpEntityId || assertionIssuer !== c.idpEntityId || (responseIssuer !== null && responseIssuer !== c.idpEntityId)) {
    throw new SsoRefused('wrong_issuer', "The SAML response names another Issuer than the connection's identity provider.");
  }
  const confirmations = Array.from(
    assertion?.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'SubjectConfirmationData') ?? [],
  );
  if (confirmations.length === 0 || confirmations.some((d) => attr(d, 'Recipient') !== sp.acsUrl)) {
    throw new SsoRefused('wrong_recipient', 'The SAML assertion is meant for another Recipient.');
  }
  const assertionId = attr(assertion, 'ID');
  if (!assertionId) throw new SsoRefused('no_assertion', 'The SAML assertion has no ID.');
  const notOnOrAfter = confirmations.map((d) => Date.parse(attr(d, 'NotOnOrAfter') ?? '')).find((t) => Number.isFinite(t));
  const now = deps.clock.now();
  await deps.db
    .delete(ssoAssertionIds)
    .where(and(eq(ssoAssertionIds.connectionId, c.id), lt(ssoAssertionIds.expiresAt, now - SAML_CLOCK_SKEW_MS)));
  const stored = await deps.db
    .insert(ssoAssertionIds)
    .values({ connectionId: c.id, assertionId, expiresAt: (notOnOrAfter ?? now + SSO_REQUEST_TTL_MS) + SAML_CLOCK_SKEW_MS })
    .onConflictDoNothing()
    .returning();
  if (stored.length === 0) throw new SsoRefused('replayed', 'This SAML assertion was already used.');
  const inResponseTo = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null;
  return { profile, inResponseTo, assertionId, attributes: assertionAttributes(assertion) };
}

const SAML_ASSERTION_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
const childrenNamed = (el: Element | null | undefined, localName: string): Element[] =>
  el
    ? (Array.from(el.childNodes).filter(
        (n) => (n as Element).localName === localName && (n as Element).namespaceURI === SAML_ASSERTION_NS,
      ) as Element[])
    : [];

/**
 * The verified assertion's attributes by Name, every value kept: node-saml keeps one of several
 * `Attribute` elements of the same Name, and Keycloak's role list writes one per role. An
 * attribute's `FriendlyName` (Keycloak's X.500 mappers, Shibboleth) is an alias after every Name.
 * Values that are elements (eduPersonTargetedID's NameID) or `xsi:nil` are left out.
 */
function assertionAttributes(assertion: Element | null | undefined): Record<string, string[]> {
  const byName: Record<string, string[]> = {};
  const byFriendlyName: Record<string, string[]> = {};
  for (const statement of childrenNamed(assertion, 'AttributeStatement')) {
    for (const attribute of childrenNamed(statement, 'Attribute')) {
      const values = childrenNamed(attribute, 'AttributeValue')
        .filter((v) => v.getAttributeNS(XSI_NS, 'nil') !== 'true' && !Array.from(v.childNodes).some((n) => n.nodeType === 1))
        .map((v) => (v.textContent ?? '').trim())
        .filter((v) => v.length > 0);
      const name = attribute.getAttribute('Name');
      if (name) (byName[name] ??= []).push(...values);
      const friendly = attribute.getAttribute('FriendlyName');
      if (friendly) (byFriendlyName[friendly] ??= []).push(...values);
    }
  }
  const names = new Set(Object.keys(byName).map((n) => n.toLowerCase()));
  for (const [friendly, values] of Object.entries(byFriendlyName)) if (!names.has(friendly.toLowerCase())) byName[friendly] = values;
  return byName;
}

function reasonOf(err: unknown): SsoReason {
  const m = String((err as Error)?.message ?? '');
  if (/InResponseTo/i.test(m)) return 'in_response_to_mismatch';
  if (/audience/i.test(m)) return 'wrong_audience';
  if (/expired|NotOnOrAfter|NotBefore|not yet valid|no valid subject confirmation/i.test(m)) return 'expired';
  if (/issuer/i.test(m)) return 'wrong_issuer';
  if (/signature/i.test(m)) return 'invalid_signature';
  if (/status/i.test(m)) return 'idp_error';
  return 'invalid_response';
}
