import type { AuditContext } from '../http/actor';
import { and, eq, gt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { tickets, users } from '../db/schema';
import { AppError, notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import type { InstanceContext } from '../instances/instances';
import { createClient, setActiveSession, type ClientRow } from './clients';
import { initialSessionStatus } from '../users/mfa';
import { createSession, type Actor } from './sessions';

/**
 * One-time tickets: actor tokens (redeem for an impersonation session) and sign-in
 * tokens (redeem for an ordinary session). The secret (`tkt_` + 32 random bytes) is
 * shown once and stored only as its SHA-256. A ticket moves pending → accepted (on
 * redemption, at most once) or pending → revoked; past `expires_at` it is refused.
 */
export type TicketKind = 'actor_token' | 'sign_in_token';
type TicketRow = typeof tickets.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches'>;

export const TICKET_PREFIX = 'tkt_';
const TICKET_RE = /^tkt_[A-Za-z0-9_-]{43}$/;
const ID_PREFIX = { actor_token: 'act', sign_in_token: 'sit' } as const;

/** Audit actions, by kind: impersonation is always audited, sign-in tokens too. */
const AUDIT_ACTION = {
  actor_token: {
    created: 'impersonation.actor_token_created',
    redeemed: 'impersonation.actor_token_redeemed',
    revoked: 'impersonation.actor_token_revoked',
  },
  sign_in_token: { created: 'sign_in_token.created', redeemed: 'sign_in_token.redeemed', revoked: 'sign_in_token.revoked' },
} as const;

export const ticketView = (t: TicketRow) => ({
  object: t.kind,
  id: t.id,
  user_id: t.userId,
  ...(t.kind === 'actor_token' ? { actor: t.actor } : {}),
  status: t.status,
  expires_at: t.expiresAt,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});

/** Creates a ticket for a user of this instance; answers it with its secret `token`, once. */
export async function createTicket(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  input: { kind: TicketKind; userId: string; actor?: Actor | null; expiresInSeconds: number },
  auditCtx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const [user] = await tx
      .select({ id: users.id, banned: users.banned })
      .from(users)
      .where(and(eq(users.id, input.userId), eq(users.instanceId, instanceId)));
    if (!user) throw validationError('user_id', 'not_found', 'No user was found with that user_id.');
    if (user.banned) throw new AppError('USER_BANNED', { message: 'A banned user cannot be signed in.', meta: { user_id: user.id } });
    const token = generateSecret(TICKET_PREFIX);
    const now = deps.clock.now();
    const [row] = await tx
      .insert(tickets)
      .values({
        id: newId(ID_PREFIX[input.kind]),
        instanceId,
        kind: input.kind,
        digest: sha256Hex(token),
        userId: user.id,
        actor: input.kind === 'actor_token' ? (input.actor ?? null) : null,
        status: 'pending',
        expiresAt: now + input.expiresInSeconds * 1000,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit({ db: tx, clock: deps.clock }, {
      instanceId,
      actor: auditCtx.actor,
      action: AUDIT_ACTION[input.kind].created,
      target: row!.id,
      ip: auditCtx.ip,
      userAgent: auditCtx.userAgent,
      details: { user_id: user.id, ...(row!.actor ? { actor: row!.actor } : {}), expires_at: row!.expiresAt },
    });
    return { ...ticketView(row!), token };
  });
}

/** Revokes a pending ticket; revoking a revoked one is a no-op, a redeemed one is 409. */
export async function revokeTicket(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  kind: TicketKind,
  id: string,
  auditCtx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const where = and(eq(tickets.id, id), eq(tickets.instanceId, instanceId), eq(tickets.kind, kind));
    const [current] = await tx.select().from(tickets).where(where).for('update');
    if (!current) throw notFound(kind.replaceAll('_', ' '));
    if (current.status === 'revoked') return ticketView(current);
    if (current.status === 'accepted') {
      throw new AppError('CONFLICT', { message: 'This ticket was already redeemed; revoke the session instead.', meta: { status: 'accepted' } });
    }
    const [row] = await tx.update(tickets).set({ status: 'revoked', updatedAt: deps.clock.now() }).where(where).returning();
    await audit({ db: tx, clock: deps.clock }, {
      instanceId,
      actor: auditCtx.actor,
      action: AUDIT_ACTION[kind].revoked,
      target: id,
      ip: auditCtx.ip,
      userAgent: auditCtx.userAgent,
      details: { user_id: row!.userId },
    });
    return ticketView(row!);
  });
}

