import { z } from 'zod';
import { cursorPageSchema, pageQuery } from '../http/pagination';

const name = z.string().trim().min(1).max(256);
const url = z.string().trim().min(1).max(2048);
const identifier = z.string().trim().min(1).max(255);

const platformFields = {
  name,
  /** The platform's `iss`: usually its https origin (e.g. https://canvas.instructure.com). */
  issuer: url.meta({
    description: 'The platform issuer (the `iss` of its id_tokens), exactly as it sends it.',
    examples: ['https://canvas.instructure.com'],
  }),
  client_id: identifier.meta({ description: 'The client_id the platform gave this tool; (issuer, client_id) is unique.' }),
  authorization_endpoint: url.meta({
    description:
      'The platform’s OIDC authorization endpoint: an absolute http(s) URL without credentials or fragment (422 invalid_url otherwise).',
    examples: ['https://sso.canvaslms.com/api/lti/authorize_redirect'],
  }),
  jwks_uri: url.meta({
    description:
      'The platform’s public key set; fetched through the SSRF guard: https and a public address on live instances (422 invalid_url otherwise).',
    examples: ['https://sso.canvaslms.com/api/lti/security/jwks'],
  }),
  deployment_ids: z.array(identifier).min(1).max(100).meta({ description: 'The deployment_id allowlist.' }),
  target_link_uris: z
    .array(
      url.meta({
        description: 'An absolute http(s) URL without credentials or fragment (422 invalid_url otherwise).',
        examples: ['https://app.example.com/lti'],
      }),
    )
    .min(1)
    .max(50)
    .meta({ description: 'Where a launch may land; matched exactly.' }),
  organizations_from_contexts: z.boolean().default(false).meta({
    description:
      'Each course context of a launch maps to an organization (made on first use) that the learner joins: instructors and administrators as org:admin, others with the default role.',
  }),
};

export const createPlatformBody = z.strictObject(platformFields);
export const updatePlatformBody = z.strictObject({
  name: platformFields.name.optional(),
  authorization_endpoint: platformFields.authorization_endpoint.optional(),
  jwks_uri: platformFields.jwks_uri.optional(),
  deployment_ids: platformFields.deployment_ids.optional(),
  target_link_uris: platformFields.target_link_uris.optional(),
  organizations_from_contexts: z.boolean().optional(),
});
export type CreatePlatformInput = z.output<typeof createPlatformBody>;
export type UpdatePlatformInput = z.output<typeof updatePlatformBody>;

export const listPlatformsQuery = z.strictObject(pageQuery);

export const platformSchema = z
  .object({
    object: z.literal('lti_platform'),
    id: z.string(),
    name: z.string(),
    issuer: z.string(),
    client_id: z.string(),
    authorization_endpoint: z.string(),
    jwks_uri: z.string(),
    deployment_ids: z.array(z.string()),
    target_link_uris: z.array(z.string()),
    organizations_from_contexts: z.boolean(),
    /** The tool's endpoints to register on the platform side. */
    login_url: z.string(),
    launch_url: z.string(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'LtiPlatform' });
export const platformListSchema = cursorPageSchema(platformSchema);
export const deletedPlatformSchema = z.object({ object: z.literal('lti_platform'), id: z.string(), deleted: z.literal(true) });

/** Login initiation (GET query or form post); unknown parameters (lti_storage_target, …) are ignored. */
export const loginParams = z.object({
  iss: z.string().min(1).max(2048),
  login_hint: z.string().min(1).max(4096),
  target_link_uri: z.string().min(1).max(2048),
  lti_message_hint: z.string().max(4096).optional(),
  client_id: z.string().min(1).max(255).optional(),
  lti_deployment_id: z.string().min(1).max(255).optional(),
});
export type LoginParams = z.output<typeof loginParams>;

/** The platform's form post to the launch URL (response_mode=form_post). */
export const launchParams = z.object({
  id_token: z.string().min(1).max(65_536),
  state: z.string().min(1).max(512),
});
