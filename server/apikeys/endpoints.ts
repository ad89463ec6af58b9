import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, updateApiKey } from './api-keys';
import {
  apiKeyListSchema,
  apiKeySchema,
  createApiKeyBody,
  createdApiKeySchema,
  listApiKeysQuery,
  revokeApiKeyBody,
  updateApiKeyBody,
} from './schemas';

/** The API key endpoints of a surface that manages every key of an instance (BAPI, dashboard). */
export function apiKeyEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    create: endpoint<Auth, z.output<typeof createApiKeyBody>>({
      summary: 'Mint an end-user API key for a user or organization; the answer carries its ak_ secret, once',
      audit: { action: 'api_key.created', recordedBy: 'domain' },
      body: createApiKeyBody,
      response: createdApiKeySchema,
      handle: ({ deps, auth, body, actor }) => createApiKey(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    list: endpoint<Auth, never, z.output<typeof listApiKeysQuery>>({
      summary: 'List API keys, newest first (cursor pagination); filter by subject and revoked',
      query: listApiKeysQuery,
      response: apiKeyListSchema,
      handle: ({ deps, auth, query }) => listApiKeys(deps, instanceOf(auth).id, query),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get an API key (never its secret)',
      response: apiKeySchema,
      handle: ({ deps, auth, params }) => getApiKey(deps, instanceOf(auth).id, params.id),
    }),
    update: endpoint<Auth, z.output<typeof updateApiKeyBody>, never, 'id'>({
      summary: 'Update an API key’s name, description, scopes or claims',
      audit: { action: 'api_key.updated', recordedBy: 'domain' },
      body: updateApiKeyBody,
      response: apiKeySchema,
      handle: ({ deps, auth, params, body, actor }) => updateApiKey(deps, instanceOf(auth).id, params.id, body, auditContextOf(actor)),
    }),
    revoke: endpoint<Auth, z.output<typeof revokeApiKeyBody>, never, 'id'>({
      summary: 'Revoke an API key for good (a revoked one: no change)',
      audit: { action: 'api_key.revoked', recordedBy: 'domain' },
      body: revokeApiKeyBody,
      response: apiKeySchema,
      handle: ({ deps, auth, params, body, actor }) => revokeApiKey(deps, instanceOf(auth).id, params.id, body, auditContextOf(actor)),
    }),
  };
}
