import { z } from 'zod';
import { SAML_NAME_ID_FORMATS, SSO_IDP_PRESETS } from '../db/schema';
import { MAX_IDP_CERTIFICATES } from './idp-metadata';
import { cursorPageSchema, pageQuery } from '../http/pagination';

const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .min(3)
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'is not a domain name');
const httpUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .regex(/^https?:\/\/[^\s/?#@]+(?:[/?#]\S*)?$/, 'is not an http(s) URL');
const attrName = z.string().trim().min(1).max(256);
const roleKey = z.string().trim().min(1).max(64);

const attributeMappingInput = z.strictObject({
  email: attrName.optional(),
  first_name: attrName.optional(),
  last_name: attrName.optional(),
  groups: attrName.optional(),
});

const certificate = z.string().trim().min(64).max(16_384);

const samlInput = z.strictObject({
  idp_entity_id: z.string().trim().min(1).max(1024).optional(),
  idp_sso_url: httpUrl.optional(),
  idp_certificates: z.array(certificate).max(MAX_IDP_CERTIFICATES).optional(),
  /** How the AuthnRequest reaches idp_sso_url (read from the metadata when it is given). */
  idp_sso_binding: z.enum(['redirect', 'post']).optional(),
  name_id_format: z
    .enum(SAML_NAME_ID_FORMATS)
    .meta({
      description:
        'The NameIDPolicy of the AuthnRequests: unspecified (default: the IdP sends its configured format), email_address, persistent, transient, or none (a NameIDPolicy without Format: the IdP’s default).',
    })
    .optional(),
  /** The IdP's metadata document: entity id, SSO URL and certificates are read from it. */
  idp_metadata_xml: z
    .string()
    .min(1)
    .max(256 * 1024)
    .meta({
      description:
        'An EntityDescriptor, or an EntitiesDescriptor holding the IdP (picked by idp_entity_id when it holds several), with an IDPSSODescriptor, an HTTP-Redirect or HTTP-POST SingleSignOnService and readable signing certificates (422 metadata_invalid otherwise).',
    })
    .optional(),
  /** Fetched once (through the SSRF guard) on create/update, like idp_metadata_xml. */
  idp_metadata_url: httpUrl
    .meta({ description: 'Fetched through the SSRF guard (422 metadata_unreachable otherwise), then read like idp_metadata_xml.' })
    .optional(),
  allow_idp_initiated: z.boolean().optional(),
  /** Sign AuthnRequests (HTTP-Redirect, RSA-SHA256) with an SP key made for the connection; its certificate is in the SP metadata. */
  sign_authn_requests: z.boolean().optional(),
});

const oidcInput = z.strictObject({
  issuer: httpUrl,
  client_id: z.string().trim().min(1).max(512),
  /** Write-only: stored encrypted, never shown. */
  client_secret: z.string().min(1).max(2048).optional(),
  scopes: z.string().trim().min(1).max(512).optional(),
});

const common = {
  name: z.string().trim().min(1).max(256),
  domains: z.array(domainName).min(1).max(50).meta({
    description:
      'Verified domains of the organization (422 domain_not_verified otherwise), each in one connection of the instance only (409 domain_taken).',
  }),
  active: z.boolean().meta({
    description:
      'Active connections serve sign-ins; one needs its IdP entity id, SSO URL and certificate (SAML) or issuer and client id (OIDC), and the settings of its own provider only (422 invalid_value otherwise).',
  }),
  attribute_mapping: attributeMappingInput,
  /** IdP group → organization role key; the highest mapped group wins over default_role. */
  role_mapping: z.record(z.string().min(1).max(256), roleKey).refine((r) => Object.keys(r).length <= 100, 'at most 100 entries'),
  default_role: roleKey.nullable(),
  idp_preset: z.enum(SSO_IDP_PRESETS).meta({
    description:
      'The identity provider (okta, entra, adfs, google, onelogin, jumpcloud, shibboleth, keycloak, ping, auth0, generic): its attribute names are read first.',
  }),
  idp_enforces_mfa: z.boolean().meta({
    description:
      'The IdP enforces MFA itself: users signing in through this connection are not asked the instance’s second factor (default false; every change is audited).',
  }),
};

/** The fields of a new connection, before the cross-field rules (createConnectionRules). */
export const createConnectionFields = z.strictObject({
  organization_id: z.string().min(1).max(64),
  provider: z.enum(['saml', 'oidc']),
  ...common,
  active: common.active.optional(),
  attribute_mapping: common.attribute_mapping.optional(),
  role_mapping: common.role_mapping.optional(),
  default_role: common.default_role.optional(),
  idp_enforces_mfa: common.idp_enforces_mfa.optional(),
  idp_preset: common.idp_preset.optional(),
  saml: samlInput.optional(),
  oidc: oidcInput.meta({ description: 'Required for provider oidc (422 required otherwise).' }).optional(),
});

/** A provider's own settings only, and OIDC's required (every surface that creates connections). */
export function createConnectionRules(v: { provider: 'saml' | 'oidc'; saml?: unknown; oidc?: unknown }, ctx: z.RefinementCtx) {
  if (v.provider === 'saml' && v.oidc)
    ctx.addIssue({ code: 'custom', path: ['oidc'], message: 'is for OIDC connections', params: { reason: 'invalid_value' } });
  if (v.provider === 'oidc' && v.saml)
    ctx.addIssue({ code: 'custom', path: ['saml'], message: 'is for SAML connections', params: { reason: 'invalid_value' } });
  if (v.provider === 'oidc' && !v.oidc)
    ctx.addIssue({ code: 'custom', path: ['oidc'], message: 'is required', params: { reason: 'required' } });
}

export const createConnectionBody = createConnectionFields.superRefine(createConnectionRules);
export type CreateConnectionInput = z.output<typeof createConnectionBody>;

export const updateConnectionBody = z.strictObject({
  name: common.name.optional(),
  domains: common.domains.optional(),
  active: common.active.optional(),
  attribute_mapping: common.attribute_mapping.optional(),
  role_mapping: common.role_mapping.optional(),
  default_role: common.default_role.optional(),
  idp_enforces_mfa: common.idp_enforces_mfa.optional(),
  idp_preset: common.idp_preset.optional(),
  saml: samlInput.optional(),
  oidc: oidcInput.partial().optional(),
});
export type UpdateConnectionInput = z.output<typeof updateConnectionBody>;

export const listConnectionsQuery = z.object({ ...pageQuery, organization_id: z.string().min(1).max(64).optional() });

export const connectionSchema = z
  .object({
    object: z.literal('sso_connection'),
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    provider: z.enum(['saml', 'oidc']),
    domains: z.array(z.string()),
    active: z.boolean(),
    attribute_mapping: z.object({
      email: z.string().optional(),
      first_name: z.string().optional(),
      last_name: z.string().optional(),
      groups: z.string().optional(),
    }),
    role_mapping: z.record(z.string(), z.string()),
    default_role: z.string().nullable(),
    idp_enforces_mfa: z.boolean(),
    idp_preset: z.enum(SSO_IDP_PRESETS),
    saml: z
      .object({
        idp_entity_id: z.string().nullable(),
        idp_sso_url: z.string().nullable(),
        idp_sso_binding: z.enum(['redirect', 'post']),
        idp_certificates: z.array(z.string()),
        /** One per readable certificate, in order: an expired one stays (an IdP may still sign with it) and says so. */
        idp_certificate_details: z.array(
          z.object({
            subject: z.string(),
            fingerprint_sha256: z.string(),
            not_before: z.number().int(),
            not_after: z.number().int(),
            expired: z.boolean(),
          }),
        ),
        name_id_format: z.enum(SAML_NAME_ID_FORMATS),
        idp_metadata_url: z.string().nullable(),
        allow_idp_initiated: z.boolean(),
        sign_authn_requests: z.boolean(),
        /** The SP's signing certificate (PEM) while requests are signed; never the key. */
        sp_signing_certificate: z.string().nullable(),
        sp_entity_id: z.string(),
        sp_acs_url: z.string(),
        sp_metadata_url: z.string(),
      })
      .nullable(),
    oidc: z
      .object({
        issuer: z.string().nullable(),
        client_id: z.string().nullable(),
        client_secret_set: z.boolean(),
        scopes: z.string(),
        redirect_uri: z.string(),
      })
      .nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
    deleted: z.literal(true).optional(),
  })
  .meta({ id: 'SsoConnection' });
export const connectionList = cursorPageSchema(connectionSchema);
