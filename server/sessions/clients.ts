import type { AuditContext } from '../http/actor';
import { and, eq, inArray } from 'drizzle-orm';
import { rowFromJson, writeTogether, type Part } from '../db/together';
import { runStatement } from '../db/prepared';
import type { Deps } from '../deps';
import { clients, sessions, users } from '../db/schema';
import { AppError, notFound } from '../http/errors';
import { newId } from '../db/ids';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import type { InstanceContext } from '../instances/instances';
import { sessionTasksFor } from './session-tasks';
import { applySessionAction, sessionView, settleOverdue, timesFor } from './sessions';
import { updateSessions } from './session-state';
import { signSessionJwt } from './tokens';
import { activeSessionSql, clientInsertSql, secondFactorOf } from './statements';
import { liveSessions } from './live-sessions';

/**
 * A client is one browser or app. Its token is a secret (`ct_` + 32 random bytes,
 * stored only as its SHA-256): web clients carry it in the `__client` cookie, native
 * apps as `Authorization: Bearer ct_…`. Sessions hang off the client.
 */
export type ClientRow = typeof clients.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches' | 'cacheInvalidation'>;

const CLIENT_TOKEN_PREFIX = 'ct_';

/**
 * The cookie a web client's token travels in. Instances use `__client` scoped to their
 * fapi_url path; the platform instance (the console's own) uses `__console_client` at
 * `Path=/`, so the console session also reaches `/v1/dashboard/…` and never collides
 * with an instance's `__client`.
 */
const CUSTOMER_CLIENT_COOKIE = '__client';
export const CONSOLE_CLIENT_COOKIE = '__console_client';
export function clientCookieSpec(instance: Pick<InstanceContext, 'kind' | 'fapiUrl'>): { name: string; path: string } {
  if (instance.kind === 'platform') return { name: CONSOLE_CLIENT_COOKIE, path: '/' };
  return { name: CUSTOMER_CLIENT_COOKIE, path: new URL(instance.fapiUrl).pathname || '/' };
}

const CLIENT_TOKEN_RE = /^ct_[A-Za-z0-9_-]{43}$/;

/**
 * A client expires once it can no longer hold a live session: the instance's maximum
 * session lifetime after its last sign-in (`updated_at`). Its cookie lives as long.
 */
const clientExpiresAt = (instance: InstanceContext, c: Pick<ClientRow, 'updatedAt'>) =>
  c.updatedAt + instance.settings.session_lifetime_seconds * 1000;

