import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { emailAddresses, organizationMembershipRequests, users } from '../db/schema';
import { newId } from '../db/ids';
import { AppError, notFound } from '../http/errors';
import { lightList, oldestFirst } from '../http/cursor-list';
import { instanceContext } from '../instances/instances';
import { addMembershipInTx, publicUserData, type MembershipView } from './memberships';
import { loadOrganization } from './organization-view';
import { ensureBuiltIns } from './roles';

/**
 * Requests to join an organization (`orgmemreq_`): a user offered the organization by an
 * `automatic_suggestion` domain accepts the suggestion, which asks the organization's admins
 * (`org:sys_memberships:manage`) to let them in — Clerk's membership requests. Accepting one
 * adds the member with the instance's default role (organizationMembership.created); rejecting
 * one closes it. One request per user and organization (a suggestion is accepted once).
 */
type D = Pick<Deps, 'db' | 'clock'>;
type RequestRow = typeof organizationMembershipRequests.$inferSelect;
export type MembershipRequestStatus = RequestRow['status'];

interface RequestJoined {
  request: RequestRow;
  user: Parameters<typeof publicUserData>[0];
}

function membershipRequestView({ request: r, user: u }: RequestJoined) {
  return {
    object: 'organization_membership_request' as const,
    id: r.id,
    organization_id: r.organizationId,
    status: r.status,
    public_user_data: publicUserData(u),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type MembershipRequestView = ReturnType<typeof membershipRequestView>;

const joined = (db: D['db']) =>
  db
    .select({
      request: organizationMembershipRequests,
      user: {
        id: users.id,
        firstName: users.firstName,
        lastName: users.lastName,
        username: users.username,
        email: emailAddresses.emailAddress,
      },
    })
    .from(organizationMembershipRequests)
    .innerJoin(users, eq(users.id, organizationMembershipRequests.userId))
    .leftJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId));

/** Asks to join, inside the caller's transaction (accepting a suggestion). An earlier request of the user is asked again. */
export async function requestMembershipInTx(d: D, instanceId: string, organizationId: string, userId: string) {
  const now = d.clock.now();
  await d.db
    .insert(organizationMembershipRequests)
    .values({ id: newId('orgmemreq'), instanceId, organizationId, userId, status: 'pending', createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [organizationMembershipRequests.organizationId, organizationMembershipRequests.userId],
      set: { status: 'pending', updatedAt: now },
    });
}

/** An organization's requests, oldest first (light envelope), `status` pending unless told. */
export async function listMembershipRequests(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  orgIdOrSlug: string,
  q: { limit: number; starting_after?: string; status?: MembershipRequestStatus },
) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  return lightList(
    q,
    oldestFirst(organizationMembershipRequests.id),
    (k) =>
      joined(deps.db)
        .where(
          and(
            eq(organizationMembershipRequests.organizationId, org.id),
            eq(organizationMembershipRequests.status, q.status ?? 'pending'),
            k.after,
          ),
        )
        .orderBy(k.orderBy)
        .limit(k.limit),
    membershipRequestView,
  );
}

/** A pending request of the organization, locked for its answer; another organization's (or instance's) is 404, an answered one 409. */
async function pendingRequest(d: D, instanceId: string, organizationId: string, id: string) {
  const [row] = await joined(d.db)
    .where(
      and(
        eq(organizationMembershipRequests.id, id),
        eq(organizationMembershipRequests.instanceId, instanceId),
        eq(organizationMembershipRequests.organizationId, organizationId),
      ),
    )
    .for('update', { of: organizationMembershipRequests });
  if (!row) throw notFound('membership_request');
  if (row.request.status !== 'pending') {
    throw new AppError('CONFLICT', {
      message: `This membership request was already ${row.request.status}.`,
      meta: { reason: 'membership_request_answered' },
    });
  }
  return row;
}

async function answer(d: D, row: RequestJoined, status: 'accepted' | 'rejected') {
  const now = d.clock.now();
  await d.db
    .update(organizationMembershipRequests)
    .set({ status, updatedAt: now })
    .where(eq(organizationMembershipRequests.id, row.request.id));
  return membershipRequestView({ ...row, request: { ...row.request, status, updatedAt: now } });
}

/** Lets the user in with the instance's default role (organizationMembership.created); answers the request, accepted. */
export async function acceptMembershipRequest(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  orgIdOrSlug: string,
  id: string,
): Promise<MembershipRequestView & { membership: MembershipView }> {
  await ensureBuiltIns(deps, instanceId);
  const role = (await instanceContext(deps, instanceId)).settings.organization_default_role;
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug, { lock: true });
    const row = await pendingRequest(d, instanceId, org.id, id);
    const membership = await addMembershipInTx(d, instanceId, org, { userId: row.request.userId, role });
    return { ...(await answer(d, row, 'accepted')), membership };
  });
}

/** Turns the request down: the user stays out (a later suggestion of the same organization can ask again). */
export async function rejectMembershipRequest(
  deps: D,
  instanceId: string,
  orgIdOrSlug: string,
  id: string,
): Promise<MembershipRequestView> {
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug);
    return answer(d, await pendingRequest(d, instanceId, org.id, id), 'rejected');
  });
}
