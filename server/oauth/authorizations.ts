import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { oauthAuthorizations, oauthRefreshTokens, oauthRevokedTokens, type OAuthAuthorizationContext } from '../db/schema';
import { newId } from '../db/ids';
import { sha256Hex } from '../crypto/secrets';
import { newRefreshToken, successorOf, type RefreshTokenKind } from '../crypto/refresh-rotation';
import { authorizationOfJti } from './tokens';

type D = Pick<Deps, 'db' | 'clock'>;

const REFRESH_TOKEN_PREFIX = 'ort_';
/** The provider's refresh tokens (crypto/refresh-rotation.ts). */
const OAUTH_REFRESH_TOKEN: RefreshTokenKind = { prefix: REFRESH_TOKEN_PREFIX, macPurpose: 'oauth-refresh-token' };
/** A refresh token unused this long expires; each rotation starts a new one. */
const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

export async function createAuthorization(
  db: Db,
  now: number,
  a: {
    instanceId: string;
    applicationId: string;
    userId: string;
    scope: string;
    authTime: number;
    context: OAuthAuthorizationContext | null;
  },
) {
  const [row] = await db
    .insert(oauthAuthorizations)
    .values({ id: newId('oaz'), ...a, createdAt: now })
    .returning();
  return row!;
}

/**
 * A refresh token of the authorization (shown once; stored as its digest): a random one
 * for a new authorization, or `successor` on rotation (written once: a concurrent rotation
 * of the same token lands on the same row).
 */
export async function issueRefreshToken(db: Db, now: number, authorizationId: string, successor?: string): Promise<string> {
  const token = successor ?? newRefreshToken(OAUTH_REFRESH_TOKEN);
  await db
    .insert(oauthRefreshTokens)
    .values({ digest: sha256Hex(token), authorizationId, createdAt: now, expiresAt: now + REFRESH_TOKEN_TTL_MS })
    .onConflictDoNothing();
  return token;
}

/** The token a refresh token rotates into, derived from it: concurrent refreshes get the same one. */
export const refreshSuccessorOf = (deps: Pick<Deps, 'cipher'>, token: string) => successorOf(deps.cipher, OAUTH_REFRESH_TOKEN, token);

/** Revokes authorizations: their refresh tokens stop working and their access tokens read as inactive. */
export async function revokeAuthorizations(db: Db, now: number, ids: string[]) {
  if (ids.length === 0) return;
  await db
    .update(oauthAuthorizations)
    .set({ revokedAt: now })
    .where(and(inArray(oauthAuthorizations.id, ids), isNull(oauthAuthorizations.revokedAt)));
}

/**
 * The authorization of an access token (by its jti) still in force, with what it carries
 * (`context`: null for client_credentials): null when the token or its authorization was revoked.
 */
export async function accessTokenAuthorization(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  jti: string,
): Promise<{ context: OAuthAuthorizationContext | null } | null> {
  const [revoked] = await deps.db.select({ jti: oauthRevokedTokens.jti }).from(oauthRevokedTokens).where(eq(oauthRevokedTokens.jti, jti));
  if (revoked) return null;
  const authorizationId = authorizationOfJti(jti);
  if (!authorizationId) return { context: null };
  const [row] = await deps.db
    .select({ revokedAt: oauthAuthorizations.revokedAt, context: oauthAuthorizations.context })
    .from(oauthAuthorizations)
    .where(and(eq(oauthAuthorizations.id, authorizationId), eq(oauthAuthorizations.instanceId, instanceId)));
  return row && row.revokedAt === null ? { context: row.context } : null;
}

/** Whether an access token (by its jti) is still in force: neither revoked itself nor its authorization. */
export const accessTokenInForce = async (deps: Pick<Deps, 'db'>, instanceId: string, jti: string) =>
  (await accessTokenAuthorization(deps, instanceId, jti)) !== null;

/** RFC 7009 for an access token: remembered as revoked until it would have expired. */
export async function revokeAccessToken(deps: D, instanceId: string, jti: string, expiresAtMs: number) {
  await deps.db.insert(oauthRevokedTokens).values({ jti, instanceId, expiresAt: expiresAtMs }).onConflictDoNothing();
}
