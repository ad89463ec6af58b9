import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import type { BapiAuth } from './authenticate';
import { publishedKeys, rotateSigningKeys } from '../../signing/signing-keys';

export const jwksSchema = z.object({
  keys: z.array(z.object({ kty: z.string(), n: z.string(), e: z.string(), kid: z.string(), alg: z.string(), use: z.string() })),
});

export const jwks = {
  get: endpoint<BapiAuth>({
    summary: 'The instance’s public signing keys (JWKS): current, next and recently retired',
    response: jwksSchema,
    handle: async ({ deps, auth }) => ({ keys: await publishedKeys(deps, auth.instance.id) }),
  }),
  rotate: endpoint<BapiAuth>({
    summary: 'Rotate signing keys: the published next key starts signing; the current one retires',
    audit: { action: 'signing_key.rotated' },
    response: z.object({
      object: z.literal('signing_key_rotation'),
      current: z.string(),
      next: z.string(),
      retired: z.string().nullable(),
    }),
    handle: async ({ deps, auth, actor }) => ({
      object: 'signing_key_rotation' as const,
      ...(await rotateSigningKeys(deps, auth.instance.id, auditContextOf(actor))),
    }),
  }),
};
