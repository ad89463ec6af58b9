import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { MAX_REFS, personSchema, resolvePeople } from '../../people/people';

const peopleQuery = z.strictObject({
  /** Comma-separated ids or actor refs (`user_…`, `session:sess_…`, `operator:user_…`, `org_…`, `key:key_…`). */
  refs: z
    .string()
    .max(MAX_REFS * 80)
    .transform((v) =>
      v
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().max(256)).max(MAX_REFS, { message: `at most ${MAX_REFS} refs` })),
});

export const people = {
  list: endpoint<ConsoleAuth, never, z.output<typeof peopleQuery>>({
    summary:
      'Names and emails of the users, sessions, operators, organizations and secret keys these ids or actor refs name (what the console shows instead of ids); unknown refs are left out',
    query: peopleQuery,
    response: z.object({ object: z.literal('list'), data: z.array(personSchema), has_more: z.literal(false) }),
    handle: async ({ deps, auth, query }) => ({
      object: 'list' as const,
      data: await resolvePeople(deps, routeInstance(auth).id, query.refs),
      has_more: false as const,
    }),
  }),
};
