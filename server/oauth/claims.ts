import type { Deps } from '../deps';
import { getUser } from '../users/users';
import { AppError } from '../http/errors';

/**
 * The user's claims a scope releases (OIDC Core §5.4): `profile` → names, username and
 * updated_at (there is no picture to release yet), `email` → the primary address and
 * whether it is verified. `sub` is the user id. Null when the user is gone or banned.
 */
export async function userClaims(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string, scopes: readonly string[]) {
  const user = await getUser(deps, instanceId, userId).catch((e: unknown) => {
    if (e instanceof AppError && e.code === 'NOT_FOUND') return null;
    throw e;
  });
  if (!user || user.banned) return null;
  const claims: Record<string, unknown> = { sub: user.id };
  if (scopes.includes('profile')) {
    const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
    if (name) claims.name = name;
    if (user.first_name) claims.given_name = user.first_name;
    if (user.last_name) claims.family_name = user.last_name;
    if (user.username) claims.preferred_username = user.username;
    claims.updated_at = Math.floor(user.updated_at / 1000);
  }
  if (scopes.includes('email')) {
    const primary = user.email_addresses.find((e) => e.id === user.primary_email_address_id) ?? user.email_addresses[0];
    if (primary) {
      claims.email = primary.email_address;
      claims.email_verified = primary.verification?.status === 'verified';
    }
  }
  return claims;
}
