import type { Deps } from '../deps';
import type { OAuthAuthorizationContext } from '../db/schema';
import { getUser } from '../users/users';
import type { UserView } from '../users/schemas';
import { AppError } from '../http/errors';
import { SCOPE_CLAIMS } from './scopes';

/**
 * The user's standard claims (OIDC Core §5.1) by name. Latchkey's own fields come first: the
 * names, username, picture (the profile image, else `public_metadata.picture`), locale, updated_at, the primary email address
 * and phone number with whether they are verified. The claims Latchkey has no field for
 * (`middle_name`, `nickname`, `profile`, `website`, `gender`, `birthdate`, `zoneinfo`,
 * `address`) come from the user's `public_metadata` under their standard names, when there and
 * of the standard's type: an operator (or an import) sets them, the user cannot.
 */
const METADATA_STRINGS = ['middle_name', 'nickname', 'profile', 'website', 'gender', 'zoneinfo'] as const;
const ADDRESS_FIELDS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;
const BIRTHDATE_RE = /^(\d{4}|0000)(-\d{2}-\d{2})?$/;

function standardClaims(user: UserView): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  const meta = (user.public_metadata ?? {}) as Record<string, unknown>;
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
  if (name) c.name = name;
  if (user.first_name) c.given_name = user.first_name;
  if (user.last_name) c.family_name = user.last_name;
  if (user.username) c.preferred_username = user.username;
  if (user.has_image && user.image_url) c.picture = user.image_url;
  else if (typeof meta.picture === 'string' && meta.picture) c.picture = meta.picture;
  if (user.locale) c.locale = user.locale;
  for (const k of METADATA_STRINGS) if (typeof meta[k] === 'string' && meta[k]) c[k] = meta[k];
  if (typeof meta.birthdate === 'string' && BIRTHDATE_RE.test(meta.birthdate)) c.birthdate = meta.birthdate;
  c.updated_at = Math.floor(user.updated_at / 1000);
  const email = user.email_addresses.find((e) => e.id === user.primary_email_address_id) ?? user.email_addresses[0];
  if (email) {
    c.email = email.email_address;
    c.email_verified = email.verification?.status === 'verified';
  }
  const phone = user.phone_numbers.find((p) => p.id === user.primary_phone_number_id) ?? user.phone_numbers[0];
  if (phone) {
    c.phone_number = phone.phone_number;
    c.phone_number_verified = phone.verification?.status === 'verified';
  }
  const address = meta.address;
  if (address && typeof address === 'object' && !Array.isArray(address)) {
    const a: Record<string, string> = {};
    for (const k of ADDRESS_FIELDS) {
      const v = (address as Record<string, unknown>)[k];
      if (typeof v === 'string' && v) a[k] = v;
    }
    if (Object.keys(a).length > 0) c.address = a;
  }
  return c;
}

/** The user, or null when gone or banned (their tokens then stop giving claims). */
async function activeUser(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string) {
  const user = await getUser(deps, instanceId, userId).catch((e: unknown) => {
    if (e instanceof AppError && e.code === 'NOT_FOUND') return null;
    throw e;
  });
  return user && !user.banned ? user : null;
}

/** The claim names the scopes release (OIDC Core §5.4), and those the `claims` parameter asked for this destination. */
export const releasedClaimNames = (scopes: readonly string[], asked: readonly string[] = []) =>
  new Set([...scopes.flatMap((s) => SCOPE_CLAIMS[s] ?? []), ...asked]);

/**
 * The user claims of an ID token issued with an access token. OIDC Core §5.4 puts the scopes'
 * claims in the UserInfo answer then; the ID token carries those the `claims` parameter asked
 * for it, and, with scope `email`, `email` and `email_verified`: relying parties in the field
 * (Auth.js, many server frameworks) read the address from the ID token alone, and dropping it
 * would sign their users in without one.
 */
export function idTokenClaimNames(scopes: readonly string[], context: OAuthAuthorizationContext | null): Set<string> {
  const names = new Set(context?.claims?.id_token ?? []);
  if (scopes.includes('email')) for (const n of SCOPE_CLAIMS.email!) names.add(n);
  return names;
}

/**
 * The user's claims among `names` (what the scopes and the `claims` parameter release to
 * this destination), always with `sub`, the user id. A claim the user has no value for is
 * left out (OIDC Core §5.3.2). Null when the user is gone or banned.
 */
export async function userClaims(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string, names: Iterable<string>) {
  const user = await activeUser(deps, instanceId, userId);
  if (!user) return null;
  const all = standardClaims(user);
  const out: Record<string, unknown> = { sub: user.id };
  for (const n of names) if (n in all) out[n] = all[n];
  return out;
}
