import type { AuditContext } from '../http/actor';
import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { clients, sessions } from '../db/schema';
import { AppError, notFound } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { changedActivity, type ClientActivity } from './activity';
import { type ClientRow } from './clients';
import { applySessionAction, settleOverdue, timesFor } from './sessions';
import { isLive } from './lifecycle';
import { liveSessions } from './live-sessions';
import { updateSessions } from './session-state';
import { orgClaims } from './org-claims';

/**
 * Sign-out and switching on FAPI, for multi-session clients (several signed-in users on
 * one browser or app):
 *
 * - `POST /v1/client/sessions/:id/end`: ends one session of this client (session.ended);
 *   it stays listed nowhere (only live sessions are), but can still be removed.
 * - `POST /v1/client/sessions/:id/remove`: removes one (session.removed); from active,
 *   pending or ended.
 * - `DELETE /v1/client/sessions`: ends every live session of the client; the client
 *   itself (and its cookie) stays, so the device can sign in again as itself.
 *   `DELETE /v1/client` does the same and also revokes the client and clears its cookie.
 * - `POST /v1/client/sessions/:id/touch`: makes a live session of this client the active
 *   one (`last_active_session_id`) and counts as activity.
 *
 * A session of another client or instance is 404. Answers `{response, client}`.
 */

type D = Pick<Deps, 'db' | 'clock' | 'caches' | 'cacheInvalidation'>;

async function sessionOfClient(deps: D, instance: InstanceContext, clientId: string, id: string) {
  const [row] = await deps.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, id), eq(sessions.instanceId, instance.id), eq(sessions.clientId, clientId)));
  if (!row) throw notFound('session');
  return row;
}

export const auditOf = (client: ClientRow, request: { ip: string | null; userAgent: string | null }): AuditContext => ({
  actor: `client:${client.id}`,
  ip: request.ip,
  userAgent: request.userAgent,
});

export async function freshClient(deps: D, clientId: string) {
  const [row] = await deps.db.select().from(clients).where(eq(clients.id, clientId));
  return row!;
}

export async function endClientSession(
  deps: D,
  instance: InstanceContext,
  client: ClientRow,
  id: string,
  action: 'end' | 'remove',
  auditCtx: AuditContext,
) {
  const row = await sessionOfClient(deps, instance, client.id, id);
  // An overdue one is settled first: it ends as expired or abandoned, and can still be removed.
  if (isLive(row.status)) await settleOverdue(deps, row);
  return applySessionAction(deps, instance.id, id, action, auditCtx);
}

/** Ends every live session of the client (only `userId`'s when given), each with session.ended; the client stays. */
export async function endAllClientSessions(
  deps: D,
  instance: InstanceContext,
  client: ClientRow,
  auditCtx: AuditContext,
  only?: { userId: string },
) {
  const ended = new Set<string>();
  for (const s of await liveSessions(deps.db, instance.id, { clientId: client.id })) {
    if (only && s.userId !== only.userId) continue;
    ended.add(s.id);
    if (await settleOverdue(deps, s)) continue;
    await applySessionAction(deps, instance.id, s.id, 'end', auditCtx).catch((e: unknown) => {
      // Ended or revoked meanwhile: nothing left to do for it.
      if (!(e instanceof AppError && e.code === 'CONFLICT')) throw e;
    });
  }
  if (!only || (client.lastActiveSessionId !== null && ended.has(client.lastActiveSessionId))) {
    await deps.db.update(clients).set({ lastActiveSessionId: null }).where(eq(clients.id, client.id));
  }
}

/**
 * Makes a live session of this client the active one. `activeOrganizationId` (when not
 * undefined) sets the session's active organization: one the user is a member of (else
 * 404), or null for none; the session's next JWTs carry its org_* claims. Records the
 * client's activity (IP, User-Agent) when it changed, in the same write.
 */
export async function touchClientSession(
  deps: D,
  instance: InstanceContext,
  client: ClientRow,
  id: string,
  activeOrganizationId?: string | null,
  activity?: ClientActivity,
) {
  const row = await sessionOfClient(deps, instance, client.id, id);
  const dead = await settleOverdue(deps, row);
  if (dead) throw dead;
  if (activeOrganizationId && !instance.settings.organizations_enabled) {
    throw new AppError('FORBIDDEN', {
      message: 'Organizations are turned off for this application.',
      meta: { reason: 'organizations_disabled' },
    });
  }
  if (activeOrganizationId && !(await orgClaims(deps.db, instance.id, activeOrganizationId, row.userId))) throw notFound('organization');
  const now = deps.clock.now();
  const { abandonAt } = timesFor(instance, now, row.createdAt);
  return deps.db.transaction(async (tx) => {
    const [touched] = await updateSessions(
      { ...deps, db: tx },
      {
        lastActiveAt: now,
        abandonAt,
        updatedAt: now,
        ...(activeOrganizationId !== undefined ? { lastActiveOrganizationId: activeOrganizationId } : {}),
        ...(activity ? changedActivity(row, activity) : {}),
      },
      and(eq(sessions.id, id), eq(sessions.status, row.status)),
      { activityOnly: activeOrganizationId === undefined || activeOrganizationId === row.lastActiveOrganizationId },
    );
    if (!touched) throw new AppError('CONFLICT', { message: 'The session changed meanwhile; try again.' });
    await tx.update(clients).set({ lastActiveSessionId: id }).where(eq(clients.id, client.id));
    return touched;
  });
}
