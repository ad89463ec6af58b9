import { and, eq, gt, ilike, inArray, or, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { newId } from '../db/ids';
import { emailAddresses, waitlistEntries } from '../db/schema';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import { deliverAfterCommit, sendEmail } from '../email/mailer';
import { emitEvent } from '../events/events';
import type { AuditContext } from '../http/actor';
import { AppError, notFound } from '../http/errors';
import { containsPattern } from '../db/like';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import type { InstanceContext } from '../instances/instances';
import { TICKET_PREFIX } from '../sessions/tickets';

/**
 * The waitlist (`sign_up_mode: waitlist`): people join on the FAPI (pending); the customer
 * invites them (an email with a one-time sign-up ticket: invited) or rejects them; an
 * invited person who signs up with the ticket completes the entry. Every change emits
 * waitlistEntry.created / waitlistEntry.updated with the full entry, in its transaction.
 */
type WaitlistStatus = 'pending' | 'invited' | 'completed' | 'rejected';
export type WaitlistEntryRow = typeof waitlistEntries.$inferSelect;
type MailDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'logger' | 'mailer'>;

/** An invitation is good for this many days unless the inviter says otherwise. */
const DEFAULT_WAITLIST_INVITATION_DAYS = 30;
/** Entries one bulk invite may name. */
export const MAX_BULK_INVITE = 100;

const waitlistEntryView = (r: WaitlistEntryRow) => ({
  object: 'waitlist_entry' as const,
  id: r.id,
  email_address: r.emailAddress,
  status: r.status,
  /** When the (latest) invitation was sent, and until when its ticket signs up. */
  invited_at: r.invitedAt,
  invitation_expires_at: r.ticketExpiresAt,
  /** The user the invited person became (status completed). */
  user_id: r.userId,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/**
 * What the FAPI answers whoever joins: the same for a new address and for one already on the
 * list (whatever its status) or already a user's, so joining says nothing about other people.
 */
const publicWaitlistEntryView = (emailAddress: string) => ({
  object: 'waitlist_entry' as const,
  email_address: emailAddress,
  status: 'pending' as const,
});

const entryAudit = (d: Pick<Deps, 'db' | 'clock'>, instanceId: string, ctx: AuditContext, action: string, row: WaitlistEntryRow) =>
  audit(d, { instanceId, ...ctx, action, target: row.id, details: { email_address: row.emailAddress, status: row.status } });

async function isUserAddress(db: Db, instanceId: string, emailKey: string) {
  const [row] = await db
    .select({ id: emailAddresses.id })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.instanceId, instanceId), eq(emailAddresses.emailKey, emailKey)))
    .limit(1);
  return Boolean(row);
}

/** Inserts a pending entry unless the address has one: the new row, or null. */
async function insertEntry(d: Pick<Deps, 'db' | 'clock'>, instanceId: string, emailAddress: string) {
  const now = d.clock.now();
  const [row] = await d.db
    .insert(waitlistEntries)
    .values({
      id: newId('wle'),
      instanceId,
      emailAddress,
      emailKey: emailAddress.toLowerCase(),
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: [waitlistEntries.instanceId, waitlistEntries.emailKey] })
    .returning();
  if (row) await emitEvent(d, instanceId, 'waitlistEntry.created', waitlistEntryView(row));
  return row ?? null;
}

/**
 * FAPI: joins the waitlist. Only in waitlist mode; joining again, or with an address that
 * already signed up, changes nothing and answers the same.
 */
export async function joinWaitlist(deps: Pick<Deps, 'db' | 'clock'>, instance: InstanceContext, emailAddress: string) {
  if (instance.settings.sign_up_mode !== 'waitlist') {
    throw new AppError('FORBIDDEN', {
      message: 'This application has no waitlist: sign up instead.',
      meta: { reason: 'no_waitlist', sign_up_mode: instance.settings.sign_up_mode },
    });
  }
  await deps.db.transaction(async (tx) => {
    if (await isUserAddress(tx, instance.id, emailAddress.toLowerCase())) return;
    await insertEntry({ db: tx, clock: deps.clock }, instance.id, emailAddress);
  });
  return publicWaitlistEntryView(emailAddress);
}

