import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { newId } from '../db/ids';
import {
  emailAddresses,
  organizationMemberships,
  roles,
  signInAttempts,
  ssoAccounts,
  ssoAssertionIds,
  ssoRequests,
  users,
} from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError, isAppError, validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { isAllowedRedirect } from '../instances/settings';
import { addMembershipInTx, updateMembership } from '../organizations/memberships';
import { loadOrganization } from '../organizations/organization-view';
import { ensureBuiltIns } from '../organizations/roles';
import { completeSignIn } from '../auth/complete-sign-in';
import { completeRedirectUrl } from '../auth/complete-redirect';
import { createUser, updateUser } from '../users/users';
import {
  bindingColumns,
  browserHoldsFlow,
  claimRefused,
  newFlowNonce,
  nonceMatches,
  verifierMatches,
  withClaimNonce,
  type FlowBinding,
} from '../auth/flow-binding';
import { activeConnectionForEmail, loadConnection, type ConnectionRow } from './connections';
import { emailDomain } from '../organizations/domains';
import { oidcAuthorizationUrl } from './oidc';
import { authnRequestUrl, SSO_REQUEST_TTL_MS, SsoRefused } from './saml';

type RequestRow = typeof ssoRequests.$inferSelect;

/** What the IdP said about the user, whichever protocol carried it. */
export interface SsoIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
  groups: string[];
  attributes: Record<string, unknown>;
}

/** A redirect_url must be one the instance allows (its fapi_url origin or a configured redirect URL). */
function checkRedirectUrl(instance: InstanceContext, url: string | undefined): string | null {
  if (url === undefined) return null;
  if (!isAllowedRedirect(instance.settings, instance.fapiUrl, url)) {
    throw validationError('redirect_url', 'invalid_value', 'redirect_url is not one of the instance’s allowed redirect URLs.');
  }
  return url;
}

/**
 * Starts an SP-initiated sign-in at the connection's IdP: records the request in flight
 * (SAML AuthnRequest id for InResponseTo, or OIDC state with the PKCE verifier and nonce)
 * and answers the IdP URL to send the browser to.
 */
export async function startSso(
  deps: Deps,
  instance: InstanceContext,
  c: ConnectionRow,
  input: {
    signInAttemptId: string | null;
    clientId: string | null;
    redirectUrl: string | null;
    completeRedirectUrl?: string | null;
    binding: FlowBinding;
  },
): Promise<{ url: string; requestId: string }> {
  const now = deps.clock.now();
  const row = {
    id: newId('ssor'),
    instanceId: instance.id,
    connectionId: c.id,
    signInAttemptId: input.signInAttemptId,
    clientId: input.clientId,
    redirectUrl: input.redirectUrl,
    completeRedirectUrl: input.completeRedirectUrl ?? null,
    ...bindingColumns(input.binding),
    expiresAt: now + SSO_REQUEST_TTL_MS,
    createdAt: now,
  };
  if (c.provider === 'saml') {
    const handle = `_${randomBytes(20).toString('hex')}`;
    const url = await authnRequestUrl(deps, c, instance.fapiUrl, handle, row.id);
    await deps.db.insert(ssoRequests).values({ ...row, handle });
    return { url, requestId: row.id };
  }
  const handle = randomBytes(24).toString('base64url');
  const auth = await oidcAuthorizationUrl(deps, instance, c, handle);
  await deps.db.insert(ssoRequests).values({ ...row, handle, codeVerifier: deps.cipher.encrypt(auth.codeVerifier), nonce: auth.nonce });
  return { url: auth.url, requestId: row.id };
}

/**
 * The request answered comes back bound (server/auth/flow-binding.ts): in the browser that
 * started it, its flow cookie with the nonce. A request bound to a native app is claimed
 * by the app instead (never completed here); one bound to nothing is refused.
 */
export function assertBrowserBound(request: RequestRow, cookieHeader: string | undefined) {
  if (request.codeChallenge !== null) return;
  if (!browserHoldsFlow(cookieHeader, request.id, request.bindingDigest)) {
    throw new SsoRefused('flow_binding_mismatch', 'This sign-in was started in another browser (or its cookie is gone); start again here.');
  }
}

/** The waiting request of a handle (SAML InResponseTo or OIDC state), or of its id; null when unknown, used or expired. */
export async function pendingRequest(
  deps: Pick<Deps, 'db' | 'clock'>,
  c: ConnectionRow,
  handle: string,
  by: 'handle' | 'id' = 'handle',
): Promise<RequestRow | null> {
  const [row] = await deps.db
    .select()
    .from(ssoRequests)
    .where(and(eq(ssoRequests.connectionId, c.id), eq(by === 'id' ? ssoRequests.id : ssoRequests.handle, handle)));
  if (!row || row.consumedAt !== null || row.expiresAt <= deps.clock.now()) return null;
  return row;
}

