import { DOMParser } from '@xmldom/xmldom';
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { ssoAssertionIds, ssoConnections, ssoRequests } from '../db/schema';
import { validationError } from '../http/errors';
import type { SsoReason } from './reasons';

type ConnectionRow = typeof ssoConnections.$inferSelect;

/** Small skew for the assertion's validity window. */
export const SAML_CLOCK_SKEW_MS = 60_000;
/** How long an AuthnRequest may wait for its answer. */
export const SSO_REQUEST_TTL_MS = 10 * 60_000;

export const spUrls = (fapiUrl: string, connectionId: string) => ({
  entityId: `${fapiUrl}/sso/saml/${connectionId}/metadata`,
  acsUrl: `${fapiUrl}/sso/saml/${connectionId}/acs`,
  metadataUrl: `${fapiUrl}/sso/saml/${connectionId}/metadata`,
});

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** Entity id, HTTP-Redirect SSO URL and signing certificates of an IdP metadata document. */
export function parseIdpMetadata(xml: string): { entityId: string; ssoUrl: string; certificates: string[] } {
  const bad = (why: string) => validationError('saml.idp_metadata_xml', 'metadata_invalid', `The IdP metadata ${why}.`);
  if (/<!DOCTYPE/i.test(xml)) throw bad('must not contain a DOCTYPE');
  let doc: ReturnType<DOMParser['parseFromString']>;
  try {
    doc = new DOMParser({ errorHandler: () => undefined }).parseFromString(xml, 'text/xml');
  } catch {
    throw bad('is not well-formed XML');
  }
  const root = doc.documentElement;
  if (!root || root.localName !== 'EntityDescriptor' || root.namespaceURI !== MD) throw bad('is not an EntityDescriptor');
  const entityId = root.getAttribute('entityID');
  const idp = root.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0];
  if (!entityId || !idp) throw bad('has no IDPSSODescriptor with an entityID');
  const services = Array.from(idp.getElementsByTagNameNS(MD, 'SingleSignOnService'));
  const ssoUrl = services.find((s) => s.getAttribute('Binding') === REDIRECT_BINDING)?.getAttribute('Location');
  if (!ssoUrl) throw bad('names no HTTP-Redirect SingleSignOnService');
  const certificates = Array.from(idp.getElementsByTagNameNS(MD, 'KeyDescriptor'))
    .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((k) => Array.from(k.getElementsByTagNameNS(DS, 'X509Certificate')).map((c) => (c.textContent ?? '').replace(/\s+/g, '')))
    .filter((c) => c.length > 0);
  if (certificates.length === 0) throw bad('names no signing certificate');
  return { entityId, ssoUrl, certificates: [...new Set(certificates)].slice(0, 4) };
}

/** Certificates as node-saml takes them: base64 DER without PEM armour. */
const bareCert = (c: string) => c.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

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
          and(eq(ssoRequests.connectionId, connectionId), eq(ssoRequests.handle, key), isNull(ssoRequests.consumedAt), gt(ssoRequests.expiresAt, deps.clock.now())),
        );
      return row ? new Date(row.createdAt).toISOString() : null;
    },
  };
}

type SamlDeps = Pick<Deps, 'db' | 'clock' | 'cipher'>;

/** The connection's SP signing key, when its AuthnRequests go out signed. */
const signingOptions = (deps: SamlDeps, c: ConnectionRow) =>
  c.signAuthnRequests && c.spSigningKeyEncrypted ? { privateKey: deps.cipher.decrypt(c.spSigningKeyEncrypted), signatureAlgorithm: 'sha256' as const } : {};

