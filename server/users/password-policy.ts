import type { Deps } from '../deps';
import { AppError, validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { rejectCompromisedPassword } from './breached-passwords';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type PasswordHasher } from '../crypto/passwords';
import { CHARACTER_RULES, DEFAULT_PASSWORD_POLICY, type PasswordPolicy } from '../instances/password-rules';

/**
 * The password policy of FAPI (sign-up, password reset, password change): the instance's
 * minimum length (8 by default) to 256 characters, the kinds of characters it requires,
 * and not equal (ignoring case) to one of the user's identifiers. Each breach is a 422 with
 * meta.param `password` and meta.reason `too_short`, `too_long`, `missing_uppercase`,
 * `missing_lowercase`, `missing_digit`, `missing_symbol` or `matches_identifier`.
 */
function checkPasswordPolicy(
  password: string,
  identifiers: (string | null | undefined)[],
  policy: PasswordPolicy = DEFAULT_PASSWORD_POLICY,
) {
  const length = [...password].length;
  const min = Math.max(PASSWORD_MIN_LENGTH, policy.min_length);
  if (length < min) {
    throw new AppError('VALIDATION_FAILED', {
      message: `password must be at least ${min} characters.`,
      meta: { param: 'password', reason: 'too_short', min_length: min },
    });
  }
  if (length > PASSWORD_MAX_LENGTH) {
    throw validationError('password', 'too_long', `password must be at most ${PASSWORD_MAX_LENGTH} characters.`);
  }
  for (const rule of CHARACTER_RULES) {
    if (policy[rule.key] && !rule.test(password)) throw validationError('password', rule.reason, `password must contain ${rule.what}.`);
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
  checkPasswordPolicy(password, identifiers, instance.settings.password_policy);
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
