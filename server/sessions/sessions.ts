import { joinTransaction } from '../db/join-transaction';
import { systemContext, type AuditContext } from '../http/actor';
import { and, eq, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { prepared } from '../db/prepared';
import { refreshTokens, sessions, users, type LtiSessionContext, type SessionStatus } from '../db/schema';
import { emitEvent, eventPart } from '../events/events';
import { writeTogether, type Part } from '../db/together';
import { AppError, notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { rowsOf } from '../db/rows';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { sha256Hex } from '../crypto/secrets';
import { newRefreshToken, REFRESH_GRACE_MS, rotationState, successorOf, type RefreshTokenKind } from '../crypto/refresh-rotation';
import type { InstanceContext } from '../instances/instances';
import { activityColumns, latestActivityView, type ClientActivity } from './activity';
import { isLive, transition, type SessionAction } from './lifecycle';
import { signSessionJwt, verifySessionJwt } from './tokens';
import { refreshTokenInsertSql, rotateIfCurrentSql, rotationSql, rotations, sessionInsertSql } from './statements';
import { countWrite } from '../analytics/metrics';
import { afterCommit } from '../db/after-commit';
import type { EntitledPlan } from '../billing/subscriptions';
import {
  bumpSessionsVersion,
  cachedSessionState,
  forgetSessionHere,
  loadSessionState,
  updateSessions,
  type SessionWriter,
} from './session-state';

type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches' | 'cacheInvalidation'>;
/** Creating a session changes no cached state: nothing to invalidate. */
type CreateD = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches'>;
type SessionRow = typeof sessions.$inferSelect;
export type SessionActor = { sub: string } & Record<string, unknown>;

export { REFRESH_GRACE_MS };

export const sessionView = (s: SessionRow) => ({
  object: 'session' as const,
  id: s.id,
  user_id: s.userId,
  status: s.status,
  last_active_organization_id: s.lastActiveOrganizationId,
  impersonated_by: s.actor?.sub ?? null,
  last_active_at: s.lastActiveAt,
  expire_at: s.expireAt,
  abandon_at: s.abandonAt,
  created_at: s.createdAt,
  latest_activity: latestActivityView(s),
  lti: s.lti ?? null,
});
export type SessionView = ReturnType<typeof sessionView>;

const STATUS_ERRORS = {
  ended: 'SESSION_ENDED',
  revoked: 'SESSION_REVOKED',
  removed: 'SESSION_REMOVED',
  expired: 'SESSION_EXPIRED',
  abandoned: 'SESSION_ABANDONED',
} as const;

/** A session's refresh tokens (crypto/refresh-rotation.ts). */
const SESSION_REFRESH_TOKEN: RefreshTokenKind = { prefix: 'rt_', macPurpose: 'refresh-token' };

/** `expire_at` from the creation time, `abandon_at` from the last activity (never past expire_at). */
export function timesFor(instance: InstanceContext, now: number, createdAt = now) {
  const expireAt = createdAt + instance.settings.session_lifetime_seconds * 1000;
  const inactivity = instance.settings.session_inactivity_timeout_seconds;
  return { expireAt, abandonAt: inactivity === null ? expireAt : Math.min(expireAt, now + inactivity * 1000) };
}

async function loadSession(db: Db, instanceId: string, id: string): Promise<SessionRow> {
  const [row] = await db
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, id), eq(sessions.instanceId, instanceId)));
  if (!row) throw notFound('session');
  return row;
}

export async function getSession(deps: Pick<Deps, 'db'>, instanceId: string, id: string) {
  return sessionView(await loadSession(deps.db, instanceId, id));
}

/** The user a session may be created for: present in this instance and not banned. */
async function sessionUser(db: Db, instanceId: string, userId: string) {
  const [user] = await db
    .select({ id: users.id, banned: users.banned, sessionsVersion: users.sessionsVersion })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)))
    // The KEY SHARE the session's foreign key takes anyway, taken at the read: a deletion in
    // flight is waited for here, and the user it removed is a 422 not_found, not a foreign-key error.
    .for('key share');
  if (!user) throw validationError('user_id', 'not_found', 'No user was found with that user_id.');
  if (user.banned)
    throw new AppError('USER_BANNED', { message: 'Sessions cannot be created for a banned user.', meta: { user_id: userId } });
  return user;
}

