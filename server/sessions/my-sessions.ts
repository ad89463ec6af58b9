import type { AuditContext } from '../http/actor';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { sessions } from '../db/schema';
import { AppError, notFound } from '../http/errors';
import { sessionSchema } from './schemas';
import { applySessionAction, sessionView, settleOverdue } from './sessions';
import { liveSessions } from './live-sessions';

/**
 * The signed-in user's own sessions across every device (FAPI, for a "devices" page):
 *
 * - `GET /v1/me/sessions`: the user's live sessions (active or pending, not overdue) in
 *   this instance, newest first, each marked `current` (the session answering "me") and
 *   `this_client` (held by the calling browser or app).
 * - `POST /v1/me/sessions/:id/revoke`: revokes one of them (session.revoked); another
 *   user's or instance's session is 404, a dead one 409.
 * - `POST /v1/me/sessions/revoke_others`: revokes every live session of the user but the
 *   current one ("sign out other devices"); answers the remaining list.
 *
 * A session only (a pending one is refused, a personal access token too: 403 FORBIDDEN).
 */

type D = Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>;
/** The signed-in user and the session they call with (users/me.ts's Me); null for a personal access token. */
type Me = { userId: string; sessionId: string | null };

const meSessionSchema = sessionSchema.extend({ current: z.boolean(), this_client: z.boolean() }).meta({ id: 'MeSession' });
export const meSessionList = z.object({ object: z.literal('list'), data: z.array(meSessionSchema), has_more: z.boolean() });

export async function listMySessions(deps: D, instanceId: string, me: Me, clientId: string | null) {
  const rows = await liveSessions(deps.db, instanceId, { userId: me.userId }, { now: deps.clock.now() });
  return {
    object: 'list' as const,
    data: rows.map((r) => ({
      ...sessionView(r),
      current: r.id === me.sessionId,
      this_client: clientId !== null && r.clientId === clientId,
    })),
    has_more: false,
  };
}

/** Revokes one live session of the user; another user's (or instance's) is 404. */
export async function revokeMySession(deps: D, instanceId: string, me: Me, id: string, auditCtx: AuditContext) {
  const [row] = await deps.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, id), eq(sessions.instanceId, instanceId), eq(sessions.userId, me.userId)));
  if (!row) throw notFound('session');
  const dead = await settleOverdue(deps, row);
  if (dead) throw new AppError('CONFLICT', { message: 'This session is no longer live.', meta: { status: row.status } });
  return applySessionAction(deps, instanceId, id, 'revoke', auditCtx);
}

/** Revokes every live session of the user except the current one. */
export async function revokeMyOtherSessions(deps: D, instanceId: string, me: Me, auditCtx: AuditContext) {
  const rows = await liveSessions(deps.db, instanceId, { userId: me.userId }, { now: deps.clock.now() });
  for (const r of rows.filter((s) => s.id !== me.sessionId)) {
    await applySessionAction(deps, instanceId, r.id, 'revoke', auditCtx).catch((e: unknown) => {
      // Ended or revoked meanwhile: nothing left to do for it.
      if (!(e instanceof AppError && e.code === 'CONFLICT')) throw e;
    });
  }
}
