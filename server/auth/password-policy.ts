import { validationError } from '../http/errors';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyPassword } from '../users/passwords';

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

let dummy: Promise<string> | null = null;
/**
 * An argon2id digest of a random password, made with the same parameters as real ones:
 * a password check for an unknown identifier (or a user without a password) verifies
 * against it, so it takes as long as a real check and always fails.
 */
export function dummyDigest(): Promise<string> {
  dummy ??= hashPassword(`dummy-${Math.random()}-${Date.now()}`);
  return dummy;
}

/** Verifies against the user's digest, or the dummy one when there is none: same timing class either way. */
export async function checkPassword(password: string, stored: { digest: string; hasher: string } | null): Promise<boolean> {
  if (!stored) {
    await verifyPassword(password, await dummyDigest(), 'argon2id');
    return false;
  }
  return verifyPassword(password, stored.digest, stored.hasher as Parameters<typeof verifyPassword>[2]);
}
