import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint, jsonResult, streamResult } from '../../http/endpoint';
import { cursorPageSchema, lightListSchema, pageQuery } from '../../http/pagination';
import { validationError } from '../../http/errors';
import { scimTokens } from '../../db/schema';
import { directoryStatus, directoryStatusSchema } from '../../scim/directory-status';
import { auditLogSchema } from '../../audit/endpoints';
import { bindingFor } from '../../auth/flow-binding';
import { flowCookieName } from '../../auth/flow-binding';
import { SSO_REQUEST_TTL_MS } from '../../sso/saml';
import { createConnection, deleteConnection, getConnection, listConnections, updateConnection } from '../../sso/connections';
import { connectionList, connectionSchema, createConnectionFields, createConnectionRules, updateConnectionBody } from '../../sso/schemas';
import { connectionChange } from '../../sso/endpoints';
import { attemptDomainVerification, createDomain, deleteDomain, listDomains } from '../../organizations/domains';
import { createDomainBody, domainLightList, domainSchema, roleSchema } from '../../organizations/schemas';
import { getOrganization } from '../../organizations/organizations';
import { listRoles } from '../../organizations/roles';
import { listDirectoryGroups } from '../../scim/admin';
import { createdScimTokenSchema, directoryGroupList, directoryGroupSchema, scimTokenSchema, setGroupRoleBody } from '../../scim/schemas';
import { createScimToken, revokeScimToken } from '../../scim/tokens';
import { setGroupRole } from '../../scim/admin';
import { endPortalSession, openPortalLink, portalSessionView, SESSION_TTL_MS } from '../../portal/links';
import { exportOrganizationAuditLogs, listOrganizationAuditLogs } from '../../portal/audit-trail';
import { activateTestedConnection, getConnectionTest, startConnectionTest } from '../../portal/sso-tests';
import { portalCookie, type PortalAuth, type PortalSessionAuth } from './authenticate';

type Out<T extends z.ZodType> = z.output<T>;
type S = PortalSessionAuth;
const orgOf = (auth: S) => auth.link.organizationId;
const instanceOf = (auth: S) => auth.instance.id;

const sessionSchema = z
  .object({
    object: z.literal('portal_session'),
    id: z.string(),
    intent: z.enum(['sso', 'dsync', 'domain_verification', 'audit_logs']),
    organization: z.object({ id: z.string(), name: z.string(), image_url: z.string().nullable() }),
    return_url: z.string().nullable(),
    success_url: z.string().nullable(),
    expires_at: z.number().int(),
  })
  .meta({ id: 'PortalSession' });

async function sessionOf(deps: Parameters<typeof getOrganization>[0], auth: PortalAuth, link: NonNullable<PortalAuth['link']>) {
  const org = await getOrganization(deps, auth.instance.id, link.organizationId);
  return portalSessionView(link, { id: org.id, name: org.name, image_url: org.image_url });
}

// --- Domains -----------------------------------------------------------------------------

export const portalDomains = {
  list: endpoint<S>({
    summary: 'The organization’s domains with their TXT records and verification status',
    response: domainLightList,
    handle: ({ deps, auth }) => listDomains(deps, instanceOf(auth), orgOf(auth), { limit: 100 }),
  }),
  create: endpoint<S, { name: string }>({
    summary: 'Add a domain of the company; publish its TXT record, then verify it',
    audit: { action: 'organization_domain.created' },
    body: createDomainBody.pick({ name: true }),
    response: domainSchema,
    status: 201,
    handle: ({ deps, auth, body }) => createDomain(deps, instanceOf(auth), orgOf(auth), { name: body.name }),
  }),
  verify: endpoint<S, never, never, 'domain_id'>({
    summary: 'Verify a domain: a DNS lookup of its TXT record through the deployment’s resolver (422 txt_record_not_found with the cause)',
    audit: { action: 'organization_domain.verified', target: 'domain_id' },
    response: domainSchema,
    handle: ({ deps, auth, params }) =>
      attemptDomainVerification(deps, instanceOf(auth), orgOf(auth), params.domain_id, { strategy: 'dns_record' }),
  }),
  delete: endpoint<S, never, never, 'domain_id'>({
    summary: 'Remove a domain',
    audit: { action: 'organization_domain.deleted', target: 'domain_id' },
    response: z.object({ object: z.literal('organization_domain'), id: z.string(), deleted: z.literal(true) }),
    handle: ({ deps, auth, params }) => deleteDomain(deps, instanceOf(auth), orgOf(auth), params.domain_id),
  }),
};

