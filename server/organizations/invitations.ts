import { and, asc, eq, gt, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { emailAddresses, organizationInvitations, organizationMemberships, organizations, roles, users } from '../db/schema';
import { deliverAfterCommit, sendEmail } from '../email/mailer';
import type { EmailView } from '../email/messages';
import { emitEvent } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import { lightList, oldestFirst, tableRows } from '../http/cursor-list';
import { newId } from '../db/ids';
import { assertMetadata } from '../http/metadata';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import { instanceContext } from '../instances/instances';
import { isAllowedRedirect } from '../instances/settings';
import { invitationStatus, organizationInvitationView, type OrganizationInvitationView } from './invitation-view';
import { addMembershipInTx, assertSeatAvailable } from './memberships';
import { loadOrganization, type OrganizationRow } from './organization-view';
import { assertRole, ensureBuiltIns } from './roles';

/**
 * Organization invitations. Each carries a one-time token (`oit_…`, only its SHA-256 is
 * stored) in the accept link of its email; the invited user accepts on the FAPI while
 * signed in with a verified email equal to the invited address (signing up first if
 * they have no account), which creates the membership. Pending invitations expire
 * (default 30 days); statuses: pending, accepted, revoked, expired (derived).
 */
const ORGANIZATION_INVITATION_TOKEN_PREFIX = 'oit_';
const DEFAULT_ORGANIZATION_INVITATION_DAYS = 30;

type InvitationRow = typeof organizationInvitations.$inferSelect;
type D = Pick<Deps, 'db' | 'clock'>;
type MailDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'logger' | 'mailer' | 'caches'>;

const orgLike = (o: OrganizationRow) => ({ id: o.id, name: o.name, slug: o.slug, image_url: o.imageUrl });

export interface CreateOrganizationInvitationInput {
  email_address: string;
  role?: string;
  redirect_url?: string;
  inviter_user_id?: string;
  public_metadata?: Record<string, unknown>;
  private_metadata?: Record<string, unknown>;
  expires_in_days?: number;
  /** Send the invitation email (default true). */
  notify?: boolean;
}

/** The accept link: the redirect URL (or the hosted page) with the token as `invitation_token`. */
function acceptUrl(fapiUrl: string, redirectUrl: string | undefined, token: string) {
  const url = new URL(redirectUrl ?? `${fapiUrl}/organization-invitation`);
  url.searchParams.set('invitation_token', token);
  return url.toString();
}

async function isMemberByEmail(db: Db, instanceId: string, organizationId: string, emailKey: string) {
  const [row] = await db
    .select({ id: organizationMemberships.id })
    .from(organizationMemberships)
    .innerJoin(emailAddresses, eq(emailAddresses.userId, organizationMemberships.userId))
    .where(
      and(
        eq(organizationMemberships.organizationId, organizationId),
        eq(emailAddresses.instanceId, instanceId),
        eq(emailAddresses.emailKey, emailKey),
      ),
    )
    .limit(1);
  return Boolean(row);
}

async function pendingCount(db: Db, organizationId: string, now: number) {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(organizationInvitations)
    .where(
      and(
        eq(organizationInvitations.organizationId, organizationId),
        eq(organizationInvitations.status, 'pending'),
        gt(organizationInvitations.expiresAt, now),
      ),
    );
  return Number(row?.n ?? 0);
}

/**
 * Creates one invitation inside the caller's transaction (organization row locked by
 * the caller): organizationInvitation.created and, unless `notify` is false, the email.
 */
async function createInvitationInTx(
  deps: MailDeps,
  instanceId: string,
  org: OrganizationRow,
  input: CreateOrganizationInvitationInput,
  opts: { defaultRole: string; fapiUrl: string; param?: string },
): Promise<{ view: OrganizationInvitationView; email: EmailView | null }> {
  assertMetadata('public_metadata', input.public_metadata ?? {});
  assertMetadata('private_metadata', input.private_metadata ?? {});
  const d = { db: deps.db, clock: deps.clock };
  const emailKey = input.email_address.toLowerCase();
  const role = input.role ?? opts.defaultRole;
  await assertRole(deps.db, instanceId, role);
  const now = deps.clock.now();
  if (await isMemberByEmail(deps.db, instanceId, org.id, emailKey)) {
    throw new AppError('CONFLICT', {
      message: `${input.email_address} is already a member of this organization.`,
      meta: { reason: 'already_member', email_address: input.email_address, param: 'email_address' },
    });
  }
  const [dup] = await deps.db
    .select({ id: organizationInvitations.id })
    .from(organizationInvitations)
    .where(
      and(
        eq(organizationInvitations.organizationId, org.id),
        eq(organizationInvitations.emailKey, emailKey),
        eq(organizationInvitations.status, 'pending'),
        gt(organizationInvitations.expiresAt, now),
      ),
    );
  if (dup) {
    throw new AppError('CONFLICT', {
      message: `${input.email_address} already has a pending invitation.`,
      meta: { reason: 'duplicate_invitation', email_address: input.email_address, param: 'email_address' },
    });
  }
  await assertSeatAvailable(deps.db, org, await pendingCount(deps.db, org.id, now));
  const token = generateSecret(ORGANIZATION_INVITATION_TOKEN_PREFIX);
  const [row] = await deps.db
    .insert(organizationInvitations)
    .values({
      id: newId('orginv'),
      instanceId,
      organizationId: org.id,
      emailAddress: input.email_address,
      emailKey,
      role,
      status: 'pending',
      tokenDigest: sha256Hex(token),
      redirectUrl: input.redirect_url ?? null,
      publicMetadata: input.public_metadata ?? {},
      privateMetadata: input.private_metadata ?? {},
      inviterUserId: input.inviter_user_id ?? null,
      expiresAt: now + (input.expires_in_days ?? DEFAULT_ORGANIZATION_INVITATION_DAYS) * 86_400_000,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const view = organizationInvitationView(row!, orgLike(org), now);
  await emitEvent(d, instanceId, 'organizationInvitation.created', view);
  let email: EmailView | null = null;
  if (input.notify !== false) {
    const inviter = input.inviter_user_id ? await inviterName(deps.db, instanceId, input.inviter_user_id) : null;
    email = await sendEmail(deps, {
      instanceId,
      to: input.email_address,
      template: 'organization_invitation',
      data: { organization_name: org.name, url: acceptUrl(opts.fapiUrl, input.redirect_url, token), inviter_name: inviter },
    });
  }
  return { view, email };
}

/** How an invitation names its inviter: their name, else their primary address (a user who gave no name); null: no such user. */
async function inviterDisplay(db: Db, instanceId: string, userId: string): Promise<string | null | undefined> {
  const [u] = await db
    .select({ first: users.firstName, last: users.lastName, email: emailAddresses.emailAddress })
    .from(users)
    .leftJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId))
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  if (!u) return undefined;
  return [u.first, u.last].filter(Boolean).join(' ') || u.email || null;
}

async function inviterName(db: Db, instanceId: string, userId: string) {
  const name = await inviterDisplay(db, instanceId, userId);
  if (name === undefined) throw validationError('inviter_user_id', 'not_found', 'No user was found with that inviter_user_id.');
  return name;
}

/** Creates invitations in one transaction (all or none); each with its event and email. */
export async function createInvitations(
  deps: MailDeps,
  instanceId: string,
  orgIdOrSlug: string,
  inputs: CreateOrganizationInvitationInput[],
): Promise<OrganizationInvitationView[]> {
  await ensureBuiltIns(deps, instanceId);
  const instance = await instanceContext(deps, instanceId);
  inputs.forEach((input, i) => {
    if (input.redirect_url !== undefined && !isAllowedRedirect(instance.settings, instance.fapiUrl, input.redirect_url)) {
      throw validationError(
        inputs.length > 1 ? `${i}.redirect_url` : 'redirect_url',
        'not_allowed',
        'redirect_url is not among the instance’s redirect URLs.',
      );
    }
  });
  const seen = new Set<string>();
  for (const input of inputs) {
    const k = input.email_address.toLowerCase();
    if (seen.has(k)) throw validationError('email_address', 'duplicate', `${input.email_address} is given twice.`);
    seen.add(k);
  }
  const results = await deps.db.transaction(async (tx) => {
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug, { lock: true });
    const out: { view: OrganizationInvitationView; email: EmailView | null }[] = [];
    for (const input of inputs) {
      out.push(
        await createInvitationInTx({ ...deps, db: tx }, instanceId, org, input, {
          defaultRole: instance.settings.organization_default_role,
          fapiUrl: instance.fapiUrl,
        }),
      );
    }
    return out;
  });
  deliverAfterCommit(
    deps,
    results.map((r) => r.email),
    'invitation',
  );
  return results.map((r) => r.view);
}

