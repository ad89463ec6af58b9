import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { validationError } from '../http/errors';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const BINDINGS = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const;
type SsoBinding = keyof typeof BINDINGS;

/** More than any IdP publishes (two during a rollover, a few across a federation's keys). */
export const MAX_IDP_CERTIFICATES = 16;

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** HTTP-Redirect when the IdP offers it, else HTTP-POST (an auto-submitting form). */
  ssoBinding: SsoBinding;
  certificates: string[];
}

const bad = (why: string) => validationError('saml.idp_metadata_xml', 'metadata_invalid', `The IdP metadata ${why}.`);

/**
 * The identity provider of a metadata document as IdPs and federations publish it: one
 * EntityDescriptor, or an EntitiesDescriptor (nested ones too) from which the IdP entity is
 * picked by `entityId` when it holds several. A KeyDescriptor without `use` serves signing.
 */
export function parseIdpMetadata(xml: string, entityId?: string): IdpMetadata {
  if (/<!DOCTYPE/i.test(xml)) throw bad('must not contain a DOCTYPE');
  let root: Element | null;
  try {
    root = new DOMParser({ errorHandler: () => undefined }).parseFromString(xml, 'text/xml').documentElement;
  } catch {
    throw bad('is not well-formed XML');
  }
  if (!root || root.namespaceURI !== MD || (root.localName !== 'EntityDescriptor' && root.localName !== 'EntitiesDescriptor')) {
    throw bad('is not an EntityDescriptor or EntitiesDescriptor');
  }
  const entities = (
    root.localName === 'EntityDescriptor' ? [root] : Array.from(root.getElementsByTagNameNS(MD, 'EntityDescriptor'))
  ).filter((e) => e.getElementsByTagNameNS(MD, 'IDPSSODescriptor').length > 0 && e.getAttribute('entityID'));
  if (entities.length === 0) throw bad('has no IDPSSODescriptor with an entityID');
  const entity = entityId ? entities.find((e) => e.getAttribute('entityID') === entityId) : entities.length === 1 ? entities[0] : undefined;
  if (!entity) {
    throw entityId
      ? bad(`names no identity provider ${JSON.stringify(entityId.slice(0, 200))}`)
      : bad(`names ${entities.length} identity providers: give saml.idp_entity_id to pick one`);
  }
  const idp = entity.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0]!;
  const services = Array.from(idp.getElementsByTagNameNS(MD, 'SingleSignOnService'));
  const serviceOf = (binding: SsoBinding) =>
    services.find((s) => s.getAttribute('Binding') === BINDINGS[binding])?.getAttribute('Location');
  const ssoBinding: SsoBinding | undefined = serviceOf('redirect') ? 'redirect' : serviceOf('post') ? 'post' : undefined;
  if (!ssoBinding) throw bad('names no HTTP-Redirect or HTTP-POST SingleSignOnService');
  const certificates = Array.from(idp.getElementsByTagNameNS(MD, 'KeyDescriptor'))
    // xmldom answers "" (not null) for a missing attribute: no `use` means signing and encryption.
    .filter((k) => ['', 'signing'].includes(k.getAttribute('use') ?? ''))
    .flatMap((k) => Array.from(k.getElementsByTagNameNS(DS, 'X509Certificate')).map((c) => (c.textContent ?? '').replace(/\s+/g, '')))
    .filter((c) => c.length > 0);
  if (certificates.length === 0) throw bad('names no signing certificate');
  const distinct = [...new Set(certificates)];
  if (distinct.length > MAX_IDP_CERTIFICATES) throw bad(`names more than ${MAX_IDP_CERTIFICATES} signing certificates`);
  distinct.forEach((c, n) => assertReadableCertificate(c, 'saml.idp_metadata_xml', n));
  return { entityId: entity.getAttribute('entityID')!, ssoUrl: serviceOf(ssoBinding)!, ssoBinding, certificates: distinct };
}

/** Certificates as node-saml takes them: base64 DER without PEM armour. */
export const bareCertificate = (c: string) => c.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

function parse(certificate: string): X509Certificate | null {
  try {
    return new X509Certificate(Buffer.from(bareCertificate(certificate), 'base64'));
  } catch {
    return null;
  }
}

/** Refuses (422 metadata_invalid at `param`) a certificate that is not a readable X.509 certificate; an expired one is kept. */
export function assertReadableCertificate(certificate: string, param: string, index: number): void {
  if (!parse(certificate)) {
    throw validationError(
      param,
      'metadata_invalid',
      `Signing certificate ${index + 1} is not a readable X.509 certificate (truncated or not base64 DER / PEM).`,
    );
  }
}

/** What an operator needs to tell the IdP's certificates apart and see one expire. */
export function certificateDetails(certificates: string[], now: number) {
  return certificates.flatMap((c) => {
    const x = parse(c);
    if (!x) return [];
    const notAfter = Date.parse(x.validTo);
    return [
      {
        subject: x.subject.replace(/\n/g, ', '),
        fingerprint_sha256: x.fingerprint256,
        not_before: Date.parse(x.validFrom),
        not_after: notAfter,
        expired: notAfter <= now,
      },
    ];
  });
}
