import { randomBytes } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { passkeyChallenges, type PasskeyChallengePurpose } from '../db/schema';
import { AppError } from '../http/errors';

/**
 * WebAuthn challenges: 32 random bytes, single use, alive CHALLENGE_TTL_MS, one live per
 * subject (the session that registers, or the sign-in attempt, which belongs to its client)
 * and purpose. Taking one deletes it in its own statement, before anything is verified and
 * outside any transaction, so a failed or replayed answer cannot use it again.
 */
export const CHALLENGE_TTL_MS = 5 * 60_000;

type D = Pick<Deps, 'db' | 'clock'>;
export type ChallengeRow = typeof passkeyChallenges.$inferSelect;

export async function issueChallenge(
  d: D,
  c: { subject: string; purpose: PasskeyChallengePurpose; instanceId: string; userId: string | null; rpId: string },
): Promise<{ challenge: string; expiresAt: number }> {
  const now = d.clock.now();
  const challenge = randomBytes(32).toString('base64url');
  const values = { instanceId: c.instanceId, userId: c.userId, challenge, rpId: c.rpId, expiresAt: now + CHALLENGE_TTL_MS, createdAt: now };
  await d.db
    .insert(passkeyChallenges)
    .values({ subject: c.subject, purpose: c.purpose, ...values })
    .onConflictDoUpdate({ target: [passkeyChallenges.subject, passkeyChallenges.purpose], set: values });
  return { challenge, expiresAt: values.expiresAt };
}

const challengeInvalid = () =>
  new AppError('PASSKEY_INVALID', {
    message: 'No passkey challenge is pending here (it expired, was used, or was never asked for); ask for new options.',
    meta: { reason: 'challenge_invalid' },
  });

/** Takes (deletes) the live challenge of the subject; throws challenge_invalid when there is none or it expired. */
export async function takeChallenge(
  d: D,
  c: { subject: string; purpose: PasskeyChallengePurpose; instanceId: string; rpId: string },
): Promise<ChallengeRow> {
  const [row] = await d.db
    .delete(passkeyChallenges)
    .where(
      and(
        eq(passkeyChallenges.subject, c.subject),
        eq(passkeyChallenges.purpose, c.purpose),
        eq(passkeyChallenges.instanceId, c.instanceId),
      ),
    )
    .returning();
  if (!row || row.expiresAt <= d.clock.now() || row.rpId !== c.rpId) throw challengeInvalid();
  return row;
}

/** Housekeeping: drops challenges past their time. */
export async function purgeExpiredChallenges(d: D): Promise<number> {
  const gone = await d.db
    .delete(passkeyChallenges)
    .where(lt(passkeyChallenges.expiresAt, d.clock.now()))
    .returning({ subject: passkeyChallenges.subject });
  return gone.length;
}
