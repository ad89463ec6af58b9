import { z } from 'zod';
import { SOCIAL_PROVIDER_KINDS } from '../db/schema';
import { isHttpUrl } from '../http/url';

/** A provider's name is the slug of its FAPI strategy, `oauth_<name>`. */
const PROVIDER_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,39}$/;
export const OAUTH_STRATEGY_RE = /^oauth_([a-z0-9][a-z0-9_-]{0,39})$/;

const url = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => isHttpUrl(v), { message: 'must be an absolute http(s) URL', params: { reason: 'invalid_url' } })
  .meta({ description: 'An absolute http(s) URL (422 invalid_url otherwise).' });
const scope = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/);

const endpointsInput = z
  .strictObject({
    authorization_endpoint: url.optional(),
    token_endpoint: url.optional(),
    userinfo_endpoint: url.optional(),
    jwks_uri: url.optional(),
    /** GitHub: where /user and /user/emails are read (https://api.github.com; GitHub Enterprise or a test double otherwise). */
    api_base_url: url.optional(),
  })
  .meta({
    description:
      'Endpoint overrides: GitHub (authorization, token, API base; all three needed, 422 required) or an OIDC preset pointed elsewhere (over its discovery document).',
  });

const common = {
  client_id: z.string().trim().min(1).max(512),
  display_name: z.string().trim().min(1).max(64).optional(),
  issuer: url.optional().meta({
    description:
      'OIDC issuer (discovery at /.well-known/openid-configuration). Required for kind oidc and for microsoft without tenant_id (422 required); overrides a Google or Microsoft preset. An absolute http(s) URL (422 invalid_url otherwise).',
  }),
  tenant_id: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9.-]{1,128}$/)
    .optional()
    .meta({ description: 'Microsoft: the directory (tenant) id; the issuer is https://login.microsoftonline.com/<tenant_id>/v2.0.' }),
  endpoints: endpointsInput.optional(),
  scopes: z.array(scope).min(1).max(20).optional(),
  enabled: z.boolean().optional(),
};

export const createProviderBody = z.strictObject({
  kind: z.enum(SOCIAL_PROVIDER_KINDS).meta({
    description:
      'A preset, oidc, or mock: the built-in mock provider of test instances (no client; its authorize page is served by Latchkey; 403 mock_provider_test_only on a production instance).',
  }),
  name: z.string().trim().regex(PROVIDER_NAME_RE).optional().meta({
    description:
      'Slug of the strategy oauth_<name>, unique in the instance (422 taken); the kind for a preset (google, microsoft, github, apple, facebook, linkedin, discord, gitlab, slack) unless given; required for oidc (422 required).',
  }),
  ...common,
  client_id: common.client_id.optional().meta({ description: 'Required (422 required) except for kind mock.' }),
  client_secret: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .meta({ description: 'Write-only: encrypted at rest, never returned. Required (422 required) except for kind mock.' }),
});

export const updateProviderBody = z.strictObject({
  ...common,
  client_id: common.client_id.optional(),
  client_secret: z.string().min(1).max(2048).optional(),
});

export const providerSchema = z
  .object({
    object: z.literal('social_provider'),
    id: z.string(),
    name: z.string(),
    strategy: z.string(),
    kind: z.enum(SOCIAL_PROVIDER_KINDS),
    display_name: z.string(),
    client_id: z.string(),
    /** The secret itself is never returned. */
    client_secret_set: z.boolean(),
    issuer: z.string().nullable(),
    endpoints: z.record(z.string(), z.string()),
    scopes: z.array(z.string()),
    enabled: z.boolean(),
    /** Register this as the redirect (callback) URI at the provider. */
    callback_url: z.string(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'SocialProvider' });

export const providerListSchema = z.object({ object: z.literal('list'), data: z.array(providerSchema), has_more: z.boolean() });
export const deletedProviderSchema = z.object({ object: z.literal('social_provider'), id: z.string(), deleted: z.literal(true) });
