import { z } from 'zod';
import { cursorPageSchema, pageQuery } from '../http/pagination';
import { OIDC_SCOPES, SCOPE_TOKEN_RE } from './scopes';

const uri = z.string().trim().min(1).max(2048).meta({
  description:
    'An absolute https URL, or http on a loopback host (RFC 8252), without fragment or credentials; matched exactly (422 redirect_uri_not_allowed otherwise).',
});
const uris = z.array(uri).max(20);
const scopes = z
  .array(
    z
      .string()
      .regex(SCOPE_TOKEN_RE, { message: 'A scope is printable ASCII without spaces, quotes or backslashes.' })
      .meta({ examples: [...OIDC_SCOPES] }),
  )
  .max(50);
const name = z.string().trim().min(1).max(256);
const jwksUri = z.string().trim().min(1).max(2048).nullable().meta({
  description:
    'Where the client publishes its public keys (for RS256 request objects); fetched through the SSRF guard: https and a public address on live instances (422 invalid_url otherwise).',
});
const jwks = z
  .object({ keys: z.array(z.record(z.string(), z.unknown())).min(1).max(10) })
  .nullable()
  .meta({
    description: 'The client’s public keys as a JSON Web Key Set (for RS256 request objects); used instead of jwks_uri when both are set.',
  });

const deviceFlow = z.boolean().meta({
  description:
    'Whether the app may use the Device Authorization Grant (RFC 8628, for CLIs and TVs) at {fapi_url}/oauth2/device_authorization.',
});

const backchannelLogoutUri = z.string().trim().min(1).max(2048).nullable().meta({
  description:
    'OpenID Back-Channel Logout 1.0: where a signed logout_token is POSTed when a session that signed into the app ends; https and a public address on live instances (422 invalid_url otherwise).',
});
const backchannelLogoutSessionRequired = z.boolean().meta({
  description: 'The app needs the `sid` claim in logout tokens (Latchkey always sends it).',
});

export const createApplicationBody = z.strictObject({
  name,
  redirect_uris: uris.default([]),
  post_logout_redirect_uris: uris.default([]),
  public: z.boolean().default(false),
  scopes: scopes.default(['openid', 'profile', 'email']),
  consent_screen_enabled: z.boolean().default(true),
  device_flow_enabled: deviceFlow.default(false),
  jwks_uri: jwksUri.default(null),
  jwks: jwks.default(null),
  backchannel_logout_uri: backchannelLogoutUri.default(null),
  backchannel_logout_session_required: backchannelLogoutSessionRequired.default(false),
});

export const updateApplicationBody = z.strictObject({
  name: name.optional(),
  redirect_uris: uris.optional(),
  post_logout_redirect_uris: uris.optional(),
  scopes: scopes.optional(),
  consent_screen_enabled: z.boolean().optional(),
  device_flow_enabled: deviceFlow.optional(),
  jwks_uri: jwksUri.optional(),
  jwks: jwks.optional(),
  backchannel_logout_uri: backchannelLogoutUri.optional(),
  backchannel_logout_session_required: backchannelLogoutSessionRequired.optional(),
});

export const listApplicationsQuery = z.object(pageQuery);

export const applicationSchema = z
  .object({
    object: z.literal('oauth_application'),
    id: z.string(),
    /** The app's id; public. */
    client_id: z.string(),
    name: z.string(),
    redirect_uris: z.array(z.string()),
    post_logout_redirect_uris: z.array(z.string()),
    public: z.boolean(),
    scopes: z.array(z.string()),
    consent_screen_enabled: z.boolean(),
    device_flow_enabled: z.boolean(),
    jwks_uri: z.string().nullable(),
    jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).nullable(),
    backchannel_logout_uri: z.string().nullable(),
    backchannel_logout_session_required: z.boolean(),
    /** Registered by the client itself (RFC 7591, with an initial access token), not created by an operator. */
    registered_dynamically: z.boolean(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'OAuthApplication' });

/** Creation and rotation: the secret, once (null for a public app). */
export const applicationWithSecretSchema = applicationSchema.extend({ client_secret: z.string().nullable() });
export const applicationListSchema = cursorPageSchema(applicationSchema);
export const deletedApplicationSchema = z.object({ object: z.literal('oauth_application'), id: z.string(), deleted: z.literal(true) });

const logoutDeliverySchema = z
  .object({
    object: z.literal('oauth_logout_delivery'),
    id: z.string(),
    application_id: z.string(),
    session_id: z.string(),
    user_id: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    next_attempt_at: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'OAuthLogoutDelivery' });
export const logoutDeliveryListSchema = cursorPageSchema(logoutDeliverySchema);
