import { anonymousActor, auditContextOf, operatorActor, type AuditContext } from '../http/actor';
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { accountInvitations, accountMemberships, accounts, emailAddresses, instances, type OperatorRole } from '../db/schema';
import { sendEmail } from '../email/mailer';
import { AppError, notFound } from '../http/errors';
import { newId } from '../db/ids';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import { createAccount, defaultAccount, type InstanceContext } from '../instances/instances';
import { consumeSetupToken } from '../instances/platform';
import { createClient, setActiveSession } from '../sessions/clients';
import { createSession } from '../sessions/sessions';
import { createUser, getUser } from '../users/users';

/**
 * Operators and their accounts. An operator is a user of the platform instance; a
 * membership gives them one role in an account: `owner` > `admin` > `viewer`. Viewers
 * read; admins also change instances, keys, users and invite (up to their own role);
 * owners besides invite owners. Audit entries name an operator `operator:<user_id>`.
 */
type D = Pick<Deps, 'db' | 'clock' | 'config' | 'cipher' | 'caches' | 'passwords'>;

const RANK: Record<OperatorRole, number> = { viewer: 0, admin: 1, owner: 2 };
export const roleAtLeast = (held: OperatorRole, needed: OperatorRole) => RANK[held] >= RANK[needed];

const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
const OPERATOR_INVITATION_TOKEN_PREFIX = 'inv_';
const INVITATION_TOKEN_RE = /^inv_[A-Za-z0-9_-]{43}$/;

export interface AuditRequest {
  ip?: string | null;
  userAgent?: string | null;
}

/** Someone not signed in yet, through the console's request (claiming setup, accepting an invitation). */
const anonymousContext = (request: AuditRequest) =>
  auditContextOf(anonymousActor({ ip: request.ip ?? null, userAgent: request.userAgent ?? null }));
/** An operator acting through the console's request. */
const operatorContext = (userId: string, request: AuditRequest) =>
  auditContextOf(operatorActor(userId, { ip: request.ip ?? null, userAgent: request.userAgent ?? null }));

/** The accounts an operator belongs to, oldest first, with their role. */
export async function operatorAccounts(deps: Pick<Deps, 'db'>, userId: string) {
  const rows = await deps.db
    .select({ id: accounts.id, name: accounts.name, createdAt: accounts.createdAt, role: accountMemberships.role })
    .from(accountMemberships)
    .innerJoin(accounts, eq(accounts.id, accountMemberships.accountId))
    .where(eq(accountMemberships.userId, userId))
    .orderBy(asc(accounts.id));
  return rows.map((r) => ({ object: 'account' as const, id: r.id, name: r.name, role: r.role, created_at: r.createdAt }));
}

/** The operator's role in an account, or null when they are not a member (callers answer 404). */
export async function membershipRole(deps: Pick<Deps, 'db'>, userId: string, accountId: string): Promise<OperatorRole | null> {
  const [row] = await deps.db
    .select({ role: accountMemberships.role })
    .from(accountMemberships)
    .where(and(eq(accountMemberships.userId, userId), eq(accountMemberships.accountId, accountId)));
  return row?.role ?? null;
}

export async function addOperatorMembership(deps: Pick<Deps, 'db' | 'clock'>, accountId: string, userId: string, role: OperatorRole) {
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(accountMemberships)
    .values({ id: newId('acctmem'), accountId, userId, role, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: [accountMemberships.accountId, accountMemberships.userId], set: { role, updatedAt: now } })
    .returning();
  return row!;
}

export async function listMembers(deps: Pick<Deps, 'db' | 'clock'>, platformId: string, accountId: string) {
  const rows = await deps.db
    .select()
    .from(accountMemberships)
    .where(eq(accountMemberships.accountId, accountId))
    .orderBy(asc(accountMemberships.id));
  const out = [];
  for (const m of rows) {
    const user = await getUser(deps, platformId, m.userId);
    out.push({
      object: 'account_membership' as const,
      id: m.id,
      role: m.role,
      user_id: m.userId,
      email_address: user.email_addresses.find((e) => e.id === user.primary_email_address_id)?.email_address ?? null,
      first_name: user.first_name,
      last_name: user.last_name,
      created_at: m.createdAt,
    });
  }
  return { object: 'list' as const, data: out, has_more: false };
}