/** The IdP's email, when a sign-in through `c` may use it: present, verified, of one of the connection's domains. */
export function acceptedEmail(c: Pick<ConnectionRow, 'domains'>, identity: Pick<SsoIdentity, 'email' | 'emailVerified'>): string {
  const email = identity.email?.trim().toLowerCase() ?? null;
  if (!email || !email.includes('@')) throw new SsoRefused('no_email', 'The identity provider sent no email address.');
  if (!identity.emailVerified) throw new SsoRefused('email_not_verified', 'The identity provider did not verify the email address.');
  if (!c.domains.includes(emailDomain(email)))
    throw new SsoRefused('email_domain_mismatch', 'The email address is not of a domain of this connection.');
  return email;
}

/** The highest role mapped from the IdP's groups (more permissions first, then key order), else the connection's default. */
export async function roleFor(db: Db, instanceId: string, c: ConnectionRow, groups: string[], fallback: string): Promise<string> {
  const mapped = [...new Set(groups.map((g) => c.roleMapping[g]).filter((r): r is string => !!r))];
  if (mapped.length > 0) {
    const [top] = await db
      .select({ key: roles.key })
      .from(roles)
      .where(and(eq(roles.instanceId, instanceId), inArray(roles.key, mapped)))
      .orderBy(desc(sql`jsonb_array_length(${roles.permissions})`), asc(roles.key))
      .limit(1);
    if (top) return top.key;
  }
  return c.defaultRole ?? fallback;
}

/**
 * Completes an SSO sign-in: consumes the request in flight (none for an IdP-initiated one),
 * finds the user by their identity at this connection, else links the user of the verified
 * email, else creates one (JIT); syncs the profile and the organization membership (default
 * role or the role mapped from groups), creates the session on the client and completes the
 * sign-in attempt. Returns where to send the browser and, for a new client, its token.
 */
