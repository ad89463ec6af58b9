import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { createPortalLink } from './links';
import { createPortalLinkBody, portalLinkSchema, type CreatePortalLinkInput } from './schemas';

/**
 * `POST …/organizations/:id/portal_links` on every surface that serves it (BAPI, dashboard,
 * FAPI): `instanceOf` names the caller's instance, `orgOf` the organization (the path's `:id`,
 * or on the FAPI the member's resolved organization).
 */
export const portalLinkEndpointFor = <Auth>(
  instanceOf: (auth: Auth) => string,
  orgOf: (auth: Auth, params: Record<'id', string>) => string,
) =>
  endpoint<Auth, CreatePortalLinkInput, Record<string, never>, 'id'>({
    summary:
      'A single-use admin portal link (5 minutes) for the organization’s IT admin: SSO, directory sync, domain verification or audit logs',
    audit: { action: 'portal_link.created', recordedBy: 'domain' },
    body: createPortalLinkBody,
    response: portalLinkSchema,
    status: 201,
    handle: ({ deps, auth, actor, params, body }) =>
      createPortalLink(deps, instanceOf(auth), orgOf(auth, params), body, auditContextOf(actor)),
  });
