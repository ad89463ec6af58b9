import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import type { BapiAuth } from './authenticate';
import { listDirectoryGroups, listDirectoryUsers } from '../../scim/admin';
import {
  createdScimTokenSchema,
  createScimTokenBody,
  directoryGroupList,
  directoryListQuery,
  directoryUserList,
  listScimTokensQuery,
  scimTokenList,
} from '../../scim/schemas';
import { createScimToken, listScimTokens } from '../../scim/tokens';
import { revoke, mapGroup } from '../../scim/endpoints';

const bapiInstance = (auth: BapiAuth) => auth.instance.id;
/** BAPI: `/v1/scim_tokens`, `/v1/scim_users`, `/v1/scim_groups` (scopes scim_tokens:read|write). */
export const bapiScim = {
  createToken: endpoint<BapiAuth, z.output<typeof createScimTokenBody>>({
    summary: 'Mint a SCIM bearer token for an organization’s directory; the scim_… token is shown only in this answer',
    audit: { action: 'scim_token.created' },
    body: createScimTokenBody,
    response: createdScimTokenSchema,
    handle: ({ deps, auth, body }) => createScimToken(deps, auth.instance.id, body),
  }),
  listTokens: endpoint<BapiAuth, never, z.output<typeof listScimTokensQuery>>({
    summary: 'List SCIM tokens, newest first, optionally of one organization (cursor pagination)',
    query: listScimTokensQuery,
    response: scimTokenList,
    handle: ({ deps, auth, query }) => listScimTokens(deps, auth.instance.id, query),
  }),
  revokeToken: revoke(bapiInstance, 'id'),
  listUsers: endpoint<BapiAuth, never, z.output<typeof directoryListQuery>>({
    summary: 'The users directories provisioned, of one organization or all (cursor pagination)',
    query: directoryListQuery,
    response: directoryUserList,
    handle: ({ deps, auth, query }) => listDirectoryUsers(deps, auth.instance.id, query),
  }),
  listGroups: endpoint<BapiAuth, never, z.output<typeof directoryListQuery>>({
    summary: 'Directory groups with their role mappings, of one organization or all (cursor pagination)',
    query: directoryListQuery,
    response: directoryGroupList,
    handle: ({ deps, auth, query }) => listDirectoryGroups(deps, auth.instance.id, query),
  }),
  mapGroup: mapGroup(bapiInstance, 'id'),
};
