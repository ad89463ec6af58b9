import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { Deps } from '../deps';
import { organizationMemberships, ssoAccounts, ssoConnections } from '../db/schema';

/** At most this many connections are listed for one user. */
const MAX_USER_CONNECTIONS = 100;

/**
 * The active SSO connections a user is tied to: those of the organizations they are an active
 * member of, and those they have signed in through. Oldest first.
 */
export async function connectionsOfUser(deps: Pick<Deps, 'db'>, instanceId: string, userId: string) {
  const memberOf = deps.db
    .select({ id: organizationMemberships.organizationId })
    .from(organizationMemberships)
    .where(
      and(
        eq(organizationMemberships.userId, userId),
        eq(organizationMemberships.instanceId, instanceId),
        eq(organizationMemberships.status, 'active'),
      ),
    );
  const signedInThrough = deps.db
    .select({ id: ssoAccounts.connectionId })
    .from(ssoAccounts)
    .where(and(eq(ssoAccounts.userId, userId), eq(ssoAccounts.instanceId, instanceId)));
  return deps.db
    .select()
    .from(ssoConnections)
    .where(
      and(
        eq(ssoConnections.instanceId, instanceId),
        eq(ssoConnections.active, true),
        or(inArray(ssoConnections.organizationId, memberOf), inArray(ssoConnections.id, signedInThrough)),
      ),
    )
    .orderBy(asc(ssoConnections.createdAt), asc(ssoConnections.id))
    .limit(MAX_USER_CONNECTIONS);
}
