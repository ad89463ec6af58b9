import type { OAuthAuthorizationContext } from '../db/schema';
import { USER_CLAIMS } from './scopes';

/**
 * The `claims` request parameter (OIDC Core §5.5): the user claims asked for the UserInfo
 * answer and the ID token, by name, whether essential or voluntary (`null`, `{essential}`,
 * `{value}`, `{values}`). Latchkey releases each one the user has a value for; an
 * essential claim the user has no value for is simply absent (the authorization still
 * succeeds, as §5.5.1 allows). Names Latchkey does not know are ignored.
 */
export class ClaimsRequestError extends Error {}

const MAX_CLAIMS = 4096;

function namesOf(member: unknown, where: string): string[] {
  if (member === undefined || member === null) return [];
  if (typeof member !== 'object' || Array.isArray(member)) throw new ClaimsRequestError(`claims.${where} is an object.`);
  const out: string[] = [];
  for (const [name, ask] of Object.entries(member as Record<string, unknown>)) {
    if (ask !== null && (typeof ask !== 'object' || Array.isArray(ask)))
      throw new ClaimsRequestError(`claims.${where}.${name} is null or an object.`);
    if (USER_CLAIMS.has(name)) out.push(name);
  }
  return out;
}

export function parseClaimsRequest(raw: string | undefined): OAuthAuthorizationContext['claims'] {
  if (raw === undefined) return null;
  if (raw.length > MAX_CLAIMS) throw new ClaimsRequestError('claims is at most 4 KiB.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ClaimsRequestError('claims is a JSON object.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ClaimsRequestError('claims is a JSON object.');
  const p = parsed as Record<string, unknown>;
  return { userinfo: namesOf(p.userinfo, 'userinfo'), id_token: namesOf(p.id_token, 'id_token') };
}
