import { and, asc, count, eq, isNull } from 'drizzle-orm';
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from './webauthn';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { emailAddresses, instances, passkeys, sessions, users } from '../db/schema';
import { newId } from '../db/ids';
import { uniqueViolation } from '../db/errors';
import { emitEvent } from '../events/events';
import type { AuditContext } from '../http/actor';
import { AppError, notFound } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { applicationName } from '../instances/branding-settings';
import { applySessionAction } from '../sessions/sessions';
import { sessionTasksFor } from '../sessions/session-tasks';
import { CHALLENGE_TTL_MS, issueChallenge, takeChallenge } from './challenges';
import type { RelyingParty } from './relying-party';

/**
 * Passkeys (WebAuthn credentials) of a user, with @simplewebauthn/server doing every
 * WebAuthn check (client data, authenticator data, attestation, signature).
 *
 * - Registration by a signed-in user: `registrationOptions` answers the creation options
 *   (a discoverable credential, user verification required, no attestation asked) with a
 *   challenge bound to the session; `registerPasskey` verifies the browser's answer against
 *   that challenge (single use, 5 minutes), the relying party of the request and its origins,
 *   and stores the credential (`passkey.created`, audited). Under `mfa_required` a passkey is
 *   the user's second factor: registering one from a session pending on `setup_mfa`
 *   activates it, as confirming TOTP does.
 * - A user holds at most MAX_PASSKEYS_PER_USER; names are the user's (rename, delete:
 *   `passkey.deleted`, audited). The BAPI and the console list and delete them too.
 *
 * Every route refuses with 403 `passkeys_disabled` while `sign_in_methods.passkey` is off.
 */
type D = Deps;
export type PasskeyRow = typeof passkeys.$inferSelect;

const MAX_PASSKEYS_PER_USER = 25;
export const PASSKEY_NAME_MAX = 64;

export function assertPasskeysOn(instance: Pick<InstanceContext, 'settings'>) {
  if (!instance.settings.sign_in_methods.passkey) {
    throw new AppError('FORBIDDEN', {
      message: 'Passkeys are turned off for this application (sign_in_methods.passkey).',
      meta: { reason: 'passkeys_disabled' },
    });
  }
}

/** The passkey as every surface and event shows it (never the public key). */
export const passkeyView = (p: PasskeyRow) => ({
  object: 'passkey' as const,
  id: p.id,
  user_id: p.userId,
  name: p.name,
  credential_id: p.credentialId,
  aaguid: p.aaguid,
  transports: p.transports,
  device_type: p.deviceType,
  backed_up: p.backedUp,
  rp_id: p.rpId,
  last_used_at: p.lastUsedAt,
  /** `disabled` once its counter went backwards (a cloned authenticator): it signs no one in. */
  status: p.disabledAt === null ? ('active' as const) : ('disabled' as const),
  disabled_reason: p.disabledReason,
  disabled_at: p.disabledAt,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});
export type PasskeyView = ReturnType<typeof passkeyView>;

export async function hasPasskey(d: Pick<D, 'db'>, userId: string): Promise<boolean> {
  const [row] = await d.db
    .select({ id: passkeys.id })
    .from(passkeys)
    .where(and(eq(passkeys.userId, userId), isNull(passkeys.disabledAt)))
    .limit(1);
  return row !== undefined;
}

export async function listPasskeys(d: Pick<D, 'db'>, instanceId: string, userId: string): Promise<PasskeyView[]> {
  const rows = await d.db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.instanceId, instanceId), eq(passkeys.userId, userId)))
    .orderBy(asc(passkeys.id));
  return rows.map(passkeyView);
}

/** A user's passkeys as a light list; 404 for a user of another instance. */
export async function listUserPasskeys(d: Pick<D, 'db'>, instanceId: string, userId: string) {
  const [user] = await d.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  if (!user) throw notFound('user');
  return { object: 'list' as const, data: await listPasskeys(d, instanceId, userId), has_more: false };
}