export async function completeSso(
  deps: Deps,
  instance: InstanceContext,
  c: ConnectionRow,
  request: RequestRow | null,
  identity: SsoIdentity,
  auditCtx: AuditContext,
): Promise<{ redirectUrl: string; userId: string; sessionId: string; newClientToken: string | null }> {
  const email = acceptedEmail(c, identity);
  await ensureBuiltIns(deps, instance.id);

  const outcome = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    if (request) {
      const consumed = await tx
        .update(ssoRequests)
        .set({ consumedAt: deps.clock.now() })
        .where(and(eq(ssoRequests.id, request.id), isNull(ssoRequests.consumedAt)))
        .returning({ id: ssoRequests.id });
      if (consumed.length === 0) throw new SsoRefused('replayed', 'This sign-in was already completed.');
    }
    const ctx = { ...auditCtx, actor: `sso:${c.id}` };
    const now = deps.clock.now();
    const [account] = await tx
      .select()
      .from(ssoAccounts)
      .where(and(eq(ssoAccounts.connectionId, c.id), eq(ssoAccounts.subject, identity.subject)));
    let userId = account?.userId ?? null;
    let linked: 'existing' | 'linked' | 'created' = 'existing';
    if (!userId) {
      const [byEmail] = await tx
        .select({ userId: emailAddresses.userId })
        .from(emailAddresses)
        .where(
          and(
            eq(emailAddresses.instanceId, instance.id),
            eq(emailAddresses.emailKey, email),
            eq(emailAddresses.verificationStatus, 'verified'),
          ),
        );
      if (byEmail) {
        userId = byEmail.userId;
        linked = 'linked';
      } else {
        const created = await createUser(
          d,
          instance.id,
          { email_address: [email], first_name: identity.firstName ?? undefined, last_name: identity.lastName ?? undefined } as never,
          { verificationStrategy: 'enterprise_sso', audit: ctx },
        );
        userId = created.id;
        linked = 'created';
      }
      await tx.insert(ssoAccounts).values({
        id: newId('ssoa'),
        instanceId: instance.id,
        connectionId: c.id,
        userId,
        subject: identity.subject,
        emailAddress: email,
        attributes: identity.attributes,
        lastSignInAt: now,
        createdAt: now,
      });
    } else {
      await tx
        .update(ssoAccounts)
        .set({ emailAddress: email, attributes: identity.attributes, lastSignInAt: now })
        .where(eq(ssoAccounts.id, account!.id));
    }
    const [user] = await tx
      .select()
      .from(users)
      .where(and(eq(users.id, userId), eq(users.instanceId, instance.id)));
    if (!user) throw new SsoRefused('user_banned', 'The linked user no longer exists.');
    // Profile sync: the IdP is the source of truth for the names it sends.
    const names = {
      ...(identity.firstName && identity.firstName !== user.firstName ? { first_name: identity.firstName } : {}),
      ...(identity.lastName && identity.lastName !== user.lastName ? { last_name: identity.lastName } : {}),
    };
    if (linked !== 'created' && Object.keys(names).length > 0) await updateUser(d, instance.id, userId, names, ctx);

    // Membership of the connection's organization, with the default or mapped role.
    const role = await roleFor(tx, instance.id, c, identity.groups, instance.settings.organization_default_role);
    const [membership] = await tx
      .select({ role: organizationMemberships.role })
      .from(organizationMemberships)
      .where(and(eq(organizationMemberships.organizationId, c.organizationId), eq(organizationMemberships.userId, userId)));
    if (!membership) {
      const org = await loadOrganization(tx, instance.id, c.organizationId, { lock: true });
      await addMembershipInTx(d, instance.id, org, { userId, role });
    } else if (membership.role !== role && (identity.groups.some((g) => c.roleMapping[g]) || c.defaultRole)) {
      await updateMembership(d, instance.id, c.organizationId, userId, { role }, ctx).catch((err: unknown) => {
        // The last admin keeps their role; anything else is a real failure.
        if (!isAppError(err) || err.code !== 'CONFLICT') throw err;
      });
    }

    const attempt = request?.signInAttemptId ? await waitingAttempt(d, request.signInAttemptId) : null;
    const end = await completeSignIn(d, instance, {
      way: 'enterprise_sso',
      userId,
      attempt,
      client: request?.clientId ? { id: request.clientId } : null,
      // SP-initiated: the answer came back bound to the browser that started it, or is claimed by the app that did.
      presentedClient: request?.clientId != null,
      idpEnforcesMfa: c.idpEnforcesMfa,
      auditCtx: ctx,
    }).catch((err: unknown) => {
      if (isAppError(err) && err.code === 'USER_BANNED') throw new SsoRefused('user_banned', 'This user is banned and cannot sign in.');
      if (isAppError(err) && err.code === 'USER_LOCKED') throw new SsoRefused('user_locked', 'This account is locked and cannot sign in.');
      throw err;
    });
    const session = { id: end.sessionId };
    const newClientToken = end.clientToken;
    await audit(d, {
      instanceId: instance.id,
      actor: ctx.actor,
      actorKind: 'system',
      action: 'sso.sign_in',
      target: userId,
      ip: auditCtx.ip,
      userAgent: auditCtx.userAgent,
      details: {
        connection_id: c.id,
        provider: c.provider,
        subject: identity.subject,
        user: linked,
        role,
        session_id: session.id,
        session_status: end.status,
        idp_initiated: request === null,
      },
    });
    return { userId, sessionId: session.id, newClientToken, complete: end.attempt?.status === 'complete' };
  });
  // Signed in completely: the complete URL when the start gave one; a second factor still due: redirect_url.
  const landing =
    outcome.complete && request?.completeRedirectUrl ? request.completeRedirectUrl : (request?.redirectUrl ?? instance.fapiUrl);
  return { userId: outcome.userId, sessionId: outcome.sessionId, newClientToken: outcome.newClientToken, redirectUrl: landing };
}

/**
 * A request bound to a native app: the IdP's verified answer waits, encrypted, for the app's
 * claim (claimSsoSignIn). Answers where to send the browser: redirect_url with the claim nonce.
 */
export async function awaitSsoClaim(
  deps: Pick<Deps, 'db' | 'cipher' | 'clock'>,
  instance: InstanceContext,
  request: RequestRow,
  identity: SsoIdentity,
): Promise<string> {
  const claim = newFlowNonce();
  const parked = await deps.db
    .update(ssoRequests)
    .set({ identityEncrypted: deps.cipher.encrypt(JSON.stringify(identity)), claimDigest: claim.digest })
    .where(and(eq(ssoRequests.id, request.id), isNull(ssoRequests.identityEncrypted), isNull(ssoRequests.consumedAt)))
    .returning({ id: ssoRequests.id });
  if (parked.length === 0) throw new SsoRefused('replayed', 'This sign-in was already answered.');
  return withClaimNonce(request.redirectUrl ?? instance.fapiUrl, claim.nonce);
}

/**
 * The native app claims the SSO sign-in its sign-in attempt started: the claim nonce its
 * browser was sent back with and the verifier of the code challenge it started with; then
 * the sign-in completes on the app's client (completeSso). Null: no SSO request of this
 * attempt and client is waiting (the caller tries the other kinds of flow).
 */