export function samlFor(deps: SamlDeps, c: ConnectionRow, fapiUrl: string, requestId?: string) {
  const sp = spUrls(fapiUrl, c.id);
  return new SAML({
    ...signingOptions(deps, c),
    issuer: sp.entityId,
    audience: sp.entityId,
    callbackUrl: sp.acsUrl,
    entryPoint: c.idpSsoUrl ?? undefined,
    idpIssuer: c.idpEntityId ?? undefined,
    idpCert: c.idpCertificates.length ? c.idpCertificates.map(bareCert) : ['-'],
    // At least one of the response and its assertion must carry a valid signature (node-saml refuses neither).
    wantAssertionsSigned: false,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    validateInResponseTo: c.allowIdpInitiated ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SSO_REQUEST_TTL_MS,
    cacheProvider: requestStore(deps, c.id),
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
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
  samlFor(deps, c, fapiUrl).generateServiceProviderMetadata(null, c.signAuthnRequests && c.spSigningCertificate ? c.spSigningCertificate : null);

export class SsoRefused extends Error {
  constructor(readonly reason: SsoReason, message: string) {
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
  const responseXml = profile.getSamlResponseXml?.() ?? "";
  const responseRoot = new DOMParser().parseFromString(responseXml, 'text/xml').documentElement;
  const destination = attr(responseRoot, 'Destination');
  if (destination !== null && destination !== sp.acsUrl) throw new SsoRefused('wrong_destination', 'The SAML response is addressed to another Destination.');
  // The verified assertion (node-saml returns the signed element, or the signed response's only assertion).
  const assertion = new DOMParser().parseFromString(profile.getAssertionXml?.() ?? "", 'text/xml').documentElement;
  // node-saml checks idpIssuer only on logout messages: the response's Issuer (optional) and the
  // signed assertion's (required) must both name the connection's IdP.
  const issuerOf = (el: Element | null | undefined) => {
    const first = el ? Array.from(el.childNodes).find((n) => (n as Element).localName === 'Issuer') : undefined;
    return first ? (first.textContent ?? '').trim() : null;
  };
  const responseIssuer = issuerOf(responseRoot);
  const assertionIssuer = issuerOf(assertion);
  if (!c.idpEntityId || assertionIssuer !== c.idpEntityId || (responseIssuer !== null && responseIssuer !== c.idpEntityId)) {
    throw new SsoRefused('wrong_issuer', 'The SAML response names another Issuer than the connection\'s identity provider.');
  }
  const confirmations = Array.from(assertion?.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'SubjectConfirmationData') ?? []);
  if (confirmations.length === 0 || confirmations.some((d) => attr(d, 'Recipient') !== sp.acsUrl)) {
    throw new SsoRefused('wrong_recipient', 'The SAML assertion is meant for another Recipient.');
  }
  const assertionId = attr(assertion, 'ID');
  if (!assertionId) throw new SsoRefused('no_assertion', 'The SAML assertion has no ID.');
  const notOnOrAfter = confirmations.map((d) => Date.parse(attr(d, 'NotOnOrAfter') ?? '')).find((t) => Number.isFinite(t));
  const now = deps.clock.now();
  await deps.db.delete(ssoAssertionIds).where(and(eq(ssoAssertionIds.connectionId, c.id), lt(ssoAssertionIds.expiresAt, now - SAML_CLOCK_SKEW_MS)));
  const stored = await deps.db
    .insert(ssoAssertionIds)
    .values({ connectionId: c.id, assertionId, expiresAt: (notOnOrAfter ?? now + SSO_REQUEST_TTL_MS) + SAML_CLOCK_SKEW_MS })
    .onConflictDoNothing()
    .returning();
  if (stored.length === 0) throw new SsoRefused('replayed', 'This SAML assertion was already used.');
  const inResponseTo = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null;
  return { profile, inResponseTo, assertionId };
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

/** A SAML attribute's values (profile attributes are strings or arrays of strings). */
export function samlAttribute(profile: Profile, name: string | undefined): string[] {
  if (!name) return [];
  const v = (profile as Record<string, unknown>)[name] ?? (profile.attributes as Record<string, unknown> | undefined)?.[name];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}
