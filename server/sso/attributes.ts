import type { SsoAttributeMapping, SsoIdpPreset } from '../db/schema';

export type Field = keyof Required<SsoAttributeMapping>;

const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';
const MS_CLAIMS = 'http://schemas.microsoft.com/ws/2008/06/identity/claims';
/** X.500 / eduPerson attribute OIDs (Shibboleth, Keycloak with "urn:oid" names, InCommon IdPs). */
const OID = {
  mail: 'urn:oid:0.9.2342.19200300.100.1.3',
  givenName: 'urn:oid:2.5.4.42',
  sn: 'urn:oid:2.5.4.4',
  isMemberOf: 'urn:oid:1.3.6.1.4.1.5923.1.5.1.1',
  eduPersonEntitlement: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.7',
  emailAddress: 'urn:oid:1.2.840.113549.1.9.1',
};

/**
 * The attribute (SAML) or claim (OIDC) names each identity provider sends by default, in the
 * order they are tried. A connection's preset puts its IdP's names first; every other preset's
 * follow, so a connection without a preset (or with the wrong one) still finds them.
 */
const PRESET_NAMES: Record<SsoIdpPreset, Record<Field, string[]>> = {
  generic: {
    email: ['email', 'mail', 'emailAddress'],
    first_name: ['firstName', 'givenName', 'given_name'],
    last_name: ['lastName', 'surname', 'sn', 'family_name'],
    groups: ['groups', 'memberOf'],
  },
  okta: {
    email: ['email', 'user.email'],
    first_name: ['firstName', 'user.firstName'],
    last_name: ['lastName', 'user.lastName'],
    groups: ['groups'],
  },
  entra: {
    email: [`${CLAIMS}/emailaddress`, `${CLAIMS}/name`],
    first_name: [`${CLAIMS}/givenname`],
    last_name: [`${CLAIMS}/surname`],
    groups: [`${MS_CLAIMS}/groups`, `${MS_CLAIMS}/role`],
  },
  adfs: {
    email: [`${CLAIMS}/emailaddress`, `${CLAIMS}/upn`, 'upn'],
    first_name: [`${CLAIMS}/givenname`],
    last_name: [`${CLAIMS}/surname`],
    groups: [`${MS_CLAIMS}/role`, 'http://schemas.xmlsoap.org/claims/Group', 'role'],
  },
  google: {
    email: ['email', 'Email'],
    first_name: ['first_name', 'FirstName'],
    last_name: ['last_name', 'LastName'],
    groups: ['groups', 'Groups'],
  },
  onelogin: {
    email: ['User.email', 'Email'],
    first_name: ['User.FirstName', 'FirstName'],
    last_name: ['User.LastName', 'LastName'],
    groups: ['group', 'memberOf', 'MemberOf'],
  },
  jumpcloud: {
    email: ['email'],
    first_name: ['firstname', 'firstName'],
    last_name: ['lastname', 'lastName'],
    groups: ['memberOf', 'groups'],
  },
  shibboleth: {
    email: [OID.mail, 'mail'],
    first_name: [OID.givenName, 'givenName'],
    last_name: [OID.sn, 'sn'],
    groups: [OID.isMemberOf, OID.eduPersonEntitlement, 'isMemberOf', 'eduPersonEntitlement'],
  },
  keycloak: {
    email: ['email', OID.emailAddress],
    first_name: ['firstName', 'givenName'],
    last_name: ['lastName', 'surname'],
    groups: ['Role', 'groups', 'member'],
  },
  ping: {
    email: ['mail', 'email', 'Email'],
    first_name: ['givenName', 'FirstName'],
    last_name: ['sn', 'LastName'],
    groups: ['memberOf', 'groups'],
  },
  auth0: {
    email: [`${CLAIMS}/emailaddress`, 'http://schemas.auth0.com/email'],
    first_name: [`${CLAIMS}/givenname`, 'http://schemas.auth0.com/given_name'],
    last_name: [`${CLAIMS}/surname`, 'http://schemas.auth0.com/family_name'],
    groups: ['http://schemas.auth0.com/groups', 'http://schemas.xmlsoap.org/claims/Group'],
  },
};

const PRESETS = Object.keys(PRESET_NAMES) as SsoIdpPreset[];

/** The names tried for `field`: the connection's own mapping alone when it has one, else its preset's, then every other's. */
export function namesFor(mapping: SsoAttributeMapping, preset: SsoIdpPreset, field: Field): string[] {
  const own = mapping[field];
  if (own) return [own];
  return [...new Set([preset, ...PRESETS.filter((p) => p !== preset)].flatMap((p) => PRESET_NAMES[p][field]))];
}

/** Enough for any directory's nesting; more is not looked at (the response itself is bounded). */
const MAX_GROUPS_READ = 5000;
/** What is kept on the SSO identity for operators to read; role mapping sees every group read. */
export const MAX_GROUPS_STORED = 100;

/**
 * Attribute values by name, names compared without case (RFC-less in SAML, but IdPs differ:
 * `Email`, `email`, `EmailAddress`). Values are strings or arrays of strings.
 */
export function attributeReader(attributes: Record<string, unknown>) {
  const byName = new Map<string, unknown>();
  for (const [k, v] of Object.entries(attributes)) {
    const key = k.toLowerCase();
    if (!byName.has(key)) byName.set(key, v);
  }
  const values = (name: string): string[] => {
    const v = byName.get(name.toLowerCase());
    if (typeof v === 'string') return [v];
    if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
    return [];
  };
  return {
    first: (names: string[], accept: (v: string) => boolean = (v) => v.length > 0) => {
      for (const n of names) {
        const hit = values(n).find((v) => accept(v.trim()));
        if (hit) return hit.trim();
      }
      return null;
    },
    all: (names: string[]) => [...new Set(names.flatMap(values))].slice(0, MAX_GROUPS_READ),
  };
}

export const isAddress = (v: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v);