/** BAPI and console: adds an address (pending); one already listed is 409. */
export async function createWaitlistEntry(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  input: { email_address: string },
  ctx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    const row = await insertEntry(d, instanceId, input.email_address);
    if (!row) {
      throw new AppError('CONFLICT', {
        message: `${input.email_address} is already on the waitlist.`,
        meta: { reason: 'already_on_waitlist', param: 'email_address' },
      });
    }
    await entryAudit(d, instanceId, ctx, 'waitlist_entry.created', row);
    return waitlistEntryView(row);
  });
}

async function loadEntry(db: Db, instanceId: string, id: string, lock = false) {
  const q = db
    .select()
    .from(waitlistEntries)
    .where(and(eq(waitlistEntries.id, id), eq(waitlistEntries.instanceId, instanceId)));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('waitlist entry');
  return row;
}

export async function getWaitlistEntry(deps: Pick<Deps, 'db'>, instanceId: string, id: string) {
  return waitlistEntryView(await loadEntry(deps.db, instanceId, id));
}

export interface ListWaitlistQuery {
  status?: WaitlistStatus;
  /** Part of the email address, or an entry id. */
  query?: string;
  limit: number;
  starting_after?: string;
}

/** Newest first, keyset-paginated on the time-sortable id. */
export async function listWaitlistEntries(deps: Pick<Deps, 'db'>, instanceId: string, q: ListWaitlistQuery) {
  const filters: (SQL | undefined)[] = [eq(waitlistEntries.instanceId, instanceId)];
  if (q.status) filters.push(eq(waitlistEntries.status, q.status));
  if (q.query) filters.push(or(ilike(waitlistEntries.emailKey, containsPattern(q.query.toLowerCase())), eq(waitlistEntries.id, q.query)));
  return cursorList(q, newestFirst(waitlistEntries.id), tableRows(deps.db, waitlistEntries, ...filters), waitlistEntryView);
}

function assertNotCompleted(row: WaitlistEntryRow, doing: string) {
  if (row.status === 'completed') {
    throw new AppError('CONFLICT', {
      message: `This person already signed up; there is nothing to ${doing}.`,
      meta: { reason: 'completed', status: row.status },
    });
  }
}

export interface InviteInput {
  /** How long the ticket signs up: 1–90 days, default 30. */
  expires_in_days?: number;
}

/**
 * The invitation email's link: the hosted sign-up page with the ticket in the fragment (as
 * sign-in tickets are), which browsers never send to a server nor put in a Referer.
 */
const signUpTicketUrl = (fapiUrl: string, ticket: string) => `${fapiUrl}/sign-up#ticket=${ticket}`;

/**
 * Invites one entry inside the caller's transaction: a fresh ticket (an earlier one stops
 * working), status invited, the invitation email, waitlistEntry.updated.
 */
async function inviteInTx(
  deps: MailDeps,
  instance: Pick<InstanceContext, 'id' | 'fapiUrl'>,
  row: WaitlistEntryRow,
  input: InviteInput,
  ctx: AuditContext,
) {
  assertNotCompleted(row, 'invite');
  if (await isUserAddress(deps.db, instance.id, row.emailKey)) {
    throw new AppError('CONFLICT', {
      message: `${row.emailAddress} already belongs to a user.`,
      meta: { reason: 'already_user', id: row.id },
    });
  }
  const ticket = generateSecret(TICKET_PREFIX);
  const now = deps.clock.now();
  const [invited] = await deps.db
    .update(waitlistEntries)
    .set({
      status: 'invited',
      ticketDigest: sha256Hex(ticket),
      ticketExpiresAt: now + (input.expires_in_days ?? DEFAULT_WAITLIST_INVITATION_DAYS) * 86_400_000,
      invitedAt: now,
      updatedAt: now,
    })
    .where(eq(waitlistEntries.id, row.id))
    .returning();
  const d = { db: deps.db, clock: deps.clock };
  await emitEvent(d, instance.id, 'waitlistEntry.updated', waitlistEntryView(invited!));
  await entryAudit(d, instance.id, ctx, 'waitlist_entry.invited', invited!);
  const email = await sendEmail(deps, {
    instanceId: instance.id,
    to: row.emailAddress,
    template: 'invitation',
    data: { url: signUpTicketUrl(instance.fapiUrl, ticket) },
  });
  return { view: waitlistEntryView(invited!), email };
}