async function loadInvitation(db: Db, instanceId: string, organizationId: string, id: string) {
  const [row] = await db
    .select()
    .from(organizationInvitations)
    .where(
      and(
        eq(organizationInvitations.instanceId, instanceId),
        eq(organizationInvitations.organizationId, organizationId),
        eq(organizationInvitations.id, id),
      ),
    );
  if (!row) throw notFound('invitation');
  return row;
}

export async function getInvitation(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, orgIdOrSlug: string, id: string) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  return organizationInvitationView(await loadInvitation(deps.db, instanceId, org.id, id), orgLike(org), deps.clock.now());
}

const notPending = (inv: InvitationRow, now: number) => {
  const status = invitationStatus(inv, now) as Exclude<ReturnType<typeof invitationStatus>, 'pending'>;
  return new AppError('CONFLICT', { message: `This invitation is ${status}.`, meta: { reason: `invitation_${status}`, status } });
};

/** Revokes a pending invitation: organizationInvitation.revoked. Anything else is 409. */
export async function revokeOrganizationInvitation(deps: D, instanceId: string, orgIdOrSlug: string, id: string) {
  return deps.db.transaction(async (tx) => {
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug, { lock: true });
    const inv = await loadInvitation(tx, instanceId, org.id, id);
    const now = deps.clock.now();
    if (invitationStatus(inv, now) !== 'pending') throw notPending(inv, now);
    const [row] = await tx
      .update(organizationInvitations)
      .set({ status: 'revoked', updatedAt: now })
      .where(eq(organizationInvitations.id, id))
      .returning();
    const view = organizationInvitationView(row!, orgLike(org), now);
    await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'organizationInvitation.revoked', view);
    return view;
  });
}

