import { and, eq, isNull, lt } from 'drizzle-orm';
import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON } from './webauthn';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { emitEvent } from '../events/events';
import { passkeys, signInAttempts } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { CHALLENGE_TTL_MS, issueChallenge, takeChallenge } from './challenges';
import { REASONS } from './reasons';
import { assertPasskeysOn, passkeyView, userHandleOf, type PasskeyRow } from './passkeys';
import type { RelyingParty } from './relying-party';

/**
 * Passkey assertions for a sign-in attempt: as its first factor (username-less — the
 * credential names the user — or after an identifier, offering that user's passkeys), and
 * as its second factor.
 *
 * The challenge is bound to the attempt, which belongs to the client that made it (every
 * step loads the attempt by the caller's client: another browser gets 404), as every way in
 * is bound (server/auth/flow-binding.ts); it is single use and lives 5 minutes. User
 * verification is required. The credential is looked up within the instance only (another
 * instance's passkey is unknown here, even on the shared PUBLIC_URL host), must belong to the
 * attempt's user when it has one, and its user handle must name the same user. A counter
 * that does not move forward (when the authenticator keeps one) is a cloned authenticator —
 * unless it is a little behind (OUT_OF_ORDER_WINDOW: a genuine answer overtaken, refused alone):
 * refused (`sign_count_regressed`), audited, and the passkey disabled — nothing tells the
 * clone from the original, and a clone that merely tried again with a higher counter would
 * otherwise pass. A disabled passkey is refused (`passkey_disabled`) until the user deletes it
 * and registers another.
 */
type D = Deps;
type SignInRow = typeof signInAttempts.$inferSelect;
type Purpose = 'sign_in' | 'second_factor' | 'reverification';
/** What an assertion's challenge is bound to: a sign-in attempt, or the session a reverification is of (its user's passkeys offered). */
export type Ceremony = Pick<SignInRow, 'id' | 'userId' | 'identifier'>;

/** The identifier of an attempt started without one, for a username-less passkey sign-in. */
export const PASSKEY_ONLY_IDENTIFIER = '';
export const isPasskeyOnly = (a: Pick<SignInRow, 'identifier'>) => a.identifier === PASSKEY_ONLY_IDENTIFIER;

/**
 * The options of an assertion for the attempt, its challenge stored. For an identified
 * attempt whose identifier names nobody (or a user without passkeys), one made-up
 * credential id derived from the identifier is offered, so the answer does not tell
 * whether the account exists or has passkeys.
 */
export async function assertionOptions(d: D, instance: InstanceContext, rp: RelyingParty, a: Ceremony, purpose: Purpose) {
  assertPasskeysOn(instance);
  const own = a.userId
    ? await d.db
        .select({ credentialId: passkeys.credentialId, transports: passkeys.transports })
        .from(passkeys)
        .where(
          and(eq(passkeys.userId, a.userId), eq(passkeys.instanceId, instance.id), eq(passkeys.rpId, rp.id), isNull(passkeys.disabledAt)),
        )
    : [];
  const allowCredentials = isPasskeyOnly(a)
    ? []
    : own.length > 0
      ? own.map((p) => ({ id: p.credentialId, transports: p.transports }))
      : [{ id: d.cipher.mac('passkey-decoy', `${instance.id}:${a.identifier.toLowerCase()}`).slice(0, 22) }];
  const { challenge, expiresAt } = await issueChallenge(d, {
    subject: a.id,
    purpose,
    instanceId: instance.id,
    userId: a.userId,
    rpId: rp.id,
  });
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials,
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: CHALLENGE_TTL_MS,
    userVerification: 'required',
  });
  return { options, expiresAt };
}

const unknownCredential = () =>
  new AppError('PASSKEY_INVALID', { message: 'This passkey is not registered here.', meta: { reason: 'unknown_credential' } });

/**
 * Verifies the browser's answer to the attempt's challenge (taken first, so spent whatever
 * the outcome) and moves the passkey's counter on; answers the user it proves. Runs outside
 * any transaction: a refusal must not give the challenge back.
 */