// --- SSO ---------------------------------------------------------------------------------

/** A portal connection is created inactive, for the organization of the session; everything else is checked as on the BAPI. */
const portalConnectionBody = createConnectionFields.omit({ organization_id: true, active: true }).superRefine(createConnectionRules);
const portalConnectionUpdate = updateConnectionBody.omit({ active: true });
const testSchema = z
  .object({
    object: z.literal('sso_connection_test'),
    id: z.string(),
    connection_id: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    reason: z.string().nullable(),
    message: z.string().nullable(),
    result: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.number().int(),
    completed_at: z.number().int().nullable(),
    /** Where the test tab goes: the IdP's sign-in (on start only). */
    url: z.string().optional(),
    request_id: z.string().optional(),
  })
  .meta({ id: 'SsoConnectionTest' });

export const portalSso = {
  list: endpoint<S>({
    summary: 'The organization’s SSO connections',
    response: connectionList,
    handle: ({ deps, auth }) => listConnections(deps, instanceOf(auth), { organization_id: orgOf(auth), limit: 100 }),
  }),
  create: endpoint<S, Out<typeof portalConnectionBody>>({
    summary:
      'Add an SSO connection (inactive until a successful test): SAML from metadata XML, a metadata URL (SSRF guard) or fields; or OIDC',
    audit: { action: 'sso_connection.created', details: connectionChange },
    body: portalConnectionBody,
    response: connectionSchema,
    status: 201,
    handle: ({ deps, auth, body }) => createConnection(deps, instanceOf(auth), { ...body, organization_id: orgOf(auth), active: false }),
  }),
  get: endpoint<S, never, never, 'connection_id'>({
    summary: 'An SSO connection of the organization',
    response: connectionSchema,
    handle: ({ deps, auth, params }) => getConnection(deps, instanceOf(auth), params.connection_id, orgOf(auth)),
  }),
  update: endpoint<S, Out<typeof portalConnectionUpdate>, never, 'connection_id'>({
    summary: 'Change an SSO connection’s settings (activation is separate and needs a successful test)',
    audit: { action: 'sso_connection.updated', target: 'connection_id', details: connectionChange },
    body: portalConnectionUpdate,
    response: connectionSchema,
    handle: ({ deps, auth, params, body }) => updateConnection(deps, instanceOf(auth), params.connection_id, body, orgOf(auth)),
  }),
  delete: endpoint<S, never, never, 'connection_id'>({
    summary: 'Delete an SSO connection',
    audit: { action: 'sso_connection.deleted', target: 'connection_id' },
    response: connectionSchema,
    handle: ({ deps, auth, params }) => deleteConnection(deps, instanceOf(auth), params.connection_id, orgOf(auth)),
  }),
  startTest: endpoint<S, never, never, 'connection_id'>({
    summary:
      'Test connection: a real sign-in round trip at the IdP in a new tab (url), bound to this browser; nobody is signed in. Settings failing before the IdP (an OIDC issuer’s discovery) answer the failed test, without url',
    audit: { action: 'sso_connection.test_started', target: 'connection_id' },
    response: testSchema,
    status: 201,
    handle: async ({ deps, auth, params }) => {
      const binding = bindingFor('web', undefined);
      const test = await startConnectionTest(deps, auth.instance, orgOf(auth), params.connection_id, auth.link.id, binding);
      // A test that failed before reaching the IdP has no request in flight, and no flow cookie.
      if (binding.kind === 'browser' && 'request_id' in test)
        auth.setCookie(flowCookieName(test.request_id), binding.nonce, Math.ceil(SSO_REQUEST_TTL_MS / 1000), { sameSiteNone: true });
      return test;
    },
  }),
  getTest: endpoint<S, never, never, 'connection_id' | 'test_id'>({
    summary: 'A connection test: pending, or what the IdP sent and how it maps, or the exact reason it failed',
    response: testSchema,
    handle: ({ deps, auth, params }) => getConnectionTest(deps, instanceOf(auth), orgOf(auth), params.connection_id, params.test_id),
  }),
  activate: endpoint<S, never, never, 'connection_id'>({
    summary: 'Activate a connection whose latest test of its current settings succeeded (409 test_required otherwise)',
    audit: { action: 'sso_connection.activated', target: 'connection_id' },
    response: connectionSchema,
    handle: ({ deps, auth, params }) => activateTestedConnection(deps, instanceOf(auth), orgOf(auth), params.connection_id),
  }),
  deactivate: endpoint<S, never, never, 'connection_id'>({
    summary: 'Deactivate a connection (its users sign in otherwise until it is active again)',
    audit: { action: 'sso_connection.deactivated', target: 'connection_id' },
    response: connectionSchema,
    handle: ({ deps, auth, params }) => updateConnection(deps, instanceOf(auth), params.connection_id, { active: false }, orgOf(auth)),
  }),
};