const utf8 = (s: string) => new TextEncoder().encode(s);
/** The WebAuthn user handle of a user: the bytes of its id (not personal data), base64url in answers. */
export const userHandleOf = (userId: string) => Buffer.from(userId, 'utf8').toString('base64url');

/** Creation options for a new passkey of the session's user, bound to that session. */
export async function registrationOptions(d: D, instance: InstanceContext, rp: RelyingParty, me: { userId: string; sessionId: string }) {
  assertPasskeysOn(instance);
  await assertMayRegister(d, instance, me);
  const [user] = await d.db
    .select({
      id: users.id,
      username: users.username,
      firstName: users.firstName,
      lastName: users.lastName,
      email: emailAddresses.emailAddress,
    })
    .from(users)
    .leftJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId))
    .where(and(eq(users.id, me.userId), eq(users.instanceId, instance.id)));
  if (!user) throw notFound('user');
  const existing = await d.db
    .select({ credentialId: passkeys.credentialId, transports: passkeys.transports, rpId: passkeys.rpId })
    .from(passkeys)
    .where(eq(passkeys.userId, me.userId));
  if (existing.length >= MAX_PASSKEYS_PER_USER) throw tooMany();
  const [inst] = await d.db.select({ name: instances.name }).from(instances).where(eq(instances.id, instance.id));
  const userName = user.email ?? user.username ?? user.id;
  const displayName = [user.firstName, user.lastName].filter(Boolean).join(' ') || userName;
  const { challenge, expiresAt } = await issueChallenge(d, {
    subject: me.sessionId,
    purpose: 'registration',
    instanceId: instance.id,
    userId: me.userId,
    rpId: rp.id,
  });
  const options = await generateRegistrationOptions({
    rpName: inst ? applicationName(inst.name, instance.settings) : 'Latchkey',
    rpID: rp.id,
    userID: utf8(user.id),
    userName,
    userDisplayName: displayName,
    // As bytes: a string would be encoded once more.
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    // The authenticators that already hold a passkey of this user here are not asked again.
    excludeCredentials: existing.filter((p) => p.rpId === rp.id).map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return { object: 'passkey_registration' as const, options, expire_at: expiresAt };
}

const tooMany = () =>
  new AppError('CONFLICT', {
    message: `A user holds at most ${MAX_PASSKEYS_PER_USER} passkeys; delete one first.`,
    meta: { reason: 'too_many_passkeys' },
  });

const verificationFailed = (cause: unknown) =>
  new AppError('PASSKEY_INVALID', {
    message: 'The passkey’s answer did not verify (wrong challenge, origin or relying party, no user verification, or a bad signature).',
    meta: { reason: 'verification_failed' },
    cause,
  });

/** A name for a new passkey: the one given, else "Passkey" and its number. */
const defaultName = (n: number) => (n === 0 ? 'Passkey' : `Passkey ${n + 1}`);

/**
 * Verifies the browser's answer to the session's registration challenge and stores the
 * passkey; the challenge is spent whatever the outcome. Audited here (the challenge is
 * taken outside the transaction that stores the passkey).
 */
export async function registerPasskey(
  d: D,
  instance: InstanceContext,
  rp: RelyingParty,
  me: { userId: string; sessionId: string },
  input: { credential: RegistrationResponseJSON; name?: string },
  auditCtx: AuditContext,
): Promise<PasskeyView> {
  assertPasskeysOn(instance);
  await assertMayRegister(d, instance, me);
  const challenge = await takeChallenge(d, { subject: me.sessionId, purpose: 'registration', instanceId: instance.id, rpId: rp.id });
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: input.credential,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch (err) {
    throw verificationFailed(err);
  }
  if (!verified.verified) throw verificationFailed(null);
  const info = verified.registrationInfo;
  return d.db.transaction(async (tx) => {
    const dt = { ...d, db: tx };
    const [{ n }] = (await tx.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, me.userId))) as [{ n: number }];
    if (n >= MAX_PASSKEYS_PER_USER) throw tooMany();
    const now = d.clock.now();
    const row = await tx
      .insert(passkeys)
      .values({
        id: newId('passkey'),
        instanceId: instance.id,
        userId: me.userId,
        credentialId: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
        signCount: info.credential.counter,
        transports: (info.credential.transports ?? input.credential.response.transports ?? []).slice(0, 10),
        aaguid: info.aaguid,
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        rpId: rp.id,
        name: input.name ?? defaultName(n),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .then((r) => r[0]!)
      .catch((err: unknown) => {
        if (uniqueViolation(err))
          throw new AppError('CONFLICT', { message: 'This passkey is already registered.', meta: { reason: 'credential_exists' } });
        throw err;
      });
    const view = passkeyView(row);
    await emitEvent(dt, instance.id, 'passkey.created', view);
    await audit(dt, {
      ...auditCtx,
      instanceId: instance.id,
      action: 'passkey.created',
      target: row.id,
      details: { user_id: me.userId, aaguid: row.aaguid, rp_id: row.rpId },
    });
    await activateSetupMfaSession(dt, instance, me, auditCtx);
    return view;
  });
}

/**
 * An active session registers passkeys; a pending one only when it waits for the user to set
 * up a second factor (`setup_mfa`). A session pending on a second factor the user has (or a
 * risk step-up) must not get a passkey, which would sign in past that factor next time.
 */
async function assertMayRegister(d: D, instance: InstanceContext, me: { userId: string; sessionId: string }) {
  const [s] = await d.db
    .select({ status: sessions.status })
    .from(sessions)
    .where(and(eq(sessions.id, me.sessionId), eq(sessions.userId, me.userId)));
  if (s?.status === 'active') return;
  const [tasks] = await sessionTasksFor(d.db, instance, [{ userId: me.userId, status: s?.status ?? 'ended' }]);
  if (!tasks?.some((t) => t.key === 'setup_mfa')) {
    throw new AppError('FORBIDDEN', {
      message: 'This session is pending its second factor: complete the sign-in first.',
      meta: { reason: 'session_pending' },
    });
  }
}

/** Under `mfa_required`, the session that registered its user's first second factor leaves `pending`. */
async function activateSetupMfaSession(d: D, instance: InstanceContext, me: { userId: string; sessionId: string }, auditCtx: AuditContext) {
  if (!instance.settings.mfa_required) return;
  const [s] = await d.db
    .select({ status: sessions.status })
    .from(sessions)
    .where(and(eq(sessions.id, me.sessionId), eq(sessions.userId, me.userId), eq(sessions.instanceId, instance.id)));
  if (s?.status === 'pending') await applySessionAction(d, instance.id, me.sessionId, 'activate', auditCtx);
}

async function ownPasskey(d: Pick<D, 'db'>, instanceId: string, userId: string, id: string): Promise<PasskeyRow> {
  const [row] = await d.db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.instanceId, instanceId), eq(passkeys.userId, userId)));
  if (!row) throw notFound('passkey');
  return row;
}

export async function renamePasskey(d: D, instance: InstanceContext, userId: string, id: string, name: string): Promise<PasskeyView> {
  assertPasskeysOn(instance);
  await ownPasskey(d, instance.id, userId, id);
  const [row] = await d.db
    .update(passkeys)
    .set({ name, updatedAt: d.clock.now() })
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning();
  if (!row) throw notFound('passkey');
  return passkeyView(row);
}

/** Deletes one of a user's passkeys (`passkey.deleted`); the route's audit records who. */
export async function deletePasskey(d: D, instance: { id: string }, userId: string, id: string) {
  const [row] = await d.db
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.instanceId, instance.id), eq(passkeys.userId, userId)))
    .returning();
  if (!row) throw notFound('passkey');
  await emitEvent(d, instance.id, 'passkey.deleted', { ...passkeyView(row), deleted: true });
  return { object: 'passkey' as const, id: row.id, deleted: true as const };
}
