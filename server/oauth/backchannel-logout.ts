import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { oauthApplications, oauthLogoutDeliveries } from '../db/schema';
import { claimDue, releaseLeases } from '../db/leased-queue';
import { guardedRequest, outboundNetwork, OutboundTimeout, targetPolicy } from '../http/outbound';
import { TargetRefused } from '../infra/ssrf';
import { instanceContext, type InstanceContext } from '../instances/instances';
import { ALG, currentSigner, signRs256Jws } from '../signing/signing-keys';
import { DELIVERY_TIMEOUT_MS, RETRY_SCHEDULE_MS } from '../webhooks/policy';

/**
 * OpenID Back-Channel Logout 1.0, the OP's side: the logout tokens queued when a session ended
 * (sessions/backchannel-queue.ts) are signed and POSTed (`logout_token=…`, form-encoded) to each
 * application's backchannel_logout_uri through the SSRF guard, by the webhook worker. A 2xx
 * answer delivers; anything else is retried on the webhooks' schedule, then the delivery fails.
 */

export type LogoutDeliveryDeps = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches' | 'config' | 'dns' | 'testTrustedCas' | 'logger'>;

const LOGOUT_TOKEN_TYP = 'logout+jwt';
const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token is good for two minutes: the RP acts on it at once. */
const LOGOUT_TOKEN_TTL_S = 120;
const LEASE_MS = 60_000;
const RESPONSE_KEEP_BYTES = 1024;

type DeliveryRow = typeof oauthLogoutDeliveries.$inferSelect;

/** §2.4: iss, sub, aud, iat, exp, jti, events, sid — never a nonce; typ `logout+jwt` (§2.4, §4.1). */
async function signLogoutToken(
  deps: Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches'>,
  instance: InstanceContext,
  t: { clientId: string; userId: string; sessionId: string },
): Promise<string> {
  const signer = await currentSigner(deps, instance.id);
  const now = Math.floor(deps.clock.now() / 1000);
  return signRs256Jws(
    signer.key,
    { alg: ALG, kid: signer.kid, typ: LOGOUT_TOKEN_TYP },
    {
      iss: instance.fapiUrl,
      sub: t.userId,
      aud: t.clientId,
      iat: now,
      exp: now + LOGOUT_TOKEN_TTL_S,
      jti: randomBytes(16).toString('base64url'),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      sid: t.sessionId,
    },
  );
}

async function attempt(deps: LogoutDeliveryDeps, d: DeliveryRow): Promise<{ ok: boolean; error: string | null; final: boolean }> {
  const [app] = await deps.db
    .select({ uri: oauthApplications.backchannelLogoutUri })
    .from(oauthApplications)
    .where(eq(oauthApplications.id, d.applicationId));
  if (!app?.uri) return { ok: false, error: 'The application no longer has a backchannel_logout_uri.', final: true };
  const instance = await instanceContext(deps, d.instanceId);
  const token = await signLogoutToken(deps, instance, { clientId: d.applicationId, userId: d.userId, sessionId: d.sessionId });
  try {
    const res = await guardedRequest({
      url: app.uri,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Latchkey-Backchannel-Logout/1' },
      body: new URLSearchParams({ logout_token: token }).toString(),
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxResponseBytes: RESPONSE_KEEP_BYTES,
      policy: targetPolicy(deps.config, instance.environment),
      ...outboundNetwork(deps),
    });
    if (res.status >= 200 && res.status < 300) return { ok: true, error: null, final: true };
    return { ok: false, error: `HTTP ${res.status}`, final: false };
  } catch (e) {
    if (e instanceof TargetRefused) return { ok: false, error: e.message, final: false };
    if (e instanceof OutboundTimeout) return { ok: false, error: e.message, final: false };
    return { ok: false, error: `Connection failed: ${(e as Error).message}`, final: false };
  }
}

/** Delivers one claimed logout and records the outcome (only while this worker's claim still holds). */
async function deliver(deps: LogoutDeliveryDeps, d: DeliveryRow): Promise<void> {
  const r = await attempt(deps, d);
  const now = deps.clock.now();
  const round = d.attempts + 1;
  const retry = !r.ok && !r.final && round <= RETRY_SCHEDULE_MS.length;
  await deps.db
    .update(oauthLogoutDeliveries)
    .set({
      status: r.ok ? 'succeeded' : retry ? 'pending' : 'failed',
      attempts: round,
      nextAttemptAt: retry ? now + RETRY_SCHEDULE_MS[round - 1]! : null,
      lockedUntil: null,
      lastError: r.error,
      updatedAt: now,
    })
    .where(and(eq(oauthLogoutDeliveries.id, d.id), eq(oauthLogoutDeliveries.attempts, d.attempts)));
  deps.logger.debug({ delivery_id: d.id, application_id: d.applicationId, ok: r.ok, retry }, 'back-channel logout attempt');
}

/**
 * Claims and delivers due back-channel logouts until none is due; returns how many were attempted.
 * `held` names the claimed deliveries in flight (a stopping worker gives their leases back).
 */
export async function runBackchannelLogoutsOnce(
  deps: LogoutDeliveryDeps,
  opts: { batchSize?: number; stopping?: () => boolean; held?: Set<string> } = {},
) {
  let total = 0;
  for (;;) {
    if (opts.stopping?.()) return total;
    const claimed = await claimDue(deps.db, oauthLogoutDeliveries, {
      now: deps.clock.now(),
      limit: opts.batchSize ?? 50,
      leaseMs: LEASE_MS,
    });
    if (claimed.length === 0) return total;
    for (const d of claimed) opts.held?.add(d.id);
    try {
      const results = await Promise.allSettled(claimed.map((d) => deliver(deps, d)));
      // A failed record leaves the delivery leased: another round takes it when the lease lapses.
      for (const r of results) if (r.status === 'rejected') deps.logger.error({ err: r.reason }, 'back-channel logout failed');
    } finally {
      for (const d of claimed) opts.held?.delete(d.id);
    }
    total += claimed.length;
  }
}

/** Gives back the leases of claimed deliveries still pending (a worker stopping with logouts unfinished). */
export const releaseLogoutClaims = (deps: Pick<LogoutDeliveryDeps, 'db' | 'clock'>, ids: string[]) =>
  releaseLeases(deps.db, oauthLogoutDeliveries, ids, deps.clock.now());