/** What a new session starts with: who, on which client, pending or active, from where. */
export interface NewSession {
  userId: string;
  clientId?: string | null;
  actor?: SessionActor | null;
  status?: 'active' | 'pending';
  /** The requesting browser or app; none for headless (BAPI-minted) sessions. */
  activity?: ClientActivity;
  /** The LTI launch the session starts from (server/lti). */
  lti?: LtiSessionContext | null;
  /** The organization active from the start (an LTI launch's course organization). */
  lastActiveOrganizationId?: string | null;
  /** How the user signed in (completeSignIn's way), for the OpenID Provider's `amr`. */
  signInWay?: string | null;
}

/**
 * A new session's row and first refresh token, and its writes as parts of one statement
 * (db/together.ts): the sign-ins counter, the session, its refresh token, session.created
 * (and session.pending when it starts pending), and an impersonation's audit entry.
 * createSession sends them alone; a sign-in sends them with its own writes. The caller has
 * read the user (present, not banned).
 */
export function newSessionParts(deps: Pick<Deps, 'clock'>, instance: InstanceContext, input: NewSession, auditCtx: AuditContext) {
  const now = deps.clock.now();
  const { expireAt, abandonAt } = timesFor(instance, now);
  const activity = input.activity ? activityColumns(input.activity) : null;
  const row: SessionRow = {
    id: newId('sess'),
    instanceId: instance.id,
    userId: input.userId,
    clientId: input.clientId ?? null,
    status: input.status ?? 'active',
    actor: input.actor ?? null,
    lastActiveOrganizationId: input.lastActiveOrganizationId ?? null,
    lti: input.lti ?? null,
    ipAddress: activity?.ipAddress ?? null,
    userAgent: activity?.userAgent ?? null,
    browserName: activity?.browserName ?? null,
    browserVersion: activity?.browserVersion ?? null,
    deviceType: activity?.deviceType ?? null,
    osName: activity?.osName ?? null,
    isMobile: activity?.isMobile ?? null,
    lastActiveAt: now,
    expireAt,
    abandonAt,
    // Null: the sign-in (created_at) is the first factor's proof; a second factor is recorded when proved.
    firstFactorVerifiedAt: null,
    secondFactorVerifiedAt: null,
    signInWay: input.signInWay ?? null,
    reverification: null,
    createdAt: now,
    updatedAt: now,
  };
  const refreshToken = newRefreshToken(SESSION_REFRESH_TOKEN);
  const writes: Part = {
    writes: [
      countWrite(deps, instance.id, 'sign_ins'),
      sessionInsertSql(row, now, expireAt, abandonAt),
      refreshTokenInsertSql(sha256Hex(refreshToken), row.id, now),
    ],
  };
  const view = sessionView(row);
  const parts: Part[] = [writes, eventPart(deps, instance.id, 'session.created', view)];
  if (row.status === 'pending') parts.push(eventPart(deps, instance.id, 'session.pending', view));
  const actor = input.actor;
  if (actor) {
    parts.push({
      after: (db) =>
        audit(
          { db, clock: deps.clock },
          {
            instanceId: instance.id,
            ...auditCtx,
            action: 'impersonation.session_created',
            target: row.id,
            details: { user_id: row.userId, actor },
          },
        ),
    });
  }
  return { session: row, refreshToken, parts };
}

/**
 * Creates a session with its first refresh token; emits session.created (and
 * session.pending when it starts pending). Runs in the caller's transaction if any.
 */
export async function createSession(
  deps: CreateD,
  instance: InstanceContext,
  input: NewSession & {
    /** The user as the caller read it in this transaction (not banned): spares the read. */
    user?: { id: string; sessionsVersion: number };
  },
  auditCtx: AuditContext,
) {
  return joinTransaction(deps.db, async (tx) => {
    const user = input.user?.id === input.userId ? input.user : await sessionUser(tx, instance.id, input.userId);
    const created = newSessionParts(deps, instance, { ...input, userId: user.id }, auditCtx);
    await writeTogether(tx, created.parts);
    return { session: created.session, refreshToken: created.refreshToken, sessionsVersion: user.sessionsVersion };
  });
}

/** Headless minting: the session, a JWT and a refresh token, with no redeem step. */
export async function mintSession(
  deps: CreateD,
  instance: InstanceContext,
  input: { userId: string; actor?: SessionActor | null },
  auditCtx: AuditContext,
) {
  const created = await createSession(deps, instance, input, auditCtx);
  const token = await signSessionJwt(deps, instance, { ...created.session, sessionsVersion: created.sessionsVersion });
  return { ...sessionView(created.session), jwt: token.jwt, refresh_token: created.refreshToken, expires_in: token.expires_in };
}

