import type { Deps } from '../deps';
import { validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { rejectCompromisedPassword } from '../protection/breached';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type PasswordHasher } from '../users/passwords';

/**
 * The password policy of FAPI (sign-up, password reset): 8 to 256 characters, not equal
 * (ignoring case) to one of the user's identifiers. Each breach is a 422 with
 * meta.param `password` and meta.reason `too_short`, `too_long` or `matches_identifier`.
 */
export function checkPasswordPolicy(password: string, identifiers: (string | null | undefined)[]) {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) {
    throw validationError('password', 'too_short', `password must be at least ${PASSWORD_MIN_LENGTH} characters.`);
  }
  if (length > PASSWORD_MAX_LENGTH) {
    throw validationError('password', 'too_long', `password must be at most ${PASSWORD_MAX_LENGTH} characters.`);
  }
  const lowered = password.toLowerCase();
  if (identifiers.some((id) => id && id.toLowerCase() === lowered)) {
    throw validationError('password', 'matches_identifier', 'password must not be the same as your email address or username.');
  }
}

/**
 * The policy, then the breached/common password check of attack protection (422
 * `password_compromised`): every password a user chooses on the FAPI goes through this.
 */
export async function checkNewPassword(
  deps: Pick<Deps, 'config' | 'dns' | 'logger' | 'metrics'>,
  instance: InstanceContext,
  password: string,
  identifiers: (string | null | undefined)[],
) {
  checkPasswordPolicy(password, identifiers);
  await rejectCompromisedPassword(deps, instance, password);
}

/**
 * Verifies against the user's digest, or the pool's dummy argon2id digest when there is none:
 * same timing class either way (imported digests cost about as much: IMPORT_COST_LIMITS).
 */
export async function checkPassword(
  deps: Pick<Deps, 'passwords'>,
  password: string,
  stored: { digest: string; hasher: string } | null,
): Promise<boolean> {
  if (!stored) {
    await deps.passwords.verify(password, await deps.passwords.dummyDigest(), 'argon2id');
    return false;
  }
  return deps.passwords.verify(password, stored.digest, stored.hasher as PasswordHasher);
}
