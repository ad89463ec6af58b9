import type { Profile } from '@node-saml/node-saml';
import { attributeReader, isAddress, MAX_GROUPS_STORED, namesFor, type Field } from './attributes';
import type { ConnectionRow } from './connections';
import type { SsoIdentity } from './flow';

const clip = (s: string | null | undefined, n = 256) => (s ? s.slice(0, n) : null);
const TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';

/** What the user's IdP says of them, read by the connection's mapping or its IdP's default names (server/sso/attributes.ts). */
function identityOf(c: ConnectionRow, attributes: Record<string, unknown>, fallbackEmail: string | null) {
  const read = attributeReader(attributes);
  const names = (field: Field) => namesFor(c.attributeMapping, c.idpPreset, field);
  // The mapped attribute when it holds an address, else the NameID / `sub` when that does.
  const email = read.first(names('email'), isAddress) ?? (fallbackEmail && isAddress(fallbackEmail) ? fallbackEmail : null);
  const groups = read.all(names('groups'));
  const stored = {
    email: clip(email, 320),
    first_name: clip(read.first(names('first_name'))),
    last_name: clip(read.first(names('last_name'))),
    groups: groups.slice(0, MAX_GROUPS_STORED),
  };
  return { email: stored.email, firstName: stored.first_name, lastName: stored.last_name, groups, attributes: stored };
}

/** The user of a validated SAML response: its NameID, and the attributes read from its verified assertion (saml.ts). */
export function samlIdentity(
  c: ConnectionRow,
  { profile, attributes }: { profile: Profile; attributes: Record<string, string[]> },
): SsoIdentity {
  const nameId = profile.nameID ?? '';
  const identity = identityOf(c, attributes, nameId);
  // A transient NameID changes on every sign-in: the identity is the address, so rows do not pile up.
  const subject = profile.nameIDFormat === TRANSIENT && identity.email ? `transient:${identity.email.toLowerCase()}` : nameId;
  return { subject: subject.slice(0, 512), emailVerified: true, ...identity };
}

export function oidcIdentity(c: ConnectionRow, claims: Record<string, unknown>): SsoIdentity {
  const identity = identityOf(c, claims, null);
  return {
    subject: String(claims.sub).slice(0, 512),
    // Enterprise IdPs vouch for their own domains; an explicit `email_verified: false` is refused.
    emailVerified: claims.email_verified !== false,
    ...identity,
  };
}