const PAST: Record<SessionAction, string> = {
  activate: 'activated',
  pend: 'made pending',
  end: 'ended',
  revoke: 'revoked',
  remove: 'removed',
  expire: 'expired',
  abandon: 'abandoned',
};

/**
 * Applies a lifecycle action (see lifecycle.ts), emitting its event in the same
 * transaction. Refused with 409 CONFLICT when the session's status does not allow it.
 */
export async function applySessionAction(
  deps: SessionWriter,
  instanceId: string,
  sessionId: string,
  action: SessionAction,
  auditCtx: AuditContext,
): Promise<SessionView> {
  return deps.db.transaction(async (tx) => {
    const current = await loadSession(tx, instanceId, sessionId);
    const step = transition(current.status, action);
    if (!step) {
      throw new AppError('CONFLICT', {
        message: `A ${current.status} session cannot be ${PAST[action]}.`,
        meta: { status: current.status },
      });
    }
    const now = deps.clock.now();
    const [row] = await updateSessions(
      { ...deps, db: tx },
      { status: step.to, updatedAt: now },
      and(eq(sessions.id, sessionId), eq(sessions.status, current.status)),
    );
    if (!row) throw new AppError('CONFLICT', { message: 'The session changed meanwhile; try again.' });
    const d = { db: tx, clock: deps.clock };
    if (step.event) await emitEvent(d, instanceId, step.event, sessionView(row));
    if (action === 'revoke') await audit(d, { instanceId, ...auditCtx, action: 'session.revoked', target: sessionId });
    return sessionView(row);
  });
}

/** Revokes every live session of a user and bumps sessions_version, so outstanding JWTs fail verification. */
export async function revokeUserSessions(deps: SessionWriter, instanceId: string, userId: string, auditCtx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    const user = await bumpSessionsVersion({ ...deps, db: tx }, instanceId, userId);
    if (!user) throw notFound('user');
    const revoked = await revokeLiveSessions({ ...deps, db: tx }, instanceId, userId);
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        ...auditCtx,
        action: 'session.revoked_all',
        target: userId,
        details: { count: revoked.length, sessions_version: user.sessionsVersion },
      },
    );
    return { object: 'list' as const, data: revoked.map(sessionView), has_more: false, sessions_version: user.sessionsVersion };
  });
}

/** Revokes a user's live sessions, each with its session.revoked event. Call inside a transaction. */
export async function revokeLiveSessions(deps: SessionWriter, instanceId: string, userId: string) {
  const revoked = await updateSessions(
    deps,
    { status: 'revoked', updatedAt: deps.clock.now() },
    and(eq(sessions.userId, userId), eq(sessions.instanceId, instanceId), inArray(sessions.status, ['active', 'pending'])),
  );
  for (const row of revoked) await emitEvent(deps, instanceId, 'session.revoked', sessionView(row));
  return revoked;
}

/**
 * Which deadline a live session missed first: idle past `abandon_at` before reaching
 * `expire_at` is abandonment, however late it is noticed (abandon_at never passes expire_at).
 */
const overdueAction = (s: Pick<SessionRow, 'expireAt' | 'abandonAt'>, now: number): 'expire' | 'abandon' | null =>
  s.abandonAt < s.expireAt && s.abandonAt <= now ? 'abandon' : s.expireAt <= now ? 'expire' : null;

/**
 * The error a session that cannot be used answers: its SESSION_* code when dead, and an
 * overdue live one is first moved to expired/abandoned. Null when it is usable.
 */
export async function settleOverdue(deps: SessionWriter, s: Pick<SessionRow, 'id' | 'instanceId' | 'status' | 'expireAt' | 'abandonAt'>) {
  const now = deps.clock.now();
  if (!isLive(s.status)) return new AppError(STATUS_ERRORS[s.status as keyof typeof STATUS_ERRORS]);
  const action = overdueAction(s, now);
  if (!action) return null;
  await applySessionAction(deps, s.instanceId, s.id, action, systemContext('system:lifetime')).catch(() => undefined);
  return new AppError(action === 'expire' ? 'SESSION_EXPIRED' : 'SESSION_ABANDONED');
}