const ticketInvalid = (reason: 'expired' | 'used' | 'revoked' | 'invalid', message: string) =>
  new AppError('TICKET_INVALID', { message, meta: { reason } });

/**
 * Redeems a ticket on FAPI: marks it accepted with one conditional UPDATE (so of two
 * racing redemptions exactly one wins), creates the client if there is none, a session
 * on it (an impersonation session for an actor token) and makes that session active —
 * all in one transaction. A refusal leaves the ticket pending.
 */
export async function signInWithTicket(
  deps: D,
  instance: InstanceContext,
  input: { ticket: string; client: ClientRow | null },
  request: { ip?: string | null; userAgent?: string | null },
): Promise<{ sessionId: string; client: ClientRow; newClientToken: string | null }> {
  if (!TICKET_RE.test(input.ticket)) throw ticketInvalid('invalid', 'This is not a valid ticket.');
  const digest = sha256Hex(input.ticket);
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const [ticket] = await tx
      .update(tickets)
      .set({ status: 'accepted', updatedAt: now })
      .where(and(eq(tickets.digest, digest), eq(tickets.instanceId, instance.id), eq(tickets.status, 'pending'), gt(tickets.expiresAt, now)))
      .returning();
    if (!ticket) {
      const [seen] = await tx
        .select({ status: tickets.status })
        .from(tickets)
        .where(and(eq(tickets.digest, digest), eq(tickets.instanceId, instance.id)));
      if (!seen) throw ticketInvalid('invalid', 'This is not a valid ticket.');
      if (seen.status === 'accepted') throw ticketInvalid('used', 'This ticket was already used.');
      if (seen.status === 'revoked') throw ticketInvalid('revoked', 'This ticket was revoked.');
      throw ticketInvalid('expired', 'This ticket has expired.');
    }
    const [user] = await tx
      .select({ id: users.id, banned: users.banned })
      .from(users)
      .where(and(eq(users.id, ticket.userId), eq(users.instanceId, instance.id)));
    if (!user) throw ticketInvalid('invalid', 'The user of this ticket no longer exists.');
    if (user.banned) throw new AppError('USER_BANNED', { message: 'This user is banned and cannot sign in.' });

    const d = { ...deps, db: tx };
    let client = input.client;
    let newClientToken: string | null = null;
    if (!client) ({ client, token: newClientToken } = await createClient(d, instance.id));
    const auditCtx = { actor: `ticket:${ticket.id}`, ip: request.ip ?? null, userAgent: request.userAgent ?? null };
    // A sign-in token signs the user in as any sign-in would (pending with setup_mfa when the
    // instance requires MFA the user lacks); an actor token's impersonation session never waits.
    const status = ticket.kind === 'sign_in_token' ? await initialSessionStatus(d, instance, user.id) : 'active';
    const { session } = await createSession(d, instance, { userId: user.id, clientId: client.id, actor: ticket.actor, status, activity: auditCtx }, auditCtx);
    client = await setActiveSession(d, client.id, session.id);
    if (ticket.kind === 'sign_in_token') await tx.update(users).set({ lastSignInAt: now }).where(eq(users.id, user.id));
    await audit(d, {
      instanceId: instance.id,
      ...auditCtx,
      action: AUDIT_ACTION[ticket.kind].redeemed,
      target: ticket.id,
      details: { user_id: user.id, session_id: session.id, client_id: client.id, ...(ticket.actor ? { actor: ticket.actor } : {}) },
    });
    return { sessionId: session.id, client, newClientToken };
  });
}
