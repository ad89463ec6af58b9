import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { oauthApplications, oauthLogoutDeliveries } from '../db/schema';
import { isId, newId } from '../db/ids';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import type { AuditContext } from '../http/actor';
import { AppError, notFound, validationError } from '../http/errors';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { REASONS } from './reasons';
import { checkJwksUri } from '../http/remote-jwks';
import { instanceContext } from '../instances/instances';

export type ApplicationRow = typeof oauthApplications.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'caches'>;
/** Writers check a jwks_uri against the instance's outbound policy. */
type C = D & Pick<Deps, 'config'>;
/** Writers also tell every node to forget the application. */
type W = C & Pick<Deps, 'cacheInvalidation'>;

const APP_CACHE_TTL_MS = 5_000;
const APP_CACHE = 'oauth-app';

/**
 * An app by client_id, cached for a few seconds on this node (the token endpoint's hot
 * path). Changes forget it here at once; other nodes see them within the TTL.
 */
export async function findApplication(deps: D, instanceId: string, clientId: string): Promise<ApplicationRow | null> {
  if (!isId('oa', clientId)) return null;
  const cache = deps.caches.get<ApplicationRow>(APP_CACHE, APP_CACHE_TTL_MS);
  const key = `${instanceId}:${clientId}`;
  const now = deps.clock.now();
  const hit = cache.get(key, now);
  if (hit !== undefined) return hit;
  const [row] = await deps.db
    .select()
    .from(oauthApplications)
    .where(and(eq(oauthApplications.id, clientId), eq(oauthApplications.instanceId, instanceId)));
  // Misses are not cached: an app created a moment later is found at once.
  if (row) cache.set(key, row, now);
  return row ?? null;
}

export const forgetApplication = (deps: Pick<Deps, 'cacheInvalidation'>, instanceId: string, clientId: string) =>
  deps.cacheInvalidation.invalidate(APP_CACHE, `${instanceId}:${clientId}`);

export const CLIENT_SECRET_PREFIX = 'oas_';
/** Hosts where a redirect URI may use plain http (RFC 8252 §7.3), for applications made by hand and registered alike. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

const applicationView = (r: ApplicationRow) => ({
  object: 'oauth_application' as const,
  id: r.id,
  client_id: r.id,
  name: r.name,
  redirect_uris: r.redirectUris,
  post_logout_redirect_uris: r.postLogoutRedirectUris,
  public: r.public,
  scopes: r.scopes,
  consent_screen_enabled: r.consentScreenEnabled,
  device_flow_enabled: r.deviceFlowEnabled,
  jwks_uri: r.jwksUri,
  jwks: r.jwks,
  backchannel_logout_uri: r.backchannelLogoutUri,
  backchannel_logout_session_required: r.backchannelLogoutSessionRequired,
  registered_dynamically: r.registrationTokenDigest !== null,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/**
 * What is wrong with a redirect URI the provider would send codes to, or null (OIDC Registration
 * §2, RFC 8252 §7): absolute, no fragment, no credentials; https, or http on a loopback host (for
 * native apps and development); a native client's also a private-use scheme named after a domain
 * (`com.example.app:/callback`). Matched exactly at /authorize. Applications an operator registers
 * are web clients; dynamic registration says which (registration.ts).
 */
