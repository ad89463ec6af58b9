import { and, eq, inArray, or, isNull, gt, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { newId } from '../db/ids';
import { invitations, type INSTANCE_INVITATION_STATUSES } from '../db/schema';
import { audit } from '../audit/audit';
import type { AuditContext } from '../http/actor';
import { AppError, notFound } from '../http/errors';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';

/**
 * Instance invitations: an email address admitted to sign up while the instance's
 * `sign_up_mode` is `restricted` (besides its allowlist). Pending until the invitee signs
 * up (accepted), the operator revokes it, or it expires.
 */
type Row = typeof invitations.$inferSelect;
export type InvitationStatus = (typeof INSTANCE_INVITATION_STATUSES)[number];

function instanceInvitationView(r: Row, now: number) {
  const status = r.status === 'pending' && r.expiresAt !== null && r.expiresAt <= now ? 'expired' : r.status;
  return {
    object: 'invitation' as const,
    id: r.id,
    email_address: r.emailAddress,
    public_metadata: r.publicMetadata,
    status,
    revoked: status === 'revoked',
    url: null,
    redirect_url: r.redirectUrl,
    expires_at: r.expiresAt,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type InstanceInvitationView = ReturnType<typeof instanceInvitationView>;

export interface CreateInstanceInvitationInput {
  email_address: string;
  public_metadata?: Record<string, unknown>;
  redirect_url?: string;
  expires_in_days?: number;
  ignore_existing?: boolean;
}

type D = Pick<Deps, 'db' | 'clock'>;

const pendingFilter = (instanceId: string, emailKey: string, now: number): SQL =>
  and(
    eq(invitations.instanceId, instanceId),
    eq(invitations.emailKey, emailKey),
    eq(invitations.status, 'pending'),
    or(isNull(invitations.expiresAt), gt(invitations.expiresAt, now)),
  )!;

export async function createInstanceInvitation(
  deps: D,
  instanceId: string,
  input: CreateInstanceInvitationInput,
  ctx: AuditContext,
): Promise<InstanceInvitationView> {
  const now = deps.clock.now();
  const emailKey = input.email_address.toLowerCase();
  return deps.db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(invitations)
      .where(pendingFilter(instanceId, emailKey, now))
      .limit(1);
    if (existing && !input.ignore_existing) {
      throw new AppError('CONFLICT', {
        message: 'A pending invitation already exists for this email address.',
        meta: { param: 'email_address', reason: 'taken' },
      });
    }
    const [row] = await tx
      .insert(invitations)
      .values({
        id: newId('inv'),
        instanceId,
        emailAddress: input.email_address,
        emailKey,
        status: 'pending',
        redirectUrl: input.redirect_url ?? null,
        publicMetadata: input.public_metadata ?? {},
        expiresAt: input.expires_in_days ? now + input.expires_in_days * 86_400_000 : null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...auditFields(ctx), action: 'invitation.created', target: row!.id });
    return instanceInvitationView(row!, now);
  });
}

const auditFields = (ctx: AuditContext) => ({ actor: ctx.actor, actorKind: ctx.actorKind, ip: ctx.ip, userAgent: ctx.userAgent });

export async function listInstanceInvitations(
  deps: D,
  instanceId: string,
  q: { limit: number; starting_after?: string; status?: InvitationStatus[]; query?: string },
) {
  const filters: (SQL | undefined)[] = [eq(invitations.instanceId, instanceId)];
  if (q.status) filters.push(inArray(invitations.status, q.status));
  if (q.query) filters.push(eq(invitations.emailKey, q.query.toLowerCase()));
  const rows = tableRows(deps.db, invitations, ...filters);
  const now = deps.clock.now();
  return cursorList(q, newestFirst(invitations.id), rows, (r) => instanceInvitationView(r, now));
}

export async function revokeInstanceInvitation(
  deps: D,
  instanceId: string,
  id: string,
  ctx: AuditContext,
): Promise<InstanceInvitationView> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(invitations)
      .where(and(eq(invitations.id, id), eq(invitations.instanceId, instanceId)))
      .limit(1);
    if (!row) throw notFound('invitation');
    if (instanceInvitationView(row, now).status !== 'pending') {
      throw new AppError('CONFLICT', {
        message: `The invitation is ${instanceInvitationView(row, now).status}; only a pending one can be revoked.`,
      });
    }
    const [updated] = await tx.update(invitations).set({ status: 'revoked', updatedAt: now }).where(eq(invitations.id, id)).returning();
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...auditFields(ctx), action: 'invitation.revoked', target: id });
    return instanceInvitationView(updated!, now);
  });
}

/** Whether an address holds a pending, unexpired invitation (restricted sign-up). */
export async function hasPendingInvitation(db: Db, instanceId: string, email: string, now: number): Promise<boolean> {
  const [row] = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(pendingFilter(instanceId, email.toLowerCase(), now))
    .limit(1);
  return row !== undefined;
}

/** Marks an address's pending invitations accepted, in the transaction that creates its user. */
export async function acceptInvitations(db: Db, instanceId: string, email: string, now: number): Promise<void> {
  await db
    .update(invitations)
    .set({ status: 'accepted', updatedAt: now })
    .where(pendingFilter(instanceId, email.toLowerCase(), now));
}