/** Signs a platform user in on a new console client; answers the client token for the `__console_client` cookie. */
async function signInOperator(deps: D, platform: InstanceContext, userId: string, request: AuditRequest) {
  const { client, token } = await createClient(deps, platform.id);
  const { session } = await createSession(
    deps,
    platform,
    { userId, clientId: client.id, activity: request },
    operatorContext(userId, request),
  );
  await setActiveSession(deps, client.id, session.id);
  return { clientToken: token, sessionId: session.id };
}

/** A platform user (operator) with this verified email address, if any. */
async function operatorByEmail(deps: Pick<Deps, 'db'>, platformId: string, email: string) {
  const [row] = await deps.db
    .select({ userId: emailAddresses.userId })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.instanceId, platformId), eq(emailAddresses.emailKey, email.toLowerCase())));
  return row?.userId ?? null;
}

/**
 * Completes the console setup with a one-time token: the first operator (a platform user
 * with a password), an account they own, and a signed-in console session. The account is
 * the bootstrap default one (with the "Development" instance) while no one is a member of
 * it, else a new one. All in one transaction with consuming the token.
 */
export async function completeSetup(
  deps: D,
  platform: InstanceContext,
  input: { token: string; email_address: string; password: string; first_name?: string; last_name?: string; account_name?: string },
  request: AuditRequest,
) {
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const setupId = await consumeSetupToken(d, input.token);
    if (await operatorByEmail(d, platform.id, input.email_address)) {
      throw new AppError('CONFLICT', {
        message: 'An operator with this email address exists; sign in instead.',
        meta: { param: 'email_address' },
      });
    }
    const user = await createUser(
      d,
      platform.id,
      {
        email_address: [input.email_address],
        password: input.password,
        first_name: input.first_name,
        last_name: input.last_name,
      },
      { audit: anonymousContext(request) },
    );
    const candidate = await defaultAccount(d);
    const [member] = await tx
      .select({ id: accountMemberships.id })
      .from(accountMemberships)
      .where(eq(accountMemberships.accountId, candidate.id))
      .limit(1);
    let account = candidate;
    if (member) account = await createAccount(d, input.account_name ?? 'My account');
    else if (input.account_name) {
      const [renamed] = await tx.update(accounts).set({ name: input.account_name }).where(eq(accounts.id, candidate.id)).returning();
      account = renamed!;
    }
    await addOperatorMembership(d, account.id, user.id, 'owner');
    await audit(d, {
      instanceId: null,
      ...operatorContext(user.id, request),
      action: 'console.setup_completed',
      target: account.id,
      details: { setup_token_id: setupId, user_id: user.id },
    });
    const signedIn = await signInOperator(d, platform, user.id, request);
    return { user, account: account!, ...signedIn };
  });
}

const operatorInvitationView = (r: typeof accountInvitations.$inferSelect) => ({
  object: 'account_invitation' as const,
  id: r.id,
  account_id: r.accountId,
  email_address: r.emailAddress,
  role: r.role,
  status: r.status,
  invited_by: r.invitedBy,
  expires_at: r.expiresAt,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/**
 * Invites someone to an account by email (template `invitation`, sent by the platform
 * instance) with a link to the console's accept page. The link (its token) is in the email and
 * in this answer only, so an operator can pass it on where no mail is sent. An inviter grants at
 * most their own role.
 */
export async function createOperatorInvitation(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'logger' | 'mailer'>,
  platform: InstanceContext,
  input: {
    accountId: string;
    emailAddress: string;
    role: OperatorRole;
    inviterId: string;
    inviterRole: OperatorRole;
    inviterName: string | null;
  },
  request: AuditRequest,
) {
  if (!roleAtLeast(input.inviterRole, input.role)) {
    throw new AppError('FORBIDDEN', {
      message: `An ${input.inviterRole} cannot invite an ${input.role}.`,
      meta: { reason: 'role_too_high' },
    });
  }
  const token = generateSecret(OPERATOR_INVITATION_TOKEN_PREFIX);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    // A newer invitation to the same address replaces a pending one.
    await tx
      .update(accountInvitations)
      .set({ status: 'revoked', updatedAt: now })
      .where(
        and(
          eq(accountInvitations.accountId, input.accountId),
          eq(sql`lower(${accountInvitations.emailAddress})`, input.emailAddress.toLowerCase()),
          eq(accountInvitations.status, 'pending'),
        ),
      );
    const [created] = await tx
      .insert(accountInvitations)
      .values({
        id: newId('acctinv'),
        accountId: input.accountId,
        emailAddress: input.emailAddress,
        role: input.role,
        digest: sha256Hex(token),
        status: 'pending',
        invitedBy: operatorContext(input.inviterId, request).actor,
        expiresAt: now + INVITATION_TTL_MS,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: null,
        ...operatorContext(input.inviterId, request),
        action: 'account_invitation.created',
        target: created!.id,
        details: { account_id: input.accountId, email_address: input.emailAddress, role: input.role },
      },
    );
    return created!;
  });
  const url = `${deps.config.PUBLIC_URL}/accept-invitation?token=${encodeURIComponent(token)}`;
  await sendEmail(deps, {
    instanceId: platform.id,
    to: input.emailAddress,
    template: 'invitation',
    data: { url, inviter_name: input.inviterName, app_name: 'Latchkey' },
  });
  return { ...operatorInvitationView(row), url };
}