export function redirectUriProblem(raw: string, applicationType: 'web' | 'native' = 'web'): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw} is not an absolute URL.`;
  }
  if (raw.includes('#')) return 'A redirect URI has no fragment.';
  if (url.username || url.password) return 'A redirect URI carries no credentials.';
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return null;
  const scheme = url.protocol.slice(0, -1);
  if (applicationType === 'native' && scheme.includes('.') && !['javascript', 'data', 'file', 'vbscript'].includes(scheme)) return null;
  return applicationType === 'native'
    ? 'A native client’s redirect URI uses https, http on a loopback host, or a private-use scheme named after a domain (com.example.app:/cb).'
    : 'A redirect URI uses https, or http on a loopback host (localhost, 127.0.0.1, [::1]).';
}

function checkRedirectUri(param: string, raw: string): string {
  const problem = redirectUriProblem(raw);
  if (problem) throw validationError(param, REASONS.redirect_uri_not_allowed, problem);
  return raw;
}

const checkUris = (param: string, uris: string[]) => [...new Set(uris.map((u) => checkRedirectUri(param, u)))];

export interface ApplicationInput {
  name: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  public: boolean;
  scopes: string[];
  consent_screen_enabled: boolean;
  device_flow_enabled: boolean;
  jwks_uri: string | null;
  jwks: { keys: Record<string, unknown>[] } | null;
  backchannel_logout_uri: string | null;
  backchannel_logout_session_required: boolean;
}

export async function loadApplication(db: Db, instanceId: string, id: string): Promise<ApplicationRow> {
  const [row] = await db
    .select()
    .from(oauthApplications)
    .where(and(eq(oauthApplications.id, id), eq(oauthApplications.instanceId, instanceId)));
  if (!row) throw notFound('OAuth application');
  return row;
}

/**
 * A backchannel_logout_uri (Back-Channel Logout 1.0 §2.2): absolute, no fragment, and a target the
 * instance's outbound policy allows (the SSRF guard checks it again at each delivery).
 */
async function checkLogoutUri(deps: C, instanceId: string, raw: string): Promise<string> {
  if (raw.includes('#')) throw validationError('backchannel_logout_uri', 'invalid_url', 'A backchannel_logout_uri has no fragment.');
  return checkJwksUri(deps.config, (await instanceContext(deps, instanceId)).environment, raw, 'backchannel_logout_uri');
}

/** The client's keys and back-channel logout URL: a jwks_uri the instance may fetch, or a key set (which is used when both are set). */
async function clientKeys(
  deps: C,
  instanceId: string,
  input: Partial<Pick<ApplicationInput, 'jwks_uri' | 'jwks' | 'backchannel_logout_uri'>>,
) {
  const patch: Partial<typeof oauthApplications.$inferInsert> = {};
  if (input.jwks_uri !== undefined) {
    patch.jwksUri =
      input.jwks_uri === null ? null : checkJwksUri(deps.config, (await instanceContext(deps, instanceId)).environment, input.jwks_uri);
  }
  if (input.jwks !== undefined) patch.jwks = input.jwks;
  if (input.backchannel_logout_uri !== undefined) {
    patch.backchannelLogoutUri =
      input.backchannel_logout_uri === null ? null : await checkLogoutUri(deps, instanceId, input.backchannel_logout_uri);
  }
  return patch;
}

/** Creates an app; a confidential one's `client_secret` is in this answer only. */
export async function createApplication(deps: C, instanceId: string, input: ApplicationInput, ctx: AuditContext) {
  const secret = input.public ? null : generateSecret(CLIENT_SECRET_PREFIX);
  const keys = await clientKeys(deps, instanceId, input);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(oauthApplications)
      .values({
        id: newId('oa'),
        instanceId,
        name: input.name,
        redirectUris: checkUris('redirect_uris', input.redirect_uris),
        postLogoutRedirectUris: checkUris('post_logout_redirect_uris', input.post_logout_redirect_uris),
        public: input.public,
        scopes: [...new Set(input.scopes)],
        consentScreenEnabled: input.consent_screen_enabled,
        deviceFlowEnabled: input.device_flow_enabled,
        secretDigest: secret ? sha256Hex(secret) : null,
        jwksUri: keys.jwksUri ?? null,
        jwks: keys.jwks ?? null,
        backchannelLogoutUri: keys.backchannelLogoutUri ?? null,
        backchannelLogoutSessionRequired: input.backchannel_logout_session_required,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...ctx, action: 'oauth_application.created', target: row!.id });
    return { ...applicationView(row!), client_secret: secret };
  });
}

export async function getApplication(deps: Pick<Deps, 'db'>, instanceId: string, id: string) {
  return applicationView(await loadApplication(deps.db, instanceId, id));
}

export async function listApplications(deps: Pick<Deps, 'db'>, instanceId: string, q: { limit: number; starting_after?: string }) {
  return cursorList(
    q,
    newestFirst(oauthApplications.id),
    tableRows(deps.db, oauthApplications, eq(oauthApplications.instanceId, instanceId)),
    applicationView,
  );
}

/** `public` is fixed at creation: turning a confidential client public would leave it a secret it must no longer use. */
export async function updateApplication(
  deps: W,
  instanceId: string,
  id: string,
  input: Partial<Omit<ApplicationInput, 'public'>>,
  ctx: AuditContext,
) {
  const patch: Partial<typeof oauthApplications.$inferInsert> = { updatedAt: deps.clock.now() };
  // URIs the app already has stay valid (a native app registered dynamically may use a private-use scheme, RFC 8252 §7.1).
  const current = await loadApplication(deps.db, instanceId, id);
  const kept = (param: string, uris: string[], had: string[]) => [
    ...new Set(uris.map((u) => (had.includes(u) ? u : checkRedirectUri(param, u)))),
  ];
  if (input.name !== undefined) patch.name = input.name;
  if (input.redirect_uris !== undefined) patch.redirectUris = kept('redirect_uris', input.redirect_uris, current.redirectUris);
  if (input.post_logout_redirect_uris !== undefined)
    patch.postLogoutRedirectUris = kept('post_logout_redirect_uris', input.post_logout_redirect_uris, current.postLogoutRedirectUris);
  if (input.scopes !== undefined) patch.scopes = [...new Set(input.scopes)];
  if (input.consent_screen_enabled !== undefined) patch.consentScreenEnabled = input.consent_screen_enabled;
  if (input.device_flow_enabled !== undefined) patch.deviceFlowEnabled = input.device_flow_enabled;
  if (input.backchannel_logout_session_required !== undefined)
    patch.backchannelLogoutSessionRequired = input.backchannel_logout_session_required;
  Object.assign(patch, await clientKeys(deps, instanceId, input));
  return deps.db.transaction(async (tx) => {
    await loadApplication(tx, instanceId, id);
    const [row] = await tx.update(oauthApplications).set(patch).where(eq(oauthApplications.id, id)).returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        ...ctx,
        action: 'oauth_application.updated',
        target: id,
        details: { fields: Object.keys(input).sort() },
      },
    );
    forgetApplication(deps, instanceId, id);
    return applicationView(row!);
  });
}

/** Deletes the app with its grants, codes and authorizations: its tokens stop being active. */
export async function deleteApplication(deps: W, instanceId: string, id: string, ctx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    await loadApplication(tx, instanceId, id);
    await tx.delete(oauthApplications).where(eq(oauthApplications.id, id));
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...ctx, action: 'oauth_application.deleted', target: id });
    forgetApplication(deps, instanceId, id);
    return { object: 'oauth_application' as const, id, deleted: true as const };
  });
}

/** A new client secret, effective at once (the old one stops working); shown in this answer only. */
export async function rotateApplicationSecret(deps: W, instanceId: string, id: string, ctx: AuditContext) {
  const secret = generateSecret(CLIENT_SECRET_PREFIX);
  return deps.db.transaction(async (tx) => {
    const row = await loadApplication(tx, instanceId, id);
    if (row.public) {
      throw new AppError('CONFLICT', { message: 'A public application has no client secret.', meta: { reason: REASONS.public_client } });
    }
    const [updated] = await tx
      .update(oauthApplications)
      .set({ secretDigest: sha256Hex(secret), updatedAt: deps.clock.now() })
      .where(eq(oauthApplications.id, id))
      .returning();
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...ctx, action: 'oauth_application.secret_rotated', target: id });
    forgetApplication(deps, instanceId, id);
    return { ...applicationView(updated!), client_secret: secret };
  });
}

const logoutDeliveryView = (r: typeof oauthLogoutDeliveries.$inferSelect) => ({
  object: 'oauth_logout_delivery' as const,
  id: r.id,
  application_id: r.applicationId,
  session_id: r.sessionId,
  user_id: r.userId,
  status: r.status,
  attempts: r.attempts,
  next_attempt_at: r.nextAttemptAt,
  last_error: r.lastError,
  created_at: r.createdAt,
  /** When it was last attempted (or queued, before the first attempt). */
  updated_at: r.updatedAt,
});

/** The app's back-channel logout deliveries, newest first: status, attempts, last error (Back-Channel Logout 1.0). */
export async function listLogoutDeliveries(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  id: string,
  q: { limit: number; starting_after?: string },
) {
  await loadApplication(deps.db, instanceId, id);
  return cursorList(
    q,
    newestFirst(oauthLogoutDeliveries.id),
    tableRows(
      deps.db,
      oauthLogoutDeliveries,
      and(eq(oauthLogoutDeliveries.instanceId, instanceId), eq(oauthLogoutDeliveries.applicationId, id))!,
    ),
    logoutDeliveryView,
  );
}
