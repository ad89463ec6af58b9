import { and, eq, gt } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import { newId } from '../db/ids';
import { portalLinks, type PortalIntent } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError, validationError } from '../http/errors';
import { instanceContext, type InstanceContext } from '../instances/instances';
import { REASONS as INSTANCE_REASONS } from '../instances/reasons';
import { isAllowedRedirect } from '../instances/settings';
import { loadOrganization } from '../organizations/organization-view';
import { REASONS } from './reasons';

/**
 * Admin portal links (issue 49). The app's backend (BAPI), an operator (console) or an
 * organization admin (FAPI, `org:sys_portal:manage`) asks for a link of one organization and
 * one intent; the link is `{fapi_url}/portal/open#<token>`: the token travels in the fragment,
 * so it reaches no server log, no proxy and no Referer. The portal page posts it once
 * (openPortalLink): the link is spent and a portal session bound to that browser begins
 * (an HttpOnly cookie, one hour, refreshed while it is used). Only digests are kept.
 */
const LINK_TTL_MS = 5 * 60_000;
export const SESSION_TTL_MS = 60 * 60_000;
/** A session's expiry moves forward at most once a minute (one write per minute of use). */
const SLIDE_RESOLUTION_MS = 60_000;
const LINK_TOKEN_PREFIX = 'portal_';
const SESSION_TOKEN_PREFIX = 'portals_';
const LINK_TOKEN_RE = /^portal_[A-Za-z0-9_-]{43}$/;
const SESSION_TOKEN_RE = /^portals_[A-Za-z0-9_-]{43}$/;

type LinkRow = typeof portalLinks.$inferSelect;

/** The portal page a link opens. */
const portalLinkUrl = (fapiUrl: string, token: string) => `${fapiUrl}/portal/open#${token}`;

/** return_url / success_url must be allowed redirect URLs of the instance (its fapi_url origin or its redirect_urls). */
function allowedUrl(instance: InstanceContext, param: string, url: string | undefined): string | null {
  if (url === undefined) return null;
  if (!isAllowedRedirect(instance.settings, instance.fapiUrl, url)) {
    throw validationError(param, INSTANCE_REASONS.redirect_url_not_allowed, `${param} is not one of the instance’s allowed redirect URLs.`);
  }
  return url;
}

export interface PortalLinkInput {
  intent: PortalIntent;
  return_url?: string;
  success_url?: string;
}

/** Mints a link; audited `portal_link.created` (never the token). */
export async function createPortalLink(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  orgIdOrSlug: string,
  input: PortalLinkInput,
  auditCtx: AuditContext,
) {
  const instance = await instanceContext(deps, instanceId);
  const returnUrl = allowedUrl(instance, 'return_url', input.return_url);
  const successUrl = allowedUrl(instance, 'success_url', input.success_url);
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  const token = generateSecret(LINK_TOKEN_PREFIX);
  const now = deps.clock.now();
  const row: LinkRow = {
    id: newId('ptl'),
    instanceId,
    organizationId: org.id,
    intent: input.intent,
    digest: sha256Hex(token),
    returnUrl,
    successUrl,
    createdBy: auditCtx.actor,
    expiresAt: now + LINK_TTL_MS,
    usedAt: null,
    sessionDigest: null,
    sessionExpiresAt: null,
    createdAt: now,
  };
  await deps.db.insert(portalLinks).values(row);
  await audit(deps, {
    instanceId,
    actor: auditCtx.actor,
    actorKind: auditCtx.actorKind,
    action: 'portal_link.created',
    target: row.id,
    ip: auditCtx.ip,
    userAgent: auditCtx.userAgent,
    details: { organization_id: org.id, intent: input.intent },
  });
  return {
    object: 'portal_link' as const,
    id: row.id,
    organization_id: org.id,
    intent: row.intent,
    link: portalLinkUrl(instance.fapiUrl, token),
    expires_at: row.expiresAt,
  };
}

