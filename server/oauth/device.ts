import { randomInt } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { oauthDeviceCodes, type OAuthAuthorizationContext } from '../db/schema';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import type { Actor } from '../http/actor';
import type { InstanceContext } from '../instances/instances';
import { uniqueViolation } from '../db/errors';
import type { ApplicationRow } from './applications';
import { createAuthorization, issueRefreshToken, revokeAuthorizations } from './authorizations';
import { oauthError } from './errors';
import { parseScope } from './scopes';

/**
 * The Device Authorization Grant (RFC 8628): a device without a browser (a CLI, a TV) asks
 * for a device_code and a user_code, shows the user the verification page's address and the
 * code, and polls the token endpoint until the user has approved or denied on a browser.
 */
type D = Pick<Deps, 'db' | 'clock' | 'config' | 'cipher'>;

/** How long the user has to enter the code (RFC 8628 §3.2 expires_in). */
const DEVICE_CODE_TTL_MS = 10 * 60_000;
const DEVICE_CODE_PREFIX = 'odc_';
/** RFC 8628 §6.1: 20 consonants, no vowels (no words), none a digit could be mistaken for; 20^8 ≈ 2.6·10^10 codes. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval. */
const SLOW_DOWN_STEP_S = 5;

const devicePollInterval = (deps: Pick<Deps, 'config'>) => deps.config.OAUTH_DEVICE_POLL_INTERVAL ?? 5;

const newUserCode = () => Array.from({ length: USER_CODE_LENGTH }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
/** As shown: XXXX-XXXX. */
export const formatUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * A user code as typed: case, spaces and dashes do not matter (RFC 8628 §6.1). Null when it
 * cannot be one of ours, so that a malformed entry costs no lookup (it still counts against the limit).
 */
export function normalizeUserCode(typed: string): string | null {
  const code = typed.slice(0, 64).toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const ch of code) if (!USER_CODE_ALPHABET.includes(ch)) return null;
  return code;
}

export function verificationUri(instance: InstanceContext) {
  return `${instance.fapiUrl}/oauth2/device`;
}

/** RFC 8628 §3.1–3.2: a new request for an app allowed the grant, with scopes it may ask for. */
export async function startDeviceAuthorization(deps: D, instance: InstanceContext, app: ApplicationRow, scope: string | undefined) {
  if (!app.deviceFlowEnabled) throw oauthError('unauthorized_client', 'This application may not use the device authorization grant.');
  const scopes = parseScope(scope);
  if (scopes.length === 0) throw oauthError('invalid_scope', 'scope is required.');
  const refused = scopes.find((s) => !app.scopes.includes(s));
  if (refused !== undefined) throw oauthError('invalid_scope', `The application may not ask for ${refused}.`);
  const deviceCode = generateSecret(DEVICE_CODE_PREFIX);
  const now = deps.clock.now();
  const interval = devicePollInterval(deps);
  // A collision of two live user codes is unlikely but possible: draw again.
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    try {
      await deps.db.insert(oauthDeviceCodes).values({
        digest: sha256Hex(deviceCode),
        instanceId: instance.id,
        applicationId: app.id,
        userCodeDigest: userCodeDigest(deps, instance.id, userCode),
        scope: scopes.join(' '),
        status: 'pending',
        interval,
        createdAt: now,
        expiresAt: now + DEVICE_CODE_TTL_MS,
      });
    } catch (e) {
      if (attempt < 3 && uniqueViolation(e) !== null) continue;
      throw e;
    }
    const shown = formatUserCode(userCode);
    const uri = verificationUri(instance);
    return {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: uri,
      verification_uri_complete: `${uri}?user_code=${shown}`,
      expires_in: DEVICE_CODE_TTL_MS / 1000,
      interval,
    };
  }
}

type DeviceRequest = typeof oauthDeviceCodes.$inferSelect;

/**
 * A user code has about 35 bits: a plain hash at rest would give every pending code away to
 * whoever reads a backup, so it is kept as a MAC under the deployment's key.
 */
const userCodeDigest = (deps: Pick<Deps, 'cipher'>, instanceId: string, userCode: string) =>
  deps.cipher.mac('device-user-code', `${instanceId}:${userCode}`);

/** The pending request a user code names, if it is live. */
export async function pendingDeviceRequest(deps: Pick<Deps, 'db' | 'clock' | 'cipher'>, instanceId: string, userCode: string) {
  const [row] = await deps.db
    .select()
    .from(oauthDeviceCodes)
    .where(
      and(
        eq(oauthDeviceCodes.instanceId, instanceId),
        eq(oauthDeviceCodes.userCodeDigest, userCodeDigest(deps, instanceId, userCode)),
        eq(oauthDeviceCodes.status, 'pending'),
        gt(oauthDeviceCodes.expiresAt, deps.clock.now()),
      ),
    );
  return row ?? null;
}

