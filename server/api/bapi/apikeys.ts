import type { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import type { BapiAuth } from './authenticate';
import { apiKeySchema, verifyApiKeyBody } from '../../apikeys/schemas';
import { verifyApiKey } from '../../apikeys/verify';
import { apiKeyEndpointsFor } from '../../apikeys/endpoints';

/** BAPI: the key's instance. */
export const bapiApiKeys = {
  ...apiKeyEndpointsFor<BapiAuth>((auth) => auth.instance),
  verify: endpoint<BapiAuth, z.output<typeof verifyApiKeyBody>>({
    summary: 'Verify a presented ak_ key: the key with its subject, scopes and claims, or 404 API_KEY_INVALID (unknown, revoked, expired)',
    audit: { unaudited: 'a read sent as POST (the secret stays out of the URL); uses show in last_used_at' },
    body: verifyApiKeyBody,
    response: apiKeySchema,
    handle: ({ deps, auth, body }) => verifyApiKey(deps, auth.instance.id, body.secret),
  }),
};
