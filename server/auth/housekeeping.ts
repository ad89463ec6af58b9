import { lt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { signInAttempts, signUpAttempts, verificationCodes } from '../db/schema';
import { SIGN_IN_TTL_MS } from './sign-ins';
import { SIGN_UP_TTL_MS } from './sign-ups';
import { purgeExpiredChallenges } from '../passkeys/challenges';

/**
 * Drops what sign-in and sign-up no longer need: attempts past `abandon_at` (a day after
 * they began, finished or not) and codes older than any attempt lives (so past the
 * one-hour reissue window too), and passkey challenges past their five minutes. Run periodically (hourly is plenty).
 */
export async function purgeAuthAttempts(deps: Pick<Deps, 'db' | 'clock'>) {
  const now = deps.clock.now();
  const signIns = await deps.db.delete(signInAttempts).where(lt(signInAttempts.abandonAt, now)).returning({ id: signInAttempts.id });
  const signUps = await deps.db.delete(signUpAttempts).where(lt(signUpAttempts.abandonAt, now)).returning({ id: signUpAttempts.id });
  const codes = await deps.db
    .delete(verificationCodes)
    .where(lt(verificationCodes.createdAt, now - Math.max(SIGN_IN_TTL_MS, SIGN_UP_TTL_MS)))
    .returning({ id: verificationCodes.id });
  const challenges = await purgeExpiredChallenges(deps);
  return {
    sign_in_attempts: signIns.length,
    sign_up_attempts: signUps.length,
    verification_codes: codes.length,
    passkey_challenges: challenges,
  };
}