/** The user's answer on the verification page: once, while the request is pending and live. */
export async function answerDeviceRequest(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  request: DeviceRequest,
  answer:
    { decision: 'deny'; userId: string } | { decision: 'allow'; userId: string; authTime: number; context: OAuthAuthorizationContext },
  actor: Actor,
): Promise<boolean> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(oauthDeviceCodes)
      .set(
        answer.decision === 'allow'
          ? { status: 'approved', userId: answer.userId, authTime: answer.authTime, context: answer.context }
          : { status: 'denied', userId: answer.userId },
      )
      .where(and(eq(oauthDeviceCodes.digest, request.digest), eq(oauthDeviceCodes.status, 'pending'), gt(oauthDeviceCodes.expiresAt, now)))
      .returning({ digest: oauthDeviceCodes.digest });
    if (!row) return false;
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        actor: actor.ref,
        actorKind: actor.kind,
        action: answer.decision === 'allow' ? 'oauth_device.approved' : 'oauth_device.denied',
        target: request.applicationId,
        ip: actor.ip,
        userAgent: actor.userAgent,
        details: { application_id: request.applicationId, user_id: answer.userId, scopes: parseScope(request.scope) },
      },
    );
    return true;
  });
}

/**
 * RFC 8628 §3.4–3.5: one poll of the device. Too soon after the last one: slow_down (and the
 * interval grows by 5 s); before the user answered: authorization_pending; denied:
 * access_denied; expired: expired_token. An approved request issues its tokens once.
 */
export async function pollDeviceCode(deps: D, instance: InstanceContext, app: ApplicationRow, deviceCode: string) {
  const digest = sha256Hex(deviceCode);
  const now = deps.clock.now();
  const [row] = await deps.db
    .select()
    .from(oauthDeviceCodes)
    .where(and(eq(oauthDeviceCodes.digest, digest), eq(oauthDeviceCodes.instanceId, instance.id)));
  if (!row || row.applicationId !== app.id) throw oauthError('invalid_grant', 'The device_code is invalid.');
  if (row.status === 'used') {
    // A replayed device_code has leaked: what it issued is revoked, as for a replayed authorization code.
    if (row.authorizationId) await revokeAuthorizations(deps.db, now, [row.authorizationId]);
    throw oauthError('invalid_grant', 'The device_code was already used; the tokens it issued are revoked.');
  }
  if (row.expiresAt <= now) throw oauthError('expired_token', 'The device_code has expired; start again.');
  const tooSoon = row.lastPolledAt !== null && now - row.lastPolledAt < row.interval * 1000;
  await deps.db
    .update(oauthDeviceCodes)
    .set({ lastPolledAt: now, ...(tooSoon ? { interval: row.interval + SLOW_DOWN_STEP_S } : {}) })
    .where(eq(oauthDeviceCodes.digest, digest));
  if (tooSoon) throw oauthError('slow_down', `Poll at most every ${row.interval + SLOW_DOWN_STEP_S} seconds.`);
  if (row.status === 'pending') throw oauthError('authorization_pending', 'The user has not answered yet.');
  if (row.status === 'denied') throw oauthError('access_denied', 'The user denied access.');
  return deps.db.transaction(async (tx) => {
    // The claim is the single use: a concurrent poll finds it used and gets nothing.
    const [claimed] = await tx
      .update(oauthDeviceCodes)
      .set({ status: 'used' })
      .where(and(eq(oauthDeviceCodes.digest, digest), eq(oauthDeviceCodes.status, 'approved')))
      .returning();
    if (!claimed || claimed.userId === null || claimed.authTime === null)
      throw oauthError('invalid_grant', 'The device_code was already used.');
    const authorization = await createAuthorization(tx, now, {
      instanceId: instance.id,
      applicationId: app.id,
      userId: claimed.userId,
      scope: claimed.scope,
      authTime: claimed.authTime,
      context: claimed.context,
    });
    await tx.update(oauthDeviceCodes).set({ authorizationId: authorization.id }).where(eq(oauthDeviceCodes.digest, digest));
    const refreshToken = parseScope(claimed.scope).includes('offline_access') ? await issueRefreshToken(tx, now, authorization.id) : null;
    return {
      authorizationId: authorization.id,
      refreshToken,
      userId: claimed.userId,
      scope: claimed.scope,
      authTime: claimed.authTime,
      context: claimed.context,
    };
  });
}