/** What a portal page knows of its session. */
export const portalSessionView = (row: LinkRow, org: { id: string; name: string; image_url: string | null }) => ({
  object: 'portal_session' as const,
  id: row.id,
  intent: row.intent,
  organization: { id: org.id, name: org.name, image_url: org.image_url },
  return_url: row.returnUrl,
  success_url: row.successUrl,
  expires_at: row.sessionExpiresAt!,
});

const linkRefused = (reason: 'link_invalid' | 'link_used' | 'link_expired', message: string) =>
  new AppError('FORBIDDEN', { message, meta: { reason: REASONS[reason] } });

/**
 * Spends a link: one transaction marks it used and binds a new session token to it. A link
 * already used, expired, unknown or of another instance never opens a session.
 */
export async function openPortalLink(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  token: string,
  request: { ip: string | null; userAgent: string | null },
) {
  if (!LINK_TOKEN_RE.test(token)) throw linkRefused('link_invalid', 'This portal link is not valid. Ask for a new one.');
  const now = deps.clock.now();
  const sessionToken = generateSecret(SESSION_TOKEN_PREFIX);
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(portalLinks)
      .where(and(eq(portalLinks.digest, sha256Hex(token)), eq(portalLinks.instanceId, instanceId)))
      .for('update');
    if (!row) throw linkRefused('link_invalid', 'This portal link is not valid. Ask for a new one.');
    if (row.usedAt !== null) throw linkRefused('link_used', 'This portal link was already used. Ask for a new one.');
    if (row.expiresAt <= now) throw linkRefused('link_expired', 'This portal link has expired (links last 5 minutes). Ask for a new one.');
    const [opened] = await tx
      .update(portalLinks)
      .set({ usedAt: now, sessionDigest: sha256Hex(sessionToken), sessionExpiresAt: now + SESSION_TTL_MS })
      .where(eq(portalLinks.id, row.id))
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        actor: `portal:${row.id}`,
        actorKind: 'portal',
        action: 'portal_session.opened',
        target: row.organizationId,
        ip: request.ip,
        userAgent: request.userAgent,
        details: { organization_id: row.organizationId, intent: row.intent },
      },
    );
    return { link: opened!, sessionToken };
  });
}

/** The live portal session of a cookie's token (its expiry slid forward), or a 401 naming why. */
export async function resolvePortalSession(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  token: string | undefined,
): Promise<LinkRow> {
  if (!token || !SESSION_TOKEN_RE.test(token)) {
    throw new AppError('UNAUTHENTICATED', {
      message: 'No portal session: open the portal link again.',
      meta: { reason: REASONS.session_missing },
    });
  }
  const now = deps.clock.now();
  const [row] = await deps.db
    .select()
    .from(portalLinks)
    .where(and(eq(portalLinks.sessionDigest, sha256Hex(token)), eq(portalLinks.instanceId, instanceId)));
  if (!row)
    throw new AppError('UNAUTHENTICATED', {
      message: 'No portal session: open the portal link again.',
      meta: { reason: REASONS.session_missing },
    });
  if ((row.sessionExpiresAt ?? 0) <= now) {
    throw new AppError('UNAUTHENTICATED', {
      message: 'The portal session has ended after an hour without use. Ask for a new link.',
      meta: { reason: REASONS.session_expired },
    });
  }
  const slid = now + SESSION_TTL_MS;
  if (slid - row.sessionExpiresAt! >= SLIDE_RESOLUTION_MS) {
    await deps.db
      .update(portalLinks)
      .set({ sessionExpiresAt: slid })
      .where(and(eq(portalLinks.id, row.id), gt(portalLinks.sessionExpiresAt, now)));
    return { ...row, sessionExpiresAt: slid };
  }
  return row;
}

/** Ends a portal session (the admin is done); the link stays spent. */
export async function endPortalSession(deps: Pick<Deps, 'db' | 'clock'>, linkId: string) {
  await deps.db.update(portalLinks).set({ sessionDigest: null, sessionExpiresAt: deps.clock.now() }).where(eq(portalLinks.id, linkId));
}