// --- Directory sync ----------------------------------------------------------------------

export const portalDirectory = {
  status: endpoint<S>({
    summary:
      'The directory’s SCIM endpoint, tokens (never their secrets) and live status: last request, users and groups synced, failed requests',
    response: directoryStatusSchema,
    handle: ({ deps, auth }) => directoryStatus(deps, instanceOf(auth), orgOf(auth)),
  }),
  createToken: endpoint<S, { name: string }>({
    summary: 'Create the directory’s SCIM token; the scim_… secret is in this answer only',
    audit: { action: 'scim_token.created' },
    body: z.strictObject({ name: z.string().trim().min(1).max(256) }),
    response: createdScimTokenSchema,
    status: 201,
    handle: ({ deps, auth, body }) => createScimToken(deps, instanceOf(auth), { organization_id: orgOf(auth), name: body.name }),
  }),
  rotateToken: endpoint<S, never, never, 'token_id'>({
    summary: 'Rotate a SCIM token: a new one (shown once) replaces it, the old one is revoked at once',
    audit: { action: 'scim_token.rotated', target: 'token_id' },
    response: createdScimTokenSchema,
    status: 201,
    handle: async ({ deps, auth, params }) => {
      const [current] = await deps.db
        .select({ revokedAt: scimTokens.revokedAt })
        .from(scimTokens)
        .where(
          and(eq(scimTokens.id, params.token_id), eq(scimTokens.organizationId, orgOf(auth)), eq(scimTokens.instanceId, instanceOf(auth))),
        );
      if (current?.revokedAt) throw validationError('token_id', 'invalid_value', 'This token is already revoked; create a new one.');
      const old = await revokeScimToken(deps, instanceOf(auth), params.token_id, orgOf(auth));
      return createScimToken(deps, instanceOf(auth), { organization_id: orgOf(auth), name: old.name });
    },
  }),
  revokeToken: endpoint<S, never, never, 'token_id'>({
    summary: 'Revoke a SCIM token: the directory’s next request is 401',
    audit: { action: 'scim_token.revoked', target: 'token_id' },
    response: scimTokenSchema,
    handle: ({ deps, auth, params }) => revokeScimToken(deps, instanceOf(auth), params.token_id, orgOf(auth)),
  }),
  groups: endpoint<S>({
    summary: 'The directory’s groups with the organization role each maps to',
    response: directoryGroupList,
    handle: ({ deps, auth }) => listDirectoryGroups(deps, instanceOf(auth), { organization_id: orgOf(auth), limit: 100 }),
  }),
  mapGroup: endpoint<S, Out<typeof setGroupRoleBody>, never, 'group_id'>({
    summary: 'Map a directory group to an organization role (null unmaps it)',
    audit: { action: 'scim_group.role_mapped', target: 'group_id', recordedBy: 'domain' },
    body: setGroupRoleBody,
    response: directoryGroupSchema,
    handle: ({ deps, auth, actor, params, body }) =>
      setGroupRole(deps, instanceOf(auth), params.group_id, body.role, auditContextOf(actor), orgOf(auth)),
  }),
};