export async function listOperatorInvitations(deps: Pick<Deps, 'db'>, accountId: string) {
  const rows = await deps.db
    .select()
    .from(accountInvitations)
    .where(and(eq(accountInvitations.accountId, accountId), eq(accountInvitations.status, 'pending')))
    .orderBy(asc(accountInvitations.id));
  return { object: 'list' as const, data: rows.map(operatorInvitationView), has_more: false };
}

/**
 * Accepts an invitation. A signed-in operator joins with their own user, which must hold
 * the invited address (403 FORBIDDEN `email_mismatch` otherwise). Without a session, a new
 * operator is created with the invited address (verified: the token came by email) and
 * the given password, and signed in; when an operator with that address exists, 409
 * CONFLICT (sign in first). The token is single-use (one conditional UPDATE).
 */
export async function acceptOperatorInvitation(
  deps: D,
  platform: InstanceContext,
  input: { token: string; operatorId: string | null; password?: string; first_name?: string; last_name?: string },
  request: AuditRequest,
) {
  const invalid = new AppError('FORBIDDEN', {
    message: 'This invitation is invalid, expired or already used.',
    meta: { reason: 'invitation_invalid' },
  });
  if (!INVITATION_TOKEN_RE.test(input.token)) throw invalid;
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const now = deps.clock.now();
    const [inv] = await tx
      .update(accountInvitations)
      .set({ status: 'accepted', updatedAt: now })
      .where(
        and(
          eq(accountInvitations.digest, sha256Hex(input.token)),
          eq(accountInvitations.status, 'pending'),
          gt(accountInvitations.expiresAt, now),
        ),
      )
      .returning();
    if (!inv) throw invalid;
    let userId = input.operatorId;
    let signedIn: { clientToken: string; sessionId: string } | null = null;
    if (userId) {
      const user = await getUser(d, platform.id, userId);
      const holds = user.email_addresses.some(
        (e) => e.email_address.toLowerCase() === inv.emailAddress.toLowerCase() && e.verification?.status === 'verified',
      );
      if (!holds) {
        throw new AppError('FORBIDDEN', {
          message: `This invitation is for ${inv.emailAddress}; sign in with that address.`,
          meta: { reason: 'email_mismatch' },
        });
      }
    } else {
      if (!input.password)
        throw new AppError('VALIDATION_FAILED', {
          message: 'password is required to create your operator account.',
          meta: { param: 'password', reason: 'required' },
        });
      if (await operatorByEmail(d, platform.id, inv.emailAddress)) {
        throw new AppError('CONFLICT', {
          message: 'An operator with this email address exists; sign in, then accept.',
          meta: { reason: 'sign_in_required' },
        });
      }
      const user = await createUser(
        d,
        platform.id,
        {
          email_address: [inv.emailAddress],
          password: input.password,
          first_name: input.first_name,
          last_name: input.last_name,
        },
        { verificationStrategy: 'invitation', audit: anonymousContext(request) },
      );
      userId = user.id;
      signedIn = await signInOperator(d, platform, userId, request);
    }
    // An invitation never lowers a role the operator already holds (nor leaves the account ownerless).
    const held = await membershipRole(d, userId, inv.accountId);
    const membership = await addOperatorMembership(d, inv.accountId, userId, held && roleAtLeast(held, inv.role) ? held : inv.role);
    await audit(d, {
      instanceId: null,
      ...operatorContext(userId, request),
      action: 'account_invitation.accepted',
      target: inv.id,
      details: { account_id: inv.accountId, role: inv.role },
    });
    return { invitation: operatorInvitationView(inv), membership, userId, signedIn };
  });
}