export async function verifyAssertion(
  d: D,
  instance: InstanceContext,
  rp: RelyingParty,
  a: Ceremony,
  purpose: Purpose,
  response: AuthenticationResponseJSON,
  auditCtx: AuditContext,
): Promise<{ userId: string; passkeyId: string }> {
  assertPasskeysOn(instance);
  const challenge = await takeChallenge(d, { subject: a.id, purpose, instanceId: instance.id, rpId: rp.id });
  const [passkey] = await d.db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.instanceId, instance.id), eq(passkeys.credentialId, response.id)));
  if (!passkey || (challenge.userId !== null && passkey.userId !== challenge.userId)) throw unknownCredential();
  const handle = response.response.userHandle;
  if (handle !== undefined && handle !== userHandleOf(passkey.userId)) throw unknownCredential();
  if (passkey.disabledAt !== null) throw disabled();
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      // The counter is checked below, where a regression is told apart and audited.
      credential: {
        id: passkey.credentialId,
        publicKey: Buffer.from(passkey.publicKey, 'base64url'),
        counter: 0,
        transports: passkey.transports as never,
      },
      requireUserVerification: true,
    });
  } catch (err) {
    throw new AppError('PASSKEY_INVALID', {
      message: 'The passkey’s answer did not verify (wrong challenge, origin or relying party, no user verification, or a bad signature).',
      meta: { reason: 'verification_failed' },
      cause: err,
    });
  }
  if (!verified.verified) throw new AppError('PASSKEY_INVALID', { meta: { reason: 'verification_failed' } });
  const { newCounter, credentialBackedUp } = verified.authenticationInfo;
  if (!(await advanceCounter(d, passkey, newCounter, credentialBackedUp))) {
    const [now] = await d.db
      .select({ signCount: passkeys.signCount, disabledAt: passkeys.disabledAt, lastUsedAt: passkeys.lastUsedAt })
      .from(passkeys)
      .where(eq(passkeys.id, passkey.id));
    if (now?.disabledAt != null) throw disabled();
    if (now && arrivedLate(now, challenge.createdAt, newCounter)) {
      throw new AppError('PASSKEY_INVALID', {
        message:
          'A later answer of this passkey arrived first (two sign-ins at once?): this one is refused, the passkey stays usable. Try again.',
        meta: { reason: REASONS.sign_count_late },
      });
    }
    await disableCloned(d, instance, passkey, newCounter, a, auditCtx);
    throw new AppError('PASSKEY_INVALID', {
      message: 'This passkey’s signature counter went backwards: the authenticator may have been cloned. It was refused and disabled.',
      meta: { reason: 'sign_count_regressed' },
    });
  }
  return { userId: passkey.userId, passkeyId: passkey.id };
}

const disabled = () =>
  new AppError('PASSKEY_INVALID', {
    message: 'This passkey was disabled (its authenticator may have been cloned). Delete it and register a new one.',
    meta: { reason: 'passkey_disabled' },
  });

/**
 * How far behind the stored counter a genuine answer may arrive: two ceremonies of one
 * authenticator at once (two tabs) can be answered 5 then 6 and reach the server 6 then 5.
 * Such a late answer is refused without disabling the passkey (arrivedLate), but only when its
 * challenge was issued before the stored counter was accepted (its ceremony was in flight
 * then): a lagging clone answering a challenge issued afterwards is caught, whatever its lag.
 * The same counter again, or one further behind, is a clone too.
 */
export const OUT_OF_ORDER_WINDOW = 4;
const arrivedLate = (stored: { signCount: number; lastUsedAt: number | null }, challengeIssuedAt: number, presented: number) =>
  presented > 0 &&
  presented < stored.signCount &&
  stored.signCount - presented <= OUT_OF_ORDER_WINDOW &&
  stored.lastUsedAt !== null &&
  challengeIssuedAt <= stored.lastUsedAt;

/**
 * Stores the new counter and the last use in one conditional UPDATE: only while the counter
 * moves forward from what is stored at that moment (or the authenticator keeps none: both 0)
 * and the passkey is enabled. Two genuine answers racing (counters 5 and 6 over a stored 4)
 * both pass; the same counter twice, or one behind, does not.
 */
export async function advanceCounter(d: D, p: PasskeyRow, presented: number, backedUp: boolean): Promise<boolean> {
  const now = d.clock.now();
  const [moved] = await d.db
    .update(passkeys)
    .set({ signCount: presented, backedUp, lastUsedAt: now, updatedAt: now })
    .where(
      and(
        eq(passkeys.id, p.id),
        isNull(passkeys.disabledAt),
        presented === 0 ? eq(passkeys.signCount, 0) : lt(passkeys.signCount, presented),
      ),
    )
    .returning({ id: passkeys.id });
  return moved !== undefined;
}

/** A regressed counter disables the passkey, audited (`passkey.sign_count_regressed`) with `passkey.updated`. */
async function disableCloned(d: D, instance: InstanceContext, passkey: PasskeyRow, presented: number, a: Ceremony, auditCtx: AuditContext) {
  await d.db.transaction(async (tx) => {
    const dt = { ...d, db: tx };
    const now = d.clock.now();
    const [row] = await tx
      .update(passkeys)
      .set({ disabledAt: now, disabledReason: 'sign_count_regressed', updatedAt: now })
      .where(and(eq(passkeys.id, passkey.id), isNull(passkeys.disabledAt)))
      .returning();
    await audit(dt, {
      ...auditCtx,
      instanceId: instance.id,
      action: 'passkey.sign_count_regressed',
      target: passkey.id,
      details: { user_id: passkey.userId, stored: passkey.signCount, presented, ceremony_of: a.id, disabled: row !== undefined },
    });
    if (row) await emitEvent(dt, instance.id, 'passkey.updated', passkeyView(row));
  });
}