type InvitationStatusFilter = 'pending' | 'accepted' | 'revoked' | 'expired';

function statusFilter(statuses: InvitationStatusFilter[] | undefined, now: number): SQL | undefined {
  if (!statuses?.length) return undefined;
  return or(
    ...statuses.map((s) => {
      if (s === 'pending') return and(eq(organizationInvitations.status, 'pending'), gt(organizationInvitations.expiresAt, now));
      if (s === 'expired') return and(eq(organizationInvitations.status, 'pending'), lte(organizationInvitations.expiresAt, now));
      return eq(organizationInvitations.status, s);
    }),
  );
}

/** An organization's invitations, oldest first, in the light envelope. */
export async function listOrganizationInvitations(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  orgIdOrSlug: string,
  q: { limit: number; starting_after?: string; status?: InvitationStatusFilter[] },
) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  const now = deps.clock.now();
  const rows = tableRows(deps.db, organizationInvitations, eq(organizationInvitations.organizationId, org.id), statusFilter(q.status, now));
  return lightList(q, oldestFirst(organizationInvitations.id), rows, (r) => organizationInvitationView(r, orgLike(org), now));
}

/** Whether a sign-up ticket is an organization invitation's token (else a waitlist ticket). */
export const isOrganizationInvitationToken = (ticket: string | undefined): ticket is string =>
  ticket?.startsWith(ORGANIZATION_INVITATION_TOKEN_PREFIX) ?? false;

/** The invitation a link's token names, in this instance (any status), with its organization. */
async function invitationByToken(db: Db, instanceId: string, token: string) {
  const [row] = await db
    .select({ inv: organizationInvitations, org: organizations })
    .from(organizationInvitations)
    .innerJoin(organizations, eq(organizations.id, organizationInvitations.organizationId))
    .where(and(eq(organizationInvitations.instanceId, instanceId), eq(organizationInvitations.tokenDigest, sha256Hex(token))));
  return row ?? null;
}

/** Whether `token` names a pending invitation to exactly `emailAddress` (the sign-up may then skip verifying it). */
export async function pendingInvitationFor(deps: D, instanceId: string, token: string, emailAddress: string): Promise<boolean> {
  const found = await invitationByToken(deps.db, instanceId, token);
  return !!found && invitationStatus(found.inv, deps.clock.now()) === 'pending' && found.inv.emailKey === emailAddress.toLowerCase();
}

/**
 * What the invitation page shows the holder of the link before they sign in: the
 * organization, who invited them, the role and the invited address (the token proves the
 * link was received at that address). An unknown token is 404.
 */
export async function previewInvitation(deps: D, instanceId: string, token: string) {
  const found = await invitationByToken(deps.db, instanceId, token);
  if (!found) throw notFound('invitation');
  const { inv, org } = found;
  const [role] = await deps.db
    .select({ name: roles.name })
    .from(roles)
    .where(and(eq(roles.instanceId, instanceId), eq(roles.key, inv.role)));
  const inviter = inv.inviterUserId ? await inviterDisplay(deps.db, instanceId, inv.inviterUserId) : null;
  return {
    object: 'organization_invitation_preview' as const,
    email_address: inv.emailAddress,
    status: invitationStatus(inv, deps.clock.now()),
    organization: { name: org.name, image_url: org.imageUrl },
    role: { key: inv.role, name: role?.name ?? inv.role },
    inviter_name: inviter ?? null,
    expires_at: inv.expiresAt,
  };
}