export async function claimSsoSignIn(
  deps: Deps,
  instance: InstanceContext,
  clientId: string,
  signInAttemptId: string,
  proof: { claimNonce: string; codeVerifier: string },
  auditCtx: AuditContext,
) {
  const [request] = await deps.db
    .select()
    .from(ssoRequests)
    .where(
      and(eq(ssoRequests.instanceId, instance.id), eq(ssoRequests.signInAttemptId, signInAttemptId), eq(ssoRequests.clientId, clientId)),
    )
    .orderBy(desc(ssoRequests.createdAt))
    .limit(1);
  if (!request) return null;
  const holds =
    request.consumedAt === null &&
    request.expiresAt > deps.clock.now() &&
    request.identityEncrypted !== null &&
    nonceMatches(proof.claimNonce, request.claimDigest) &&
    verifierMatches(proof.codeVerifier, request.codeChallenge);
  if (!holds) throw claimRefused();
  const identity = JSON.parse(deps.cipher.decrypt(request.identityEncrypted!)) as SsoIdentity;
  const c = await loadConnection(deps, instance.id, request.connectionId);
  try {
    if (!c.active) throw new SsoRefused('connection_inactive', 'This SSO connection is not active.');
    return await completeSso(deps, instance, c, request, identity, auditCtx);
  } catch (err) {
    const reason = await auditSsoFailure(deps, instance.id, c.id, err, auditCtx);
    if (!(err instanceof SsoRefused)) throw err;
    throw new AppError('FORBIDDEN', { message: `Single sign-on was refused (${reason}).`, meta: { reason: err.reason } });
  }
}

/** The sign-in attempt an SP-initiated request completes, while it still waits for its first factor. */
async function waitingAttempt(d: Pick<Deps, 'db'>, id: string) {
  const [row] = await d.db
    .select()
    .from(signInAttempts)
    .where(and(eq(signInAttempts.id, id), eq(signInAttempts.status, 'needs_first_factor')));
  return row ?? null;
}

/**
 * Drops SSO requests past their 10 minutes (answered or not, with any identity a native app
 * left unclaimed) and assertion ids past their validity; run with the other housekeeping.
 */
export async function purgeSsoRequests(deps: Pick<Deps, 'db' | 'clock'>) {
  const now = deps.clock.now();
  const requests = await deps.db.delete(ssoRequests).where(lt(ssoRequests.expiresAt, now)).returning({ id: ssoRequests.id });
  const assertions = await deps.db
    .delete(ssoAssertionIds)
    .where(lt(ssoAssertionIds.expiresAt, now))
    .returning({ id: ssoAssertionIds.assertionId });
  return { sso_requests: requests.length, sso_assertion_ids: assertions.length };
}

/** Every refused SSO sign-in is audited with its reason (outside the refused transaction). */
export async function auditSsoFailure(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  connectionId: string,
  err: unknown,
  auditCtx: AuditContext,
) {
  const reason = err instanceof SsoRefused ? err.reason : isAppError(err) ? err.code.toLowerCase() : 'internal_error';
  await audit(deps, {
    instanceId,
    actor: `sso:${connectionId}`,
    actorKind: 'system',
    action: 'sso.sign_in_failed',
    target: connectionId,
    ip: auditCtx.ip,
    userAgent: auditCtx.userAgent,
    details: { reason },
  });
  return reason;
}

/** strategy enterprise_sso: the IdP URL for an email whose domain has an active connection. */
export async function startEnterpriseSignIn(
  deps: Deps,
  instance: InstanceContext,
  input: {
    identifier: string;
    signInAttemptId: string;
    clientId: string;
    redirectUrl: string | undefined;
    completeRedirectUrl?: string;
    binding: FlowBinding;
  },
): Promise<{ url: string; requestId: string; crossSitePost: boolean }> {
  const redirectUrl = checkRedirectUrl(instance, input.redirectUrl);
  const completeUrl = completeRedirectUrl(instance, redirectUrl, input.completeRedirectUrl, 'invalid_value');
  const c = await activeConnectionForEmail(deps, instance.id, input.identifier);
  if (!c) throw validationError('identifier', 'no_connection', 'No active SSO connection serves this email address’s domain.');
  try {
    const started = await startSso(deps, instance, c, {
      signInAttemptId: input.signInAttemptId,
      clientId: input.clientId,
      redirectUrl,
      completeRedirectUrl: completeUrl,
      binding: input.binding,
    });
    // SAML's HTTP-POST binding comes back by a cross-site POST from the IdP.
    return { ...started, crossSitePost: c.provider === 'saml' };
  } catch (err) {
    if (err instanceof SsoRefused)
      throw new AppError('SERVICE_UNAVAILABLE', { message: 'The identity provider could not be reached; try again later.' });
    throw err;
  }
}