const refreshLookup = prepared((db) =>
  db
    .select({ rotatedAt: refreshTokens.rotatedAt, session: sessions, sessionsVersion: users.sessionsVersion })
    .from(refreshTokens)
    .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(refreshTokens.digest, sql.placeholder('digest')),
        eq(sessions.id, sql.placeholder('sessionId')),
        eq(sessions.instanceId, sql.placeholder('instanceId')),
      ),
    )
    .prepare('refresh_lookup'),
);

/** rotationStatement with its values in place (the EXPLAIN test's form). */
export function rotationStatement(instance: InstanceContext, sessionId: string, digest: string, successorDigest: string, now: number): SQL {
  const inactivity = instance.settings.session_inactivity_timeout_seconds;
  return rotationSql({
    instanceId: instance.id,
    sessionId,
    digest,
    successorDigest,
    now,
    idleCap: inactivity === null ? null : now + inactivity * 1000,
  });
}

/** The common refresh (rotationStatement), prepared: null to take the careful path. */
async function rotateCurrentToken(deps: D, instance: InstanceContext, sessionId: string, digest: string, successorDigest: string) {
  const now = deps.clock.now();
  const inactivity = instance.settings.session_inactivity_timeout_seconds;
  const result = await (inactivity === null ? rotations.always : rotations.idle)(deps.db).execute({
    instanceId: instance.id,
    sessionId,
    digest,
    successorDigest,
    now,
    idleCap: inactivity === null ? undefined : now + inactivity * 1000,
  });
  afterCommit(() => forgetSessionHere(deps, sessionId));
  const [row] = rowsOf<{
    id: string;
    user_id: string;
    status: string;
    actor: SessionActor | string | null;
    lti: LtiSessionContext | string | null;
    expire_at: number | string;
    last_active_organization_id: string | null;
    sessions_version: number;
    created_at: number | string;
    first_factor_verified_at: number | string | null;
    second_factor_verified_at: number | string | null;
    with_second_factor: boolean | string;
    plans: EntitledPlan[] | string;
  }>(result);
  if (!row) return null;
  return {
    id: row.id,
    userId: row.user_id,
    status: row.status,
    actor: typeof row.actor === 'string' ? (JSON.parse(row.actor) as SessionActor) : row.actor,
    lti: typeof row.lti === 'string' ? (JSON.parse(row.lti) as LtiSessionContext) : row.lti,
    expireAt: Number(row.expire_at),
    lastActiveOrganizationId: row.last_active_organization_id,
    sessionsVersion: Number(row.sessions_version),
    createdAt: Number(row.created_at),
    firstFactorVerifiedAt: row.first_factor_verified_at === null ? null : Number(row.first_factor_verified_at),
    secondFactorVerifiedAt: row.second_factor_verified_at === null ? null : Number(row.second_factor_verified_at),
    withSecondFactor: row.with_second_factor === true || row.with_second_factor === 't' || row.with_second_factor === 'true',
    plans: typeof row.plans === 'string' ? (JSON.parse(row.plans) as EntitledPlan[]) : row.plans,
  };
}

/**
 * Exchanges a refresh token for a JWT and its successor. A rotated token presented
 * within the grace window gets the same successor; after it, the session is revoked.
 */
export async function refreshSession(deps: D, instance: InstanceContext, sessionId: string, refreshToken: string) {
  if (!/^rt_[A-Za-z0-9_-]{20,100}$/.test(refreshToken)) throw new AppError('REFRESH_TOKEN_INVALID');
  const digest = sha256Hex(refreshToken);
  const successor = successorOf(deps.cipher, SESSION_REFRESH_TOKEN, refreshToken);
  const fast = await rotateCurrentToken(deps, instance, sessionId, digest, sha256Hex(successor));
  if (fast) {
    const token = await signSessionJwt(deps, instance, fast);
    return { jwt: token.jwt, refresh_token: successor, expires_in: token.expires_in };
  }
  // Anything but the common case: an unknown token, a dead or overdue session, a rotated
  // token (grace window or reuse), or a concurrent refresh that rotated it first.
  const [found] = await refreshLookup(deps.db).execute({ digest, sessionId, instanceId: instance.id });
  if (!found) throw new AppError('REFRESH_TOKEN_INVALID');
  const s = found.session;
  const dead = await settleOverdue(deps, s);
  if (dead) throw dead;

  const now = deps.clock.now();
  const state = rotationState(found.rotatedAt, now);
  if (state === 'current') {
    const { abandonAt } = timesFor(instance, now, s.createdAt);
    // One statement: rotate (only if still current), store the successor, mark activity.
    // When a concurrent refresh rotated it first, nothing changes and its successor is the same.
    await deps.db.execute(rotateIfCurrentSql({ digest, successorDigest: sha256Hex(successor), now, abandonAt }));
    afterCommit(() => forgetSessionHere(deps, s.id));
  } else if (state === 'reused') {
    await applySessionAction(deps, instance.id, s.id, 'revoke', systemContext('system:refresh_token_reuse')).catch(() => undefined);
    throw new AppError('REFRESH_TOKEN_REUSED');
  }
  const token = await signSessionJwt(deps, instance, { ...s, sessionsVersion: found.sessionsVersion });
  return { jwt: token.jwt, refresh_token: successor, expires_in: token.expires_in };
}