// --- Audit logs --------------------------------------------------------------------------

const trailQuery = z.strictObject({
  ...pageQuery,
  actor: z.string().min(1).max(256).optional(),
  since: z.coerce.number().int().min(0).optional(),
  until: z.coerce.number().int().min(0).optional(),
});
const exportQuery = trailQuery.omit({ limit: true, starting_after: true });
const checkRange = (q: { since?: number; until?: number }) => {
  if (q.since !== undefined && q.until !== undefined && q.until <= q.since)
    throw validationError('until', 'before_since', 'until must be later than since.');
};

export const portalAuditLogs = {
  list: endpoint<S, never, Out<typeof trailQuery>>({
    summary: 'The organization’s audit trail, newest first; filter by actor and date (since inclusive, until exclusive, ms)',
    query: trailQuery,
    response: cursorPageSchema(auditLogSchema),
    handle: async ({ deps, auth, query }) => {
      checkRange(query);
      return listOrganizationAuditLogs(deps, instanceOf(auth), orgOf(auth), query);
    },
  }),
  export: endpoint<S, never, Out<typeof exportQuery>>({
    summary: 'The same trail as CSV (newest first, at most 50,000 entries)',
    query: exportQuery,
    response: z.string(),
    handle: async ({ deps, auth, query }) => {
      checkRange(query);
      return streamResult(exportOrganizationAuditLogs(deps, instanceOf(auth), orgOf(auth), query), 'text/csv; charset=utf-8', {
        'content-disposition': `attachment; filename="audit-${orgOf(auth)}.csv"`,
      });
    },
  }),
};

export const portalSessions = {
  // --- The session -------------------------------------------------------------------------
  open: endpoint<PortalAuth, { token: string }>({
    summary:
      'Open a portal link: spends it (single use, 5 minutes) and starts the portal session of this browser (the __portal cookie, one hour, sliding)',
    audit: { action: 'portal_session.opened', recordedBy: 'domain' },
    body: z.strictObject({ token: z.string().min(1).max(128) }),
    response: sessionSchema,
    status: 201,
    handle: async ({ deps, auth, body, request }) => {
      const { link, sessionToken } = await openPortalLink(deps, auth.instance.id, body.token, request);
      const view = await sessionOf(deps, auth, link);
      return jsonResult(view, 201, { 'set-cookie': portalCookie(auth.instance, auth.servedUrl, sessionToken, SESSION_TTL_MS / 1000) });
    },
  }),
  get: endpoint<S>({
    summary: 'The portal session: its organization, intent, return and success URLs and expiry',
    response: sessionSchema,
    handle: ({ deps, auth }) => sessionOf(deps, auth, auth.link),
  }),
  end: endpoint<S>({
    summary: 'End the portal session (the admin is done); answers it one last time, with its success_url',
    audit: { action: 'portal_session.ended' },
    response: sessionSchema,
    handle: async ({ deps, auth }) => {
      const view = await sessionOf(deps, auth, auth.link);
      await endPortalSession(deps, auth.link.id);
      return jsonResult(view, 200, { 'set-cookie': portalCookie(auth.instance, auth.servedUrl, '', 0) });
    },
  }),
};

export const portalRoles = {
  list: endpoint<S>({
    summary: 'The organization roles IdP groups can map to',
    response: lightListSchema(roleSchema),
    handle: ({ deps, auth }) => listRoles(deps, instanceOf(auth), { limit: 100 }),
  }),
};
