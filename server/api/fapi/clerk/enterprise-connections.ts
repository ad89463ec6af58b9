import { z } from 'zod';
import { endpoint } from '../../../http/endpoint';
import { lightListSchema } from '../../../http/pagination';
import { SSO_PROVIDERS } from '../../../db/schema';
import { connectionsOfUser } from '../../../sso/user-connections';
import type { SignedInAuth } from '../authenticate';
import { meQuery, type MeQuery } from '../users';

/**
 * `user.getEnterpriseConnections()`: the signed-in user's SSO connections (their organizations'
 * and those they signed in through), active ones only. What a member may see of a connection:
 * never its IdP settings.
 */
const userConnectionSchema = z
  .object({
    object: z.literal('enterprise_connection'),
    id: z.string(),
    name: z.string(),
    provider: z.enum(SSO_PROVIDERS),
    active: z.boolean(),
    domains: z.array(z.string()),
    organization_id: z.string(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'UserEnterpriseConnection' });

export const myEnterpriseConnections = {
  list: endpoint<SignedInAuth, never, MeQuery>({
    summary:
      'The signed-in user’s active SSO connections: those of their organizations and those they signed in through (names and domains, never IdP settings)',
    query: meQuery,
    response: lightListSchema(userConnectionSchema),
    handle: async ({ deps, auth }) => {
      const rows = await connectionsOfUser(deps, auth.instance.id, auth.me.userId);
      return {
        object: 'list' as const,
        data: rows.map((c) => ({
          object: 'enterprise_connection' as const,
          id: c.id,
          name: c.name,
          provider: c.provider,
          active: c.active,
          domains: c.domains,
          organization_id: c.organizationId,
          created_at: c.createdAt,
          updated_at: c.updatedAt,
        })),
        has_more: false,
      };
    },
  }),
};
