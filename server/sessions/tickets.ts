import type { AuditContext } from '../http/actor';
import { and, eq, gt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { tickets, users } from '../db/schema';
import { AppError, notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import type { InstanceContext } from '../instances/instances';
import type { SessionActor } from './sessions';

/**
 * One-time tickets: actor tokens (redeem for an impersonation session) and sign-in
 * tokens (redeem for an ordinary session). The secret (`tkt_` + 32 random bytes) is
 * shown once and stored only as its SHA-256. A ticket moves pending → accepted (on
 * redemption, at most once) or pending → revoked; past `expires_at` it is refused.
 */
export type TicketKind = 'actor_token' | 'sign_in_token';
type TicketRow = typeof tickets.$inferSelect;

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

const ticketView = (t: TicketRow) => ({
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
  input: { kind: TicketKind; userId: string; actor?: SessionActor | null; expiresInSeconds: number },
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
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        actor: auditCtx.actor,
        action: AUDIT_ACTION[input.kind].created,
        target: row!.id,
        ip: auditCtx.ip,
        userAgent: auditCtx.userAgent,
        details: { user_id: user.id, ...(row!.actor ? { actor: row!.actor } : {}), expires_at: row!.expiresAt },
      },
    );
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
      throw new AppError('CONFLICT', {
        message: 'This ticket was already redeemed; revoke the session instead.',
        meta: { status: 'accepted' },
      });
    }
    const [row] = await tx.update(tickets).set({ status: 'revoked', updatedAt: deps.clock.now() }).where(where).returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        actor: auditCtx.actor,
        action: AUDIT_ACTION[kind].revoked,
        target: id,
        ip: auditCtx.ip,
        userAgent: auditCtx.userAgent,
        details: { user_id: row!.userId },
      },
    );
    return ticketView(row!);
  });
}

export const ticketInvalid = (reason: 'expired' | 'used' | 'revoked' | 'invalid', message: string) =>
  new AppError('TICKET_INVALID', { message, meta: { reason } });

/**
 * Consumes a ticket: marks it accepted with one conditional UPDATE (so of two racing
 * redemptions exactly one wins), in the caller's transaction; a refusal names why
 * (invalid, used, revoked, expired). The sign-in itself is auth/ticket-sign-in.ts.
 */
export async function consumeTicket(deps: Pick<Deps, 'db' | 'clock'>, instance: InstanceContext, secret: string): Promise<TicketRow> {
  if (!TICKET_RE.test(secret)) throw ticketInvalid('invalid', 'This is not a valid ticket.');
  const digest = sha256Hex(secret);
  const now = deps.clock.now();
  const [ticket] = await deps.db
    .update(tickets)
    .set({ status: 'accepted', updatedAt: now })
    .where(and(eq(tickets.digest, digest), eq(tickets.instanceId, instance.id), eq(tickets.status, 'pending'), gt(tickets.expiresAt, now)))
    .returning();
  if (ticket) return ticket;
  const [seen] = await deps.db
    .select({ status: tickets.status })
    .from(tickets)
    .where(and(eq(tickets.digest, digest), eq(tickets.instanceId, instance.id)));
  if (!seen) throw ticketInvalid('invalid', 'This is not a valid ticket.');
  if (seen.status === 'accepted') throw ticketInvalid('used', 'This ticket was already used.');
  if (seen.status === 'revoked') throw ticketInvalid('revoked', 'This ticket was revoked.');
  throw ticketInvalid('expired', 'This ticket has expired.');
}

/** The audit action of a redeemed ticket of this kind. */
export const ticketRedeemedAction = (kind: TicketKind) => AUDIT_ACTION[kind].redeemed;
