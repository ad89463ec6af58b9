import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import { pageQuery } from '../../http/pagination';
import type { OrgMemberAuth, SignedInAuth } from './authenticate';
import { meQuery } from './users';
import { createApiKey, listApiKeys, revokeApiKey } from '../../apikeys/api-keys';
import { apiKeyListSchema, apiKeySchema, createdApiKeySchema, createOwnApiKeyBody, revokeApiKeyBody } from '../../apikeys/schemas';

/**
 * Self-service API keys on the FAPI: a signed-in user's own keys (`/v1/me/api_keys`) and,
 * for members holding org:sys_api_keys:manage, their organization's. Users name their keys
 * and pick an expiry; scopes and claims are the customer's to grant (BAPI PATCH).
 */
const listQuery = meQuery.extend(pageQuery);
type CreateBody = z.output<typeof createOwnApiKeyBody>;
type RevokeBody = z.output<typeof revokeApiKeyBody>;

/** `keyParam` names the key's path parameter (the organization's routes have the organization's `:id` too). */
function selfServiceEndpoints<Auth extends SignedInAuth, K extends string>(whose: string, keyParam: K, subjectOf: (auth: Auth) => string) {
  return {
    list: endpoint<Auth, never, z.output<typeof listQuery>>({
      summary: `${whose} unrevoked API keys, newest first (cursor pagination)`,
      query: listQuery,
      response: apiKeyListSchema,
      handle: ({ deps, auth, query }) => listApiKeys(deps, auth.instance.id, { ...query, subject: subjectOf(auth), revoked: false }),
    }),
    create: endpoint<Auth, CreateBody, z.output<typeof meQuery>>({
      summary: `Mint one of ${whose} API keys (name, description, expiry); the ak_ secret is shown once`,
      audit: { action: 'api_key.created', recordedBy: 'domain' },
      body: createOwnApiKeyBody,
      query: meQuery,
      response: createdApiKeySchema,
      handle: ({ deps, auth, body, actor }) =>
        createApiKey(deps, auth.instance.id, { ...body, subject: subjectOf(auth), created_by: auth.me.userId }, auditContextOf(actor)),
    }),
    revoke: endpoint<Auth, RevokeBody, z.output<typeof meQuery>, K>({
      summary: `Revoke one of ${whose} API keys (another subject’s is 404)`,
      audit: { action: 'api_key.revoked', recordedBy: 'domain' },
      body: revokeApiKeyBody,
      query: meQuery,
      response: apiKeySchema,
      handle: ({ deps, auth, params, body, actor }) =>
        revokeApiKey(deps, auth.instance.id, params[keyParam], { ...body, subject: subjectOf(auth) }, auditContextOf(actor)),
    }),
  };
}

export const myApiKeys = selfServiceEndpoints('the signed-in user’s', 'id', (auth: SignedInAuth) => auth.me.userId);
export const organizationApiKeys = selfServiceEndpoints(
  'the organization’s (org:sys_api_keys:manage)',
  'key_id',
  (auth: OrgMemberAuth) => auth.org.organization.id,
);