export type ClientLookup = { client: ClientRow; reason: null } | { client: null; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' };

/** The client a presented token names in this instance, or why there is none. */
export async function findClient(deps: Pick<Deps, 'db' | 'clock'>, instance: InstanceContext, token: string): Promise<ClientLookup> {
  if (!CLIENT_TOKEN_RE.test(token)) return { client: null, reason: 'malformed' };
  const [row] = await deps.db
    .select()
    .from(clients)
    .where(and(eq(clients.tokenDigest, sha256Hex(token)), eq(clients.instanceId, instance.id)));
  if (!row) return { client: null, reason: 'unknown' };
  if (row.revokedAt !== null) return { client: null, reason: 'revoked' };
  if (clientExpiresAt(instance, row) <= deps.clock.now()) return { client: null, reason: 'expired' };
  return { client: row, reason: null };
}

/** A new client and its token (shown to the caller once). Runs in the caller's transaction if any. */
export async function createClient(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string) {
  const fresh = newClient(deps, instanceId);
  await runStatement(deps.db, fresh.write);
  return { client: fresh.client, token: fresh.token };
}

/** createClient's row, token and write, to send with others (db/together.ts). */
export function newClient(deps: Pick<Deps, 'clock'>, instanceId: string) {
  const token = generateSecret(CLIENT_TOKEN_PREFIX);
  const now = deps.clock.now();
  const client: ClientRow = {
    id: newId('client'),
    instanceId,
    tokenDigest: sha256Hex(token),
    lastActiveSessionId: null,
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
  };
  const write = clientInsertSql(client, instanceId, now);
  return { client, token, write };
}

/**
 * Makes a session the client's active one; a sign-in also renews the client's lifetime.
 * With `rotate` the client gets a new token (answered once) and the old one stops naming it:
 * a token someone planted or saw before the sign-in never holds the signed-in session.
 */
export async function setActiveSession(
  deps: Pick<Deps, 'db' | 'clock'>,
  clientId: string,
  sessionId: string,
  opts: { rotate?: boolean } = {},
): Promise<{ client: ClientRow; token: string | null }> {
  const active = activeSessionPart(deps, clientId, sessionId, opts);
  const [answers] = await writeTogether(deps.db, [active.part]);
  return active.result(answers!);
}

/** setActiveSession as a part of a statement of several writes (db/together.ts); `result` reads its answers. */
export function activeSessionPart(deps: Pick<Deps, 'clock'>, clientId: string, sessionId: string, opts: { rotate?: boolean } = {}) {
  const token = opts.rotate ? generateSecret(CLIENT_TOKEN_PREFIX) : null;
  const part: Part = {
    returning: {
      client: activeSessionSql(clientId, sessionId, deps.clock.now(), token ? sha256Hex(token) : null),
    },
  };
  return { part, result: (answers: Record<string, unknown>) => ({ client: rowFromJson(clients, answers.client)!, token }) };
}

export const signedOutClient = () => ({
  object: 'client' as const,
  id: null,
  sessions: [],
  last_active_session_id: null,
  session: null,
  created_at: null,
  updated_at: null,
});

/**
 * The client object of FAPI: its live sessions and the active one (`session`), which is
 * the last one signed into while it lives, else the newest live one. A missing client
 * is the signed-out visitor: `id` and `session` null.
 */
export async function clientView(
  deps: Pick<Deps, 'db' | 'clock'>,
  instance: InstanceContext,
  client: ClientRow | null,
  /** The client's live sessions when the caller knows them without a read: a client made by this request holds only the session it just created. */
  known?: (typeof sessions.$inferSelect)[],
) {
  if (!client) return signedOutClient();
  const rows = known ?? (await liveSessions(deps.db, instance.id, { clientId: client.id }, { now: deps.clock.now() }));
  const tasks = await sessionTasksFor(deps.db, instance, rows);
  // A pending session lists what it awaits, e.g. `[{ key: 'setup_mfa' }]` (users/mfa.ts).
  const live = rows.map((r, i) => ({ ...sessionView(r), tasks: tasks[i]! }));
  const active = live.find((s) => s.id === client.lastActiveSessionId) ?? live[0] ?? null;
  return {
    object: 'client' as const,
    id: client.id as string | null,
    sessions: live,
    last_active_session_id: active?.id ?? null,
    session: active,
    created_at: client.createdAt as number | null,
    updated_at: client.updatedAt as number | null,
  };
}

/**
 * A fresh session JWT for a live session of this client. Another client's (or
 * instance's) session is 404; a dead one answers its SESSION_* code. Counts as activity:
 * moves last_active_at and the inactivity deadline, as a refresh does. `azp`: the browser
 * origin that asked, when allowed.
 */
export async function clientSessionToken(
  deps: D,
  instance: InstanceContext,
  clientId: string,
  sessionId: string,
  azp: string | null = null,
) {
  const { session, sessionsVersion, withSecondFactor } = await liveClientSession(deps, instance, clientId, sessionId);
  const token = await signSessionJwt(deps, instance, { ...session, sessionsVersion, azp, withSecondFactor });
  return { object: 'token' as const, jwt: token.jwt };
}

/**
 * The checks every token of a client's session passes (the session JWT, a named JWT
 * template's): the session is this client's (else 404), live (else its code), and its activity
 * is marked. Answers the session as it now is, with the user's sessions_version.
 */
export async function liveClientSession(deps: D, instance: InstanceContext, clientId: string, sessionId: string) {
  const [found] = await deps.db
    .select({ session: sessions, sessionsVersion: users.sessionsVersion, withSecondFactor: secondFactorOf(users.id) })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sessionId), eq(sessions.instanceId, instance.id), eq(sessions.clientId, clientId)));
  if (!found) throw notFound('session');
  const s = found.session;
  const dead = await settleOverdue(deps, s);
  if (dead) throw dead;
  const now = deps.clock.now();
  const { abandonAt } = timesFor(instance, now, s.createdAt);
  const [touched] = await updateSessions(
    deps,
    { lastActiveAt: now, abandonAt, updatedAt: now },
    and(eq(sessions.id, s.id), inArray(sessions.status, ['active', 'pending'])),
    { activityOnly: true },
  );
  if (!touched) {
    // Ended or revoked meanwhile: answer its code.
    const [current] = await deps.db.select().from(sessions).where(eq(sessions.id, s.id));
    throw (current && (await settleOverdue(deps, current))) ?? new AppError('SESSION_REVOKED');
  }
  return { session: { ...s, status: touched.status }, sessionsVersion: found.sessionsVersion, withSecondFactor: found.withSecondFactor };
}

/**
 * Signs a client out everywhere: ends each of its live sessions (session.ended) and
 * revokes the client, so its token is refused from now on.
 */
export async function revokeClient(
  deps: Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>,
  instanceId: string,
  clientId: string,
  auditCtx: AuditContext,
) {
  await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const live = await liveSessions(tx, instanceId, { clientId });
    for (const s of live) await applySessionAction(d, instanceId, s.id, 'end', auditCtx);
    await tx.update(clients).set({ revokedAt: deps.clock.now(), lastActiveSessionId: null }).where(eq(clients.id, clientId));
  });
}
