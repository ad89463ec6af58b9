import { boolean, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { flowBindingColumns, millis, timestamps } from './columns';
import { organizations } from './organizations';
import { users } from './users';

export const SSO_PROVIDERS = ['saml', 'oidc'] as const;
export type SsoProvider = (typeof SSO_PROVIDERS)[number];
/** The NameID format an AuthnRequest asks for (`none`: a NameIDPolicy without Format, the IdP's default). */
export const SAML_NAME_ID_FORMATS = ['unspecified', 'email_address', 'persistent', 'transient', 'none'] as const;
export type SamlNameIdFormat = (typeof SAML_NAME_ID_FORMATS)[number];
/** IdP presets: each brings its own attribute names first and its setup steps (idp_preset in server/sso/schemas.ts). */
export const SSO_IDP_PRESETS = [
  'generic',
  'okta',
  'entra',
  'adfs',
  'google',
  'onelogin',
  'jumpcloud',
  'shibboleth',
  'keycloak',
  'ping',
  'auth0',
] as const;
export type SsoIdpPreset = (typeof SSO_IDP_PRESETS)[number];

/** How IdP attributes (SAML attribute names, OIDC claim names) map onto the user. */
export interface SsoAttributeMapping {
  email?: string;
  first_name?: string;
  last_name?: string;
  groups?: string;
}

/**
 * An organization's enterprise connection (`ssoc_`): SAML 2.0 or OIDC. The OIDC client
 * secret is encrypted with ENCRYPTION_KEY and never shown again.
 */
export const ssoConnections = pgTable(
  'sso_connections',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    provider: text('provider', { enum: SSO_PROVIDERS }).notNull(),
    /** Lower-case domain names, each a verified domain of the organization. */
    domains: jsonb('domains').$type<string[]>().notNull(),
    active: boolean('active').notNull(),
    attributeMapping: jsonb('attribute_mapping').$type<SsoAttributeMapping>().notNull(),
    /** IdP group name → organization role key. */
    roleMapping: jsonb('role_mapping').$type<Record<string, string>>().notNull(),
    defaultRole: text('default_role'),
    /** The IdP enforces MFA itself: the instance's second factor is not asked again after this connection's sign-ins. */
    idpEnforcesMfa: boolean('idp_enforces_mfa').notNull().default(false),
    // SAML
    idpEntityId: text('idp_entity_id'),
    idpSsoUrl: text('idp_sso_url'),
    /** How the AuthnRequest reaches idp_sso_url: a redirect, or an auto-submitting form for HTTP-POST-only IdPs. */
    idpSsoBinding: text('idp_sso_binding', { enum: ['redirect', 'post'] })
      .notNull()
      .default('redirect'),
    nameIdFormat: text('name_id_format', { enum: SAML_NAME_ID_FORMATS }).notNull().default('unspecified'),
    idpPreset: text('idp_preset', { enum: SSO_IDP_PRESETS }).notNull().default('generic'),
    /** PEM or base64 DER certificates the IdP signs with. */
    idpCertificates: jsonb('idp_certificates').$type<string[]>().notNull(),
    idpMetadataUrl: text('idp_metadata_url'),
    allowIdpInitiated: boolean('allow_idp_initiated').notNull(),
    /** AuthnRequests go out signed (HTTP-Redirect SigAlg/Signature) with the SP key below. */
    signAuthnRequests: boolean('sign_authn_requests').notNull().default(false),
    /** The SP's RSA signing key (PKCS#8 PEM), encrypted with ENCRYPTION_KEY; made when signing is first turned on. */
    spSigningKeyEncrypted: text('sp_signing_key_encrypted'),
    /** Its self-signed X.509 certificate (PEM), published in the SP metadata. */
    spSigningCertificate: text('sp_signing_certificate'),
    // OIDC
    oidcIssuer: text('oidc_issuer'),
    oidcClientId: text('oidc_client_id'),
    oidcClientSecretEncrypted: text('oidc_client_secret_encrypted'),
    oidcScopes: text('oidc_scopes'),
    ...timestamps(),
  },
  (t) => [index('sso_connections_instance_idx').on(t.instanceId, t.id), index('sso_connections_org_idx').on(t.organizationId)],
);

/** A user's identity at one connection (the SAML NameID or OIDC `sub`). */
export const ssoAccounts = pgTable(
  'sso_accounts',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    connectionId: text('connection_id')
      .notNull()
      .references(() => ssoConnections.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    subject: text('subject').notNull(),
    emailAddress: text('email_address').notNull(),
    attributes: jsonb('attributes').$type<Record<string, unknown>>().notNull(),
    lastSignInAt: millis('last_sign_in_at').notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [uniqueIndex('sso_accounts_subject_uq').on(t.connectionId, t.subject), index('sso_accounts_user_idx').on(t.userId)],
);

/**
 * One SP-initiated sign-in in flight (`ssor_`): the SAML AuthnRequest id (InResponseTo) or
 * the OIDC state, with the PKCE verifier and nonce; consumed by the callback.
 */
export const ssoRequests = pgTable(
  'sso_requests',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    connectionId: text('connection_id')
      .notNull()
      .references(() => ssoConnections.id, { onDelete: 'cascade' }),
    /** SAML AuthnRequest id or OIDC state (random, unguessable). */
    handle: text('handle').notNull(),
    signInAttemptId: text('sign_in_attempt_id'),
    clientId: text('client_id'),
    redirectUrl: text('redirect_url'),
    /** Where the browser goes when the sign-in completed (Clerk's `action_complete_redirect_url`); null: `redirect_url`. */
    completeRedirectUrl: text('complete_redirect_url'),
    codeVerifier: text('code_verifier'),
    nonce: text('nonce'),
    ...flowBindingColumns(),
    expiresAt: millis('expires_at').notNull(),
    consumedAt: millis('consumed_at'),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [uniqueIndex('sso_requests_handle_uq').on(t.connectionId, t.handle)],
);

/** Assertion ids already accepted, kept until they expire: a replayed assertion is refused. */
export const ssoAssertionIds = pgTable(
  'sso_assertion_ids',
  {
    connectionId: text('connection_id')
      .notNull()
      .references(() => ssoConnections.id, { onDelete: 'cascade' }),
    assertionId: text('assertion_id').notNull(),
    expiresAt: millis('expires_at').notNull(),
  },
  (t) => [uniqueIndex('sso_assertion_ids_uq').on(t.connectionId, t.assertionId)],
);