/**
 * A fresh session JWT for a live session of the instance, as a backend asks for one
 * (Clerk's POST /v1/sessions/:id/tokens): NOT_FOUND for another instance's id, the
 * SESSION_* code of a dead or overdue one.
 */
/** A fresh session JWT of a live session; `lifetime` (seconds) instead of the instance's token lifetime, never past the session's end. */
export async function sessionToken(deps: D, instance: InstanceContext, sessionId: string, lifetime?: number) {
  const found = await liveSession(deps, instance.id, sessionId);
  return signSessionJwt(deps, instance, { ...found.session, sessionsVersion: found.sessionsVersion, lifetime });
}

/** The checks every token the BAPI mints for a session passes: the instance's (else 404) and live (else its code). */
export async function liveSession(deps: D, instanceId: string, sessionId: string) {
  const found = await loadSessionState(deps, instanceId, sessionId);
  if (!found) throw notFound('session');
  const dead = await settleOverdue(deps, found.session);
  if (dead) throw dead;
  return found;
}

/**
 * Authoritative verification: signature, expiry, the session's status and the user's
 * sessions_version. Answers the session or an error naming why.
 */
export async function verifySession(deps: D, instance: InstanceContext, token: string): Promise<SessionView> {
  const claims = await verifySessionJwt(deps, instance, token);
  // Served from this node's session-state cache (session-state.ts: every change invalidates it).
  let found = await cachedSessionState(deps, instance.id, claims.sid);
  if (!found || found.session.userId !== claims.sub) throw new AppError('SESSION_REVOKED', { meta: { reason: 'session_not_found' } });
  if (isLive(found.session.status) && overdueAction(found.session, deps.clock.now())) {
    // A cached deadline may predate a refresh that moved it: decide on the stored row.
    forgetSessionHere(deps, claims.sid);
    found = await loadSessionState(deps, instance.id, claims.sid);
    if (!found) throw new AppError('SESSION_REVOKED', { meta: { reason: 'session_not_found' } });
  }
  const dead = await settleOverdue(deps, found.session);
  if (dead) throw dead;
  if (found.sessionsVersion > claims.sv) throw new AppError('SESSION_REVOKED', { meta: { reason: 'sessions_version' } });
  return sessionView(found.session);
}

export async function listSessions(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  q: { user_id?: string; status?: SessionStatus; limit: number; starting_after?: string },
) {
  const filters: (SQL | undefined)[] = [eq(sessions.instanceId, instanceId)];
  if (q.user_id) filters.push(eq(sessions.userId, q.user_id));
  if (q.status) filters.push(eq(sessions.status, q.status));
  return cursorList(q, newestFirst(sessions.id), tableRows(deps.db, sessions, ...filters), sessionView);
}

/** Moves overdue live sessions to expired or abandoned. Run periodically. */
export async function sweepSessions(deps: SessionWriter) {
  const now = deps.clock.now();
  // The deadline missed first decides, as in overdueAction.
  const abandoned = await updateSessions(
    deps,
    { status: 'abandoned', updatedAt: now },
    and(inArray(sessions.status, ['active', 'pending']), lte(sessions.abandonAt, now), lt(sessions.abandonAt, sessions.expireAt)),
  );
  const expired = await updateSessions(
    deps,
    { status: 'expired', updatedAt: now },
    and(inArray(sessions.status, ['active', 'pending']), lte(sessions.expireAt, now)),
  );
  return { expired: expired.length, abandoned: abandoned.length };
}
