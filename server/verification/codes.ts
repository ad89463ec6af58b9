import { and, count, desc, eq, gt, inArray, max } from 'drizzle-orm';
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../deps';
import { verificationCodes, type VerificationPurpose } from '../db/schema';
import { AppError } from '../http/errors';
import { newId } from '../db/ids';
import { addressCodesLockSql } from './statements';

/**
 * One-time email codes of sign-up, sign-in and password reset.
 *
 * - 6 digits from the CSPRNG; only an HMAC (ENCRYPTION_KEY subkey, bound to the row id)
 *   is stored. A code lives 10 minutes and allows 5 wrong tries, then it is locked.
 * - Reissue caps per address (DESIGN.md, "Default limits"): at most 1 code per 30 s and
 *   5 per hour to one address of an instance, whatever the purpose, independently of the
 *   per-IP budgets; past them 429 TOO_MANY_ATTEMPTS (meta.reason `code_reissue`).
 * - A new code for the same attempt and purpose supersedes the previous one.
 */
export const VERIFICATION_CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_FAILURES = 5;
const REISSUE_CAPS = [
  { windowMs: 30_000, limit: 1 },
  { windowMs: 3_600_000, limit: 5 },
] as const;

type CodeRow = typeof verificationCodes.$inferSelect;

/**
 * The two ways of one verification (a code to type, a link to open): a new one of either
 * supersedes the other, so only the latest asked for works.
 */
const SAME_VERIFICATION: Partial<Record<VerificationPurpose, readonly VerificationPurpose[]>> = {
  sign_up: ['sign_up', 'sign_up_link'],
  sign_up_link: ['sign_up', 'sign_up_link'],
  email_verification: ['email_verification', 'email_verification_link'],
  email_verification_link: ['email_verification', 'email_verification_link'],
};
export const samePurposes = (purpose: VerificationPurpose) => SAME_VERIFICATION[purpose] ?? [purpose];
type D = Pick<Deps, 'db' | 'clock' | 'cipher'>;

const codeDigest = (deps: Pick<Deps, 'cipher'>, id: string, code: string) => deps.cipher.mac('verification-code', `${id}.${code}`);
const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * Issues a code for an attempt; call inside a transaction (the advisory lock serialises
 * issues to one address, so the caps hold under concurrency). Answers the code, which
 * the caller sends or, for an address that names nobody, drops.
 */