/** The lower-cased verified email addresses of a user. */
async function verifiedEmailKeys(db: Db, instanceId: string, userId: string) {
  const rows = await db
    .select({ key: emailAddresses.emailKey })
    .from(emailAddresses)
    .where(
      and(eq(emailAddresses.instanceId, instanceId), eq(emailAddresses.userId, userId), eq(emailAddresses.verificationStatus, 'verified')),
    );
  return rows.map((r) => r.key);
}

/** Pending invitations to any verified address of the user (FAPI: the user's own). */
export async function listUserInvitations(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string) {
  const keys = await verifiedEmailKeys(deps.db, instanceId, userId);
  if (keys.length === 0) return { object: 'list' as const, data: [], has_more: false };
  const now = deps.clock.now();
  const rows = await deps.db
    .select({ inv: organizationInvitations, org: organizations })
    .from(organizationInvitations)
    .innerJoin(organizations, eq(organizations.id, organizationInvitations.organizationId))
    .where(
      and(
        eq(organizationInvitations.instanceId, instanceId),
        inArray(organizationInvitations.emailKey, keys),
        statusFilter(['pending'], now),
      ),
    )
    .orderBy(asc(organizationInvitations.id))
    .limit(101);
  return {
    object: 'list' as const,
    data: rows.slice(0, 100).map((r) => organizationInvitationView(r.inv, orgLike(r.org), now)),
    has_more: rows.length > 100,
  };
}

/**
 * Accepts an invitation as `userId`, who must hold a verified email equal to the
 * invited address (otherwise the invitation is not theirs: 404). Creates the membership
 * with the invitation's role: organizationInvitation.accepted and
 * organizationMembership.created, in one transaction. Found by id or by the link's token.
 */
export async function acceptOrganizationInvitation(deps: D, instanceId: string, userId: string, by: { id: string } | { token: string }) {
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    const where = 'id' in by ? eq(organizationInvitations.id, by.id) : eq(organizationInvitations.tokenDigest, sha256Hex(by.token));
    const [found] = await tx
      .select()
      .from(organizationInvitations)
      .where(and(eq(organizationInvitations.instanceId, instanceId), where));
    const keys = await verifiedEmailKeys(tx, instanceId, userId);
    if (!found || !keys.includes(found.emailKey)) throw notFound('invitation');
    const org = await loadOrganization(tx, instanceId, found.organizationId, { lock: true });
    const [inv] = await tx.select().from(organizationInvitations).where(eq(organizationInvitations.id, found.id)).for('update');
    const now = deps.clock.now();
    if (invitationStatus(inv!, now) !== 'pending') throw notPending(inv!, now);
    const membership = await addMembershipInTx(d, instanceId, org, { userId, role: inv!.role });
    const [row] = await tx
      .update(organizationInvitations)
      .set({ status: 'accepted', updatedAt: now })
      .where(eq(organizationInvitations.id, inv!.id))
      .returning();
    const view = organizationInvitationView(row!, orgLike(org), now);
    await emitEvent(d, instanceId, 'organizationInvitation.accepted', view);
    return { invitation: view, membership };
  });
}

/**
 * An invitation made without a token or email (domain enrollment, automatic_invitation),
 * inside the caller's transaction; organizationInvitation.created. Skipped when one is
 * already pending or the organization is full.
 */
export async function createEnrollmentInvitation(d: D, instanceId: string, org: OrganizationRow, emailAddress: string, role: string) {
  const now = d.clock.now();
  const emailKey = emailAddress.toLowerCase();
  const [dup] = await d.db
    .select({ id: organizationInvitations.id })
    .from(organizationInvitations)
    .where(
      and(
        eq(organizationInvitations.organizationId, org.id),
        eq(organizationInvitations.emailKey, emailKey),
        statusFilter(['pending'], now),
      ),
    );
  if (dup) return null;
  const [row] = await d.db
    .insert(organizationInvitations)
    .values({
      id: newId('orginv'),
      instanceId,
      organizationId: org.id,
      emailAddress,
      emailKey,
      role,
      status: 'pending',
      tokenDigest: null,
      expiresAt: now + DEFAULT_ORGANIZATION_INVITATION_DAYS * 86_400_000,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const view = organizationInvitationView(row!, orgLike(org), now);
  await emitEvent(d, instanceId, 'organizationInvitation.created', view);
  return view;
}