/** The customer instances of an account, oldest first. */
export async function accountInstances(deps: Pick<Deps, 'db'>, accountId: string) {
  return deps.db
    .select()
    .from(instances)
    .where(and(eq(instances.accountId, accountId), eq(instances.kind, 'customer'), isNull(instances.deletedAt)))
    .orderBy(asc(instances.id));
}

/** An instance of this account (customer kind), or 404 NOT_FOUND. */
export async function accountInstance(deps: Pick<Deps, 'db'>, accountId: string, instanceId: string) {
  const [row] = await deps.db
    .select()
    .from(instances)
    .where(
      and(eq(instances.id, instanceId), eq(instances.accountId, accountId), eq(instances.kind, 'customer'), isNull(instances.deletedAt)),
    );
  if (!row) throw notFound('instance');
  return row;
}

/** Revokes a pending invitation of this account (a used or revoked one: 409 CONFLICT). */
export async function revokeOperatorInvitation(
  deps: Pick<Deps, 'db' | 'clock'>,
  accountId: string,
  invitationId: string,
  auditCtx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const where = and(eq(accountInvitations.id, invitationId), eq(accountInvitations.accountId, accountId));
    const [current] = await tx.select().from(accountInvitations).where(where).for('update');
    if (!current) throw notFound('invitation');
    if (current.status !== 'pending') {
      throw new AppError('CONFLICT', { message: `This invitation is ${current.status} already.`, meta: { status: current.status } });
    }
    const [row] = await tx.update(accountInvitations).set({ status: 'revoked', updatedAt: deps.clock.now() }).where(where).returning();
    await audit(
      { db: tx, clock: deps.clock },
      { instanceId: null, ...auditCtx, action: 'account_invitation.revoked', target: invitationId, details: { account_id: accountId } },
    );
    return operatorInvitationView(row!);
  });
}

/**
 * Changes a member's role or removes them (role null). An account keeps at least one
 * owner: demoting or removing the last one is 409 CONFLICT (`last_owner`).
 */
export async function changeMembership(
  deps: Pick<Deps, 'db' | 'clock'>,
  accountId: string,
  membershipId: string,
  role: OperatorRole | null,
  auditCtx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    // Lock the account's memberships so two concurrent demotions cannot leave it ownerless.
    const all = await tx.select().from(accountMemberships).where(eq(accountMemberships.accountId, accountId)).for('update');
    const current = all.find((m) => m.id === membershipId);
    if (!current) throw notFound('membership');
    const owners = all.filter((m) => m.role === 'owner').length;
    if (current.role === 'owner' && role !== 'owner' && owners <= 1) {
      throw new AppError('CONFLICT', { message: 'An account keeps at least one owner.', meta: { reason: 'last_owner' } });
    }
    const d = { db: tx, clock: deps.clock };
    if (role === null) {
      await tx.delete(accountMemberships).where(eq(accountMemberships.id, membershipId));
      await audit(d, {
        instanceId: null,
        ...auditCtx,
        action: 'account_membership.removed',
        target: membershipId,
        details: { account_id: accountId, user_id: current.userId },
      });
      return null;
    }
    const [row] = await tx
      .update(accountMemberships)
      .set({ role, updatedAt: deps.clock.now() })
      .where(eq(accountMemberships.id, membershipId))
      .returning();
    await audit(d, {
      instanceId: null,
      ...auditCtx,
      action: 'account_membership.updated',
      target: membershipId,
      details: { account_id: accountId, user_id: current.userId, role },
    });
    return row!;
  });
}
