import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { sessions } from '../db/schema';
import { AppError, notFound } from '../http/errors';
import type { LimitRule } from '../infra/limiter';
import type { ClientRow } from '../sessions/clients';
import { settleOverdue } from '../sessions/sessions';
import { liveSessions } from '../sessions/live-sessions';
import { authenticateApiToken, UAT_PREFIX, type MeScope } from './api-tokens';
import { mfaStatus } from './mfa';
import { getUser } from './users';
import type { InstanceContext } from '../instances/instances';

/**
 * Who "me" is on the FAPI me-surface. The FAPI surface adds the raw bearer of the
 * request to its auth (`bearer`), so a `uat_` personal access token can be told from a
 * native client token.
 *
 * - A session: the client's active session (as the client view picks it: the last one
 *   made active while it lives, else the newest live one), or the live session of this
 *   client named by `?session_id=`. A pending session is refused (403 FORBIDDEN,
 *   reason `session_pending`) except where `allowPending` (MFA enrollment, the
 *   `setup_mfa` task).
 * - A `uat_` token, only where the route names a me-scope (`GET /v1/me`: me:read,
 *   `PATCH /v1/me`: me:write); anywhere else on the me-surface it is 403 FORBIDDEN
 *   (reason `personal_access_token`).
 */
interface MeCredentials {
  instance: { id: string };
  client: ClientRow | null;
  /** The bearer token of the Authorization header, when one was sent. */
  bearer: string | null;
}

export interface Me {
  userId: string;
  /** Null when a personal access token authenticated. */
  sessionId: string | null;
  via: 'session' | 'token';
  /** The impersonator, for a session minted with an actor. */
  actor: string | null;
}

export interface MeOptions {
  sessionId?: string;
  /** The scope a `uat_` token needs here; omitted: tokens are not accepted. */
  tokenScope?: MeScope;
  allowPending?: boolean;
}

export async function resolveMe(deps: Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>, auth: MeCredentials, opts: MeOptions): Promise<Me> {
  if (auth.bearer?.startsWith(UAT_PREFIX)) {
    if (!opts.tokenScope) {
      throw new AppError('FORBIDDEN', {
        message: 'A personal access token is not accepted here; sign in with a session.',
        meta: { reason: 'personal_access_token' },
      });
    }
    const { userId } = await authenticateApiToken(deps, auth.instance.id, auth.bearer, opts.tokenScope);
    return { userId, sessionId: null, via: 'token', actor: null };
  }
  if (!auth.client) throw new AppError('UNAUTHENTICATED', { message: 'Sign in first: this device has no session.' });
  const client = auth.client;
  const now = deps.clock.now();
  let row: typeof sessions.$inferSelect | undefined;
  if (opts.sessionId) {
    [row] = await deps.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.id, opts.sessionId), eq(sessions.instanceId, auth.instance.id), eq(sessions.clientId, client.id)));
    if (!row) throw notFound('session');
    const dead = await settleOverdue(deps, row);
    if (dead) throw dead;
  } else {
    const live = await liveSessions(deps.db, auth.instance.id, { clientId: client.id }, { now });
    row = live.find((s) => s.id === client.lastActiveSessionId) ?? live[0];
    if (!row) throw new AppError('UNAUTHENTICATED', { message: 'Sign in first: this device has no live session.' });
  }
  if (row.status === 'pending' && !opts.allowPending) {
    throw new AppError('FORBIDDEN', {
      message: 'This session is pending: complete its tasks first.',
      meta: { reason: 'session_pending', session_id: row.id },
    });
  }
  return { userId: row.userId, sessionId: row.id, via: 'session', actor: row.actor?.sub ?? null };
}

/** The signed-in user as the me-surface shows them: never private_metadata. */
export async function meView(deps: Pick<Deps, 'db' | 'clock'>, instance: Pick<InstanceContext, 'id' | 'settings'>, userId: string) {
  const { private_metadata: _hidden, ...user } = await getUser(deps, instance.id, userId);
  const mfa = await mfaStatus(deps, userId);
  const s = instance.settings;
  return {
    ...user,
    two_factor_enabled: mfa.totp_enabled,
    totp_enabled: mfa.totp_enabled,
    backup_code_enabled: mfa.backup_codes_remaining > 0,
    /** What this user may do on their own, as the instance's settings allow it (Clerk's user carries the same two). */
    create_organization_enabled: s.organizations_enabled && s.organization_creation_enabled,
    delete_self_enabled: s.delete_self_enabled,
  };
}

/** TOTP and backup-code attempts on the me-surface, per user: 5 a minute (429 TOO_MANY_ATTEMPTS). */
const MFA_ATTEMPT_LIMIT: LimitRule = { name: 'fapi_mfa_attempt', limit: 5, windowMs: 60_000 };

export async function limitMfaAttempts(deps: Pick<Deps, 'limiter' | 'clock' | 'metrics'>, instanceId: string, userId: string) {
  const decision = await deps.limiter.check(MFA_ATTEMPT_LIMIT, `${instanceId}:${userId}`, deps.clock.now());
  if (!decision.allowed) {
    deps.metrics.limiterRejections.inc({ surface: 'fapi', limit: MFA_ATTEMPT_LIMIT.name, instance: instanceId });
    throw new AppError('TOO_MANY_ATTEMPTS', {
      message: 'Too many code attempts; wait before trying again.',
      meta: { retry_after: decision.retryAfter },
      headers: { 'retry-after': String(decision.retryAfter) },
    });
  }
}