/** Invites an entry (again: a new ticket); a completed one is 409. */
export async function inviteWaitlistEntry(
  deps: MailDeps,
  instance: Pick<InstanceContext, 'id' | 'fapiUrl'>,
  id: string,
  input: InviteInput,
  ctx: AuditContext,
) {
  const { view, email } = await deps.db.transaction(async (tx) => {
    const row = await loadEntry(tx, instance.id, id, true);
    return inviteInTx({ ...deps, db: tx }, instance, row, input, ctx);
  });
  deliverAfterCommit(deps, [email], 'waitlist invitation');
  return view;
}

/**
 * Invites several entries at once, all or none (one that cannot be invited fails the lot,
 * naming it); answers them in the order given.
 */
export async function inviteWaitlistEntries(
  deps: MailDeps,
  instance: Pick<InstanceContext, 'id' | 'fapiUrl'>,
  input: InviteInput & { ids: string[] },
  ctx: AuditContext,
) {
  const ids = [...new Set(input.ids)];
  const results = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(waitlistEntries)
      .where(and(eq(waitlistEntries.instanceId, instance.id), inArray(waitlistEntries.id, ids)))
      .orderBy(waitlistEntries.id)
      .for('update');
    const byId = new Map(rows.map((r) => [r.id, r]));
    const out = [];
    for (const id of ids) {
      const row = byId.get(id);
      if (!row) throw notFound('waitlist entry');
      out.push(await inviteInTx({ ...deps, db: tx }, instance, row, input, ctx));
    }
    return out;
  });
  deliverAfterCommit(
    deps,
    results.map((r) => r.email),
    'waitlist invitation',
  );
  return { object: 'list' as const, data: results.map((r) => r.view), has_more: false };
}

/** Rejects an entry (its ticket, if any, stops working); rejecting a rejected one changes nothing. */
export async function rejectWaitlistEntry(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, id: string, ctx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    const row = await loadEntry(tx, instanceId, id, true);
    if (row.status === 'rejected') return waitlistEntryView(row);
    assertNotCompleted(row, 'reject');
    const [rejected] = await tx
      .update(waitlistEntries)
      .set({ status: 'rejected', ticketDigest: null, ticketExpiresAt: null, updatedAt: deps.clock.now() })
      .where(eq(waitlistEntries.id, id))
      .returning();
    await emitEvent(d, instanceId, 'waitlistEntry.updated', waitlistEntryView(rejected!));
    await entryAudit(d, instanceId, ctx, 'waitlist_entry.rejected', rejected!);
    return waitlistEntryView(rejected!);
  });
}

/**
 * Whether the waitlist lets this address sign up: its entry is invited and the invitation
 * unexpired — and, when `ticket` is given, the ticket is that invitation's.
 */
export async function waitlistAdmits(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, emailAddress: string, ticket?: string) {
  const filters = [
    eq(waitlistEntries.instanceId, instanceId),
    eq(waitlistEntries.emailKey, emailAddress.toLowerCase()),
    eq(waitlistEntries.status, 'invited'),
    gt(waitlistEntries.ticketExpiresAt, deps.clock.now()),
  ];
  if (ticket !== undefined) filters.push(eq(waitlistEntries.ticketDigest, sha256Hex(ticket)));
  const [row] = await deps.db
    .select({ id: waitlistEntries.id })
    .from(waitlistEntries)
    .where(and(...filters));
  return Boolean(row);
}

/** In the sign-up's transaction: the invited entry of this address is completed by `userId`. */
export async function completeWaitlistEntry(d: Pick<Deps, 'db' | 'clock'>, instanceId: string, emailAddress: string, userId: string) {
  const now = d.clock.now();
  const [done] = await d.db
    .update(waitlistEntries)
    .set({ status: 'completed', userId, ticketDigest: null, updatedAt: now })
    .where(
      and(
        eq(waitlistEntries.instanceId, instanceId),
        eq(waitlistEntries.emailKey, emailAddress.toLowerCase()),
        eq(waitlistEntries.status, 'invited'),
      ),
    )
    .returning();
  if (done) await emitEvent(d, instanceId, 'waitlistEntry.updated', waitlistEntryView(done));
}
