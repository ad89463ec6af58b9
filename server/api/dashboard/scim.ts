import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { listDirectoryGroups, listDirectoryUsers } from '../../scim/admin';
import {
  createdScimTokenSchema,
  createScimTokenBody,
  directoryGroupList,
  directoryUserList,
  orgPageQuery,
  scimTokenList,
} from '../../scim/schemas';
import { createScimToken, listScimTokens } from '../../scim/tokens';
import { revoke, mapGroup } from '../../scim/endpoints';
import { directoryStatus, directoryStatusSchema } from '../../scim/directory-status';

const consoleInstance = (auth: ConsoleAuth) => routeInstance(auth).id;
/** Dashboard: the organization page's directory section (`:id` the organization). */
export const dashboardScim = {
  createToken: endpoint<ConsoleAuth, { name: string }, never, 'id'>({
    summary: 'Mint a SCIM token for this organization; shown once',
    audit: { action: 'scim_token.created' },
    body: createScimTokenBody.pick({ name: true }),
    response: createdScimTokenSchema,
    handle: ({ deps, auth, params, body }) => createScimToken(deps, consoleInstance(auth), { organization_id: params.id, name: body.name }),
  }),
  listTokens: endpoint<ConsoleAuth, never, z.output<typeof orgPageQuery>, 'id'>({
    summary: 'This organization’s SCIM tokens, newest first',
    query: orgPageQuery,
    response: scimTokenList,
    handle: ({ deps, auth, params, query }) => listScimTokens(deps, consoleInstance(auth), { ...query, organization_id: params.id }),
  }),
  revokeToken: revoke(consoleInstance, 'token_id'),
  status: endpoint<ConsoleAuth, never, never, 'id'>({
    summary: 'This organization’s directory status: last request, users and groups synced, failed requests and the last one',
    response: directoryStatusSchema,
    handle: ({ deps, auth, params }) => directoryStatus(deps, consoleInstance(auth), params.id),
  }),
  listUsers: endpoint<ConsoleAuth, never, z.output<typeof orgPageQuery>, 'id'>({
    summary: 'The users this organization’s directory provisioned',
    query: orgPageQuery,
    response: directoryUserList,
    handle: ({ deps, auth, params, query }) => listDirectoryUsers(deps, consoleInstance(auth), { ...query, organization_id: params.id }),
  }),
  listGroups: endpoint<ConsoleAuth, never, z.output<typeof orgPageQuery>, 'id'>({
    summary: 'This organization’s directory groups with their role mappings',
    query: orgPageQuery,
    response: directoryGroupList,
    handle: ({ deps, auth, params, query }) => listDirectoryGroups(deps, consoleInstance(auth), { ...query, organization_id: params.id }),
  }),
  mapGroup: mapGroup(consoleInstance, 'group_id'),
};
