import { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import type { BapiAuth } from '../api/bapi/authenticate';
import { routeInstance, type ConsoleAuth } from '../api/dashboard/authenticate';
import { listDirectoryGroups, listDirectoryUsers, setGroupRole } from './admin';
import {
  createdScimTokenSchema,
  createScimTokenBody,
  directoryGroupList,
  directoryGroupSchema,
  directoryListQuery,
  directoryUserList,
  listScimTokensQuery,
  orgPageQuery,
  scimTokenList,
  scimTokenSchema,
  setGroupRoleBody,
} from './schemas';
import { createScimToken, listScimTokens, revokeScimToken } from './tokens';

type Out<T extends z.ZodType> = z.output<T>;

/** `param` names the token (or group); on console paths `params.id` is its organization. */
const revoke = <Auth>(instanceOf: (auth: Auth) => string, param: string) =>
  endpoint<Auth>({
    summary: 'Revoke a SCIM token: the directory’s next request is 401',
    audit: { action: 'scim_token.revoked', target: param },
    response: scimTokenSchema,
    handle: ({ deps, auth, params }) => revokeScimToken(deps, instanceOf(auth), params[param]!, param === 'id' ? undefined : params.id),
  });

const mapGroup = <Auth>(instanceOf: (auth: Auth) => string, param: string) =>
  endpoint<Auth, Out<typeof setGroupRoleBody>>({
    summary: 'Map a directory group to an organization role (null unmaps it); members get the highest role of their mapped groups',
    audit: { action: 'scim_group.role_mapped', target: param, recordedBy: 'domain' },
    body: setGroupRoleBody,
    response: directoryGroupSchema,
    handle: ({ deps, auth, actor, params, body }) =>
      setGroupRole(deps, instanceOf(auth), params[param]!, body.role, auditContextOf(actor), param === 'id' ? undefined : params.id),
  });

const bapiInstance = (auth: BapiAuth) => auth.instance.id;

/** BAPI: `/v1/scim_tokens`, `/v1/scim_users`, `/v1/scim_groups` (scopes scim_tokens:read|write). */
export const bapiScim = {
  createToken: endpoint<BapiAuth, Out<typeof createScimTokenBody>>({
    summary: 'Mint a SCIM bearer token for an organization’s directory; the scim_… token is shown only in this answer',
    audit: { action: 'scim_token.created' },
    body: createScimTokenBody,
    response: createdScimTokenSchema,
    handle: ({ deps, auth, body }) => createScimToken(deps, auth.instance.id, body),
  }),
  listTokens: endpoint<BapiAuth, never, Out<typeof listScimTokensQuery>>({
    summary: 'List SCIM tokens, newest first, optionally of one organization (cursor pagination)',
    query: listScimTokensQuery,
    response: scimTokenList,
    handle: ({ deps, auth, query }) => listScimTokens(deps, auth.instance.id, query),
  }),
  revokeToken: revoke<BapiAuth>(bapiInstance, 'id'),
  listUsers: endpoint<BapiAuth, never, Out<typeof directoryListQuery>>({
    summary: 'The users directories provisioned, of one organization or all (cursor pagination)',
    query: directoryListQuery,
    response: directoryUserList,
    handle: ({ deps, auth, query }) => listDirectoryUsers(deps, auth.instance.id, query),
  }),
  listGroups: endpoint<BapiAuth, never, Out<typeof directoryListQuery>>({
    summary: 'Directory groups with their role mappings, of one organization or all (cursor pagination)',
    query: directoryListQuery,
    response: directoryGroupList,
    handle: ({ deps, auth, query }) => listDirectoryGroups(deps, auth.instance.id, query),
  }),
  mapGroup: mapGroup<BapiAuth>(bapiInstance, 'id'),
};

const consoleInstance = (auth: ConsoleAuth) => routeInstance(auth).id;

/** Dashboard: the organization page's directory section (`:id` the organization). */
export const dashboardScim = {
  createToken: endpoint<ConsoleAuth, { name: string }>({
    summary: 'Mint a SCIM token for this organization; shown once',
    audit: { action: 'scim_token.created' },
    body: createScimTokenBody.pick({ name: true }),
    response: createdScimTokenSchema,
    handle: ({ deps, auth, params, body }) => createScimToken(deps, consoleInstance(auth), { organization_id: params.id!, name: body.name }),
  }),
  listTokens: endpoint<ConsoleAuth, never, Out<typeof orgPageQuery>>({
    summary: 'This organization’s SCIM tokens, newest first',
    query: orgPageQuery,
    response: scimTokenList,
    handle: ({ deps, auth, params, query }) => listScimTokens(deps, consoleInstance(auth), { ...query, organization_id: params.id! }),
  }),
  revokeToken: revoke<ConsoleAuth>(consoleInstance, 'token_id'),
  listUsers: endpoint<ConsoleAuth, never, Out<typeof orgPageQuery>>({
    summary: 'The users this organization’s directory provisioned',
    query: orgPageQuery,
    response: directoryUserList,
    handle: ({ deps, auth, params, query }) => listDirectoryUsers(deps, consoleInstance(auth), { ...query, organization_id: params.id! }),
  }),
  listGroups: endpoint<ConsoleAuth, never, Out<typeof orgPageQuery>>({
    summary: 'This organization’s directory groups with their role mappings',
    query: orgPageQuery,
    response: directoryGroupList,
    handle: ({ deps, auth, params, query }) => listDirectoryGroups(deps, consoleInstance(auth), { ...query, organization_id: params.id! }),
  }),
  mapGroup: mapGroup<ConsoleAuth>(consoleInstance, 'group_id'),
};