export async function issueCode(
  deps: D,
  input: { instanceId: string; attemptId: string; purpose: VerificationPurpose; address: string; link?: boolean },
): Promise<{ code: string; row: CodeRow }> {
  const address = input.address.toLowerCase();
  const now = deps.clock.now();
  await deps.db.execute(addressCodesLockSql(input.instanceId, address));
  for (const cap of REISSUE_CAPS) {
    const inWindow = and(
      eq(verificationCodes.instanceId, input.instanceId),
      eq(verificationCodes.address, address),
      gt(verificationCodes.createdAt, now - cap.windowMs),
    );
    const [seen] = await deps.db
      .select({ n: count(), last: max(verificationCodes.createdAt) })
      .from(verificationCodes)
      .where(inWindow);
    if (Number(seen?.n ?? 0) >= cap.limit) {
      // The oldest code in the window leaves it first; for the 1-per-window cap that is the last one.
      const [oldest] = await deps.db
        .select({ at: verificationCodes.createdAt })
        .from(verificationCodes)
        .where(inWindow)
        .orderBy(desc(verificationCodes.createdAt))
        .offset(cap.limit - 1)
        .limit(1);
      const retryAfter = Math.max(1, Math.ceil(((oldest?.at ?? now) + cap.windowMs - now) / 1000));
      throw new AppError('TOO_MANY_ATTEMPTS', {
        message: `Too many codes were sent to this address; try again in ${retryAfter} s.`,
        meta: { reason: 'code_reissue', retry_after: retryAfter },
      });
    }
  }
  await deps.db
    .update(verificationCodes)
    .set({ status: 'superseded', updatedAt: now })
    .where(
      and(
        eq(verificationCodes.attemptId, input.attemptId),
        inArray(verificationCodes.purpose, samePurposes(input.purpose)),
        inArray(verificationCodes.status, ['pending', 'locked']),
      ),
    );
  const id = newId('ver');
  // A link carries 256 random bits instead of six digits: it is clicked, never typed.
  const code = input.link ? randomBytes(32).toString('base64url') : newCode();
  const [row] = await deps.db
    .insert(verificationCodes)
    .values({
      id,
      instanceId: input.instanceId,
      attemptId: input.attemptId,
      purpose: input.purpose,
      address,
      digest: codeDigest(deps, id, code),
      status: 'pending',
      expiresAt: now + VERIFICATION_CODE_TTL_MS,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { code, row: row! };
}

/** The latest code of an attempt for a purpose (or either way of its verification: a code or a link), if any. */
export async function latestCode(
  deps: Pick<Deps, 'db'>,
  attemptId: string,
  purpose: VerificationPurpose | readonly VerificationPurpose[],
): Promise<CodeRow | null> {
  const [row] = await deps.db
    .select()
    .from(verificationCodes)
    .where(
      and(
        eq(verificationCodes.attemptId, attemptId),
        typeof purpose === 'string' ? eq(verificationCodes.purpose, purpose) : inArray(verificationCodes.purpose, purpose),
      ),
    )
    .orderBy(desc(verificationCodes.createdAt), desc(verificationCodes.id))
    .limit(1);
  return row ?? null;
}

export type CodeCheck = { ok: true } | { ok: false; error: AppError };

/**
 * Checks a code against the attempt's latest one and records the outcome. Call inside
 * the transaction that completes the step: on success the code is spent with it; on
 * failure the caller must commit (return, not throw) so the failed try counts, then throw
 * `error`. `accept` false (an address that names nobody) fails every code.
 */
export async function checkCode(
  deps: D,
  input: { attemptId: string; purpose: VerificationPurpose; code: string; accept?: boolean },
): Promise<CodeCheck> {
  const now = deps.clock.now();
  const [row] = await deps.db
    .select()
    .from(verificationCodes)
    .where(and(eq(verificationCodes.attemptId, input.attemptId), eq(verificationCodes.purpose, input.purpose)))
    .orderBy(desc(verificationCodes.createdAt), desc(verificationCodes.id))
    .limit(1)
    .for('update');
  if (!row || row.status === 'superseded' || row.status === 'verified') {
    return {
      ok: false,
      error: new AppError('CODE_EXPIRED', { message: 'No code is pending; request one first.', meta: { reason: 'not_prepared' } }),
    };
  }
  if (row.status === 'locked') return { ok: false, error: attemptsExhausted() };
  if (row.expiresAt <= now) return { ok: false, error: new AppError('CODE_EXPIRED', { meta: { reason: 'expired' } }) };

  const expected = Buffer.from(row.digest);
  const given = Buffer.from(codeDigest(deps, row.id, input.code));
  const match = expected.length === given.length && timingSafeEqual(expected, given) && input.accept !== false;
  if (match) {
    const [spent] = await deps.db
      .update(verificationCodes)
      .set({ status: 'verified', updatedAt: now })
      .where(and(eq(verificationCodes.id, row.id), eq(verificationCodes.status, 'pending')))
      .returning({ id: verificationCodes.id });
    if (spent) return { ok: true };
    return { ok: false, error: new AppError('CODE_EXPIRED', { message: 'This code was already used.', meta: { reason: 'used' } }) };
  }
  const failures = row.failedAttempts + 1;
  const locked = failures >= CODE_MAX_FAILURES;
  await deps.db
    .update(verificationCodes)
    .set({ failedAttempts: failures, status: locked ? 'locked' : 'pending', updatedAt: now })
    .where(eq(verificationCodes.id, row.id));
  if (locked) return { ok: false, error: attemptsExhausted() };
  return {
    ok: false,
    error: new AppError('CODE_INCORRECT', { meta: { param: 'code', remaining_attempts: CODE_MAX_FAILURES - failures } }),
  };
}

const attemptsExhausted = () =>
  new AppError('TOO_MANY_ATTEMPTS', {
    message: 'Too many incorrect codes; request a new code.',
    meta: { reason: 'code_attempts' },
  });

/** The `verification` object of an attempt, as Clerk shows it. */
export function verificationView(strategy: string, row: CodeRow | null, now: number, verified = false) {
  if (verified)
    return {
      object: 'verification' as const,
      status: 'verified' as const,
      strategy,
      attempts: row?.failedAttempts ?? 0,
      expire_at: row?.expiresAt ?? null,
    };
  if (!row) return null;
  const status =
    row.status === 'verified'
      ? 'verified'
      : row.status === 'locked'
        ? 'failed'
        : row.status === 'superseded' || row.expiresAt <= now
          ? 'expired'
          : 'unverified';
  return { object: 'verification' as const, status, strategy, attempts: row.failedAttempts, expire_at: row.expiresAt };
}
