import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import {
  accountMemberships,
  emailAddresses,
  instances,
  oauthInitialAccessTokens,
  organizations,
  secretKeys,
  sessions,
  users,
} from '../db/schema';

/**
 * Who an id or an actor ref names, for screens that should show people, not ids: users
 * (`user_…`, `user:<id>`), their sessions (`sess_…`, `session:<id>`), operators of the
 * instance's account (`operator:<id>`), organizations (`org_…`), secret keys (`key_…`,
 * `key:<id>`) and the OpenID Provider's initial access tokens (`oauth_initial_access_token:<id>`,
 * the actor of a dynamic registration). Only what belongs to the instance (or its account's operators) is named;
 * anything else is left out.
 */
const PERSON_KINDS = ['user', 'session', 'operator', 'organization', 'secret_key', 'initial_access_token'] as const;
type PersonKind = (typeof PERSON_KINDS)[number];

export const personSchema = z
  .object({
    ref: z.string(),
    kind: z.enum(PERSON_KINDS),
    id: z.string(),
    /** A name to show: the person's, the organization's or the key's; null when they have none (then the email). */
    name: z.string().nullable(),
    email: z.string().nullable(),
    /** For a session: whose it is. */
    user_id: z.string().nullable(),
  })
  .meta({ id: 'Person' });
export type Person = z.output<typeof personSchema>;

/** Refs one request may resolve. */
export const MAX_REFS = 200;

function parse(ref: string): { kind: PersonKind; id: string } | null {
  const [prefix, rest] = ref.includes(':') ? [ref.slice(0, ref.indexOf(':')), ref.slice(ref.indexOf(':') + 1)] : [null, ref];
  if (prefix === 'operator') return { kind: 'operator', id: rest };
  if (prefix === 'session' || (!prefix && rest.startsWith('sess_'))) return { kind: 'session', id: rest };
  if (prefix === 'user' || (!prefix && rest.startsWith('user_'))) return { kind: 'user', id: rest };
  if (prefix === 'key' || (!prefix && rest.startsWith('key_'))) return { kind: 'secret_key', id: rest };
  if (!prefix && rest.startsWith('org_')) return { kind: 'organization', id: rest };
  if (prefix === 'oauth_initial_access_token') return { kind: 'initial_access_token', id: rest };
  return null;
}

const fullName = (u: { firstName: string | null; lastName: string | null; username: string | null }) =>
  [u.firstName, u.lastName].filter(Boolean).join(' ') || u.username || null;

/** Users by id, with their primary email; `instanceId` null: any instance (the caller has narrowed the ids). */
async function usersById(db: Deps['db'], ids: string[], instanceId: string | null) {
  if (ids.length === 0) return new Map<string, { name: string | null; email: string | null }>();
  const rows = await db
    .select({
      id: users.id,
      firstName: users.firstName,
      lastName: users.lastName,
      username: users.username,
      email: emailAddresses.emailAddress,
    })
    .from(users)
    .leftJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId))
    .where(instanceId ? and(inArray(users.id, ids), eq(users.instanceId, instanceId)) : inArray(users.id, ids));
  return new Map(rows.map((r) => [r.id, { name: fullName(r), email: r.email }]));
}

export async function resolvePeople(deps: Pick<Deps, 'db'>, instanceId: string, refs: string[]): Promise<Person[]> {
  const parsed = [...new Set(refs)].flatMap((ref) => {
    const p = parse(ref);
    return p ? [{ ref, ...p }] : [];
  });
  const idsOf = (kind: PersonKind) => [...new Set(parsed.filter((p) => p.kind === kind).map((p) => p.id))];
  const { db } = deps;

  const sessionRows = idsOf('session').length
    ? await db
        .select({ id: sessions.id, userId: sessions.userId })
        .from(sessions)
        .where(and(inArray(sessions.id, idsOf('session')), eq(sessions.instanceId, instanceId)))
    : [];
  const sessionUser = new Map(sessionRows.map((s) => [s.id, s.userId]));
  const people = await usersById(db, [...new Set([...idsOf('user'), ...sessionUser.values()])], instanceId);

  // Operators: members of the account this instance belongs to (users of the platform instance).
  const operatorIds = idsOf('operator');
  const operatorRows = operatorIds.length
    ? await db
        .select({ userId: accountMemberships.userId })
        .from(accountMemberships)
        .innerJoin(instances, eq(instances.accountId, accountMemberships.accountId))
        .where(and(eq(instances.id, instanceId), inArray(accountMemberships.userId, operatorIds)))
    : [];
  const operators = await usersById(
    db,
    operatorRows.map((r) => r.userId),
    null,
  );

  const orgRows = idsOf('organization').length
    ? await db
        .select({ id: organizations.id, name: organizations.name })
        .from(organizations)
        .where(and(inArray(organizations.id, idsOf('organization')), eq(organizations.instanceId, instanceId)))
    : [];
  const orgs = new Map(orgRows.map((o) => [o.id, o.name]));
  const keyRows = idsOf('secret_key').length
    ? await db
        .select({ id: secretKeys.id, name: secretKeys.name })
        .from(secretKeys)
        .where(and(inArray(secretKeys.id, idsOf('secret_key')), eq(secretKeys.instanceId, instanceId)))
    : [];
  const keys = new Map(keyRows.map((k) => [k.id, k.name]));
  const tokenRows = idsOf('initial_access_token').length
    ? await db
        .select({ id: oauthInitialAccessTokens.id, name: oauthInitialAccessTokens.name })
        .from(oauthInitialAccessTokens)
        .where(
          and(inArray(oauthInitialAccessTokens.id, idsOf('initial_access_token')), eq(oauthInitialAccessTokens.instanceId, instanceId)),
        )
    : [];
  const tokens = new Map(tokenRows.map((k) => [k.id, k.name]));
  const named = { organization: orgs, secret_key: keys, initial_access_token: tokens };

  return parsed.flatMap(({ ref, kind, id }): Person[] => {
    const base = { ref, kind, id, user_id: null };
    if (kind === 'user' || kind === 'operator') {
      const p = (kind === 'user' ? people : operators).get(id);
      return p ? [{ ...base, ...p }] : [];
    }
    if (kind === 'session') {
      const userId = sessionUser.get(id);
      const p = userId ? people.get(userId) : undefined;
      return p ? [{ ...base, ...p, user_id: userId! }] : [];
    }
    const name = named[kind].get(id);
    return name === undefined ? [] : [{ ...base, name, email: null }];
  });
}
