import { lt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { oauthCodes, oauthDeviceCodes, oauthRefreshTokens, oauthRevokedTokens } from '../db/schema';

/** Used codes are kept a day past their expiry, so that a late second use still revokes what the first issued. */
const CODE_RETENTION_MS = 24 * 3600 * 1000;

/**
 * Drops what the provider no longer needs: codes (and device codes) a day past expiry, refresh tokens past
 * theirs (rotated or not: an expired one is refused either way), and revoked access tokens
 * past the time they would have expired. Run periodically (hourly is plenty).
 */
export async function purgeOAuthArtifacts(deps: Pick<Deps, 'db' | 'clock'>) {
  const now = deps.clock.now();
  const codes = await deps.db
    .delete(oauthCodes)
    .where(lt(oauthCodes.expiresAt, now - CODE_RETENTION_MS))
    .returning({ digest: oauthCodes.digest });
  const refresh = await deps.db
    .delete(oauthRefreshTokens)
    .where(lt(oauthRefreshTokens.expiresAt, now))
    .returning({ digest: oauthRefreshTokens.digest });
  const revoked = await deps.db
    .delete(oauthRevokedTokens)
    .where(lt(oauthRevokedTokens.expiresAt, now))
    .returning({ jti: oauthRevokedTokens.jti });
  const deviceCodes = await deps.db
    .delete(oauthDeviceCodes)
    .where(lt(oauthDeviceCodes.expiresAt, now - CODE_RETENTION_MS))
    .returning({ digest: oauthDeviceCodes.digest });
  return { codes: codes.length, refresh_tokens: refresh.length, revoked_access_tokens: revoked.length, device_codes: deviceCodes.length };
}
