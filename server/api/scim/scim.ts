import { z } from 'zod';
import { auditContextOf, type Actor } from '../../http/actor';
import { bytesResult, endpoint, jsonResult, noContent } from '../../http/endpoint';
import { AppError } from '../../http/errors';
import { listQuery, projectionQuery, type ListQuery, type Projection } from '../../scim/attributes';
import { etagOf, type Directory } from '../../scim/directory';
import { listResponse, resourceTypes, schemaResources, serviceProviderConfig } from '../../scim/discovery';
import { createScimGroup, deleteScimGroup, getScimGroup, listScimGroups, patchScimGroup, replaceScimGroup } from '../../scim/groups';
import { patchBody, type PatchBody } from '../../scim/patch';
import { resourceBody } from '../../scim/user-input';
import {
  createScimUser,
  deleteScimUser,
  getScimUser,
  listScimUsers,
  patchScimUser,
  projectUser,
  replaceScimUser,
  userResource,
} from '../../scim/users';

/** The caller of the SCIM surface: the organization its token names (null on the public discovery routes). */
export interface ScimAuth {
  instance: { id: string };
  organizationId: string;
  tokenId: string;
  ifMatch: string | null;
  ifNoneMatch: string | null;
  baseUrl: string;
}

const resource = z.looseObject({}).meta({ description: 'A SCIM resource (RFC 7643)' });
type Body = Record<string, unknown>;

const dirOf = (auth: ScimAuth, actor: Actor): Directory => ({
  instanceId: auth.instance.id,
  organizationId: auth.organizationId,
  baseUrl: auth.baseUrl,
  audit: auditContextOf(actor),
  ifMatch: auth.ifMatch,
});

/** A single resource with its ETag (and Location when created). */
const withVersion = (value: Record<string, unknown>, version: number, status = 200, location?: string) =>
  jsonResult(value, status, { etag: etagOf(version), ...(location ? { location } : {}) });

/** A read answers 304 without a body when If-None-Match names its current version (RFC 7644 §3.14, RFC 9110 §13.1.2: weak comparison). */
function readWithVersion(auth: ScimAuth, value: Record<string, unknown>, version: number) {
  const etag = etagOf(version);
  const tags = (auth.ifNoneMatch ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (tags.includes('*') || tags.includes(etag.replace(/^W\//, '')))
    return bytesResult(new Uint8Array(0), 'application/scim+json', { etag }, 304);
  return withVersion(value, version);
}

const baseOf = (auth: ScimAuth | null, publicUrl: string) => auth?.baseUrl ?? `${publicUrl}/scim/v2`;

export const scimDiscovery = {
  // --- Discovery (public: RFC 7644 §4 lets clients read them before authenticating) ---
  getServiceProviderConfig: endpoint<ScimAuth | null>({
    summary: 'SCIM features this service provider supports',
    response: resource,
    handle: async ({ deps, auth }) => serviceProviderConfig(baseOf(auth, deps.config.PUBLIC_URL)),
  }),
  listResourceTypes: endpoint<ScimAuth | null>({
    summary: 'SCIM resource types: User (with the enterprise extension) and Group',
    response: resource,
    handle: async ({ deps, auth }) => {
      const list = resourceTypes(baseOf(auth, deps.config.PUBLIC_URL));
      return listResponse(list, list.length, 1);
    },
  }),
  getResourceType: endpoint<ScimAuth | null, never, never, 'id'>({
    summary: 'One SCIM resource type',
    response: resource,
    handle: async ({ deps, auth, params }) => {
      const found = resourceTypes(baseOf(auth, deps.config.PUBLIC_URL)).find((r) => r.id === params.id);
      if (!found) throw new AppError('NOT_FOUND', { message: `No resource type ${params.id}.` });
      return found;
    },
  }),
  listSchemas: endpoint<ScimAuth | null>({
    summary: 'SCIM schemas: exactly the attributes supported',
    response: resource,
    handle: async ({ deps, auth }) => {
      const list = schemaResources(baseOf(auth, deps.config.PUBLIC_URL));
      return listResponse(list, list.length, 1);
    },
  }),
  getSchema: endpoint<ScimAuth | null, never, never, 'id'>({
    summary: 'One SCIM schema',
    response: resource,
    handle: async ({ deps, auth, params }) => {
      const found = schemaResources(baseOf(auth, deps.config.PUBLIC_URL)).find((s) => s.id.toLowerCase() === params.id.toLowerCase());
      if (!found) throw new AppError('NOT_FOUND', { message: `No schema ${params.id}.` });
      return found;
    },
  }),
};

export const scimUserResources = {
  // --- Users ---
  list: endpoint<ScimAuth, never, ListQuery>({
    summary: 'List the directory’s users: filter, startIndex (1-based), count, attributes, excludedAttributes',
    query: listQuery,
    response: resource,
    handle: ({ deps, auth, actor, query }) => listScimUsers(deps, dirOf(auth, actor), query),
  }),
  create: endpoint<ScimAuth, Body>({
    summary: 'Provision a user: link the instance’s user holding userName verified, or create one; it joins the organization',
    audit: { action: 'scim_user.created' },
    body: resourceBody,
    response: resource,
    status: 201,
    handle: async ({ deps, auth, actor, body }) => {
      const dir = dirOf(auth, actor);
      const row = await createScimUser(deps, dir, body);
      const r = userResource(row, dir);
      return withVersion(r, row.version, 201, r.meta.location);
    },
  }),
  get: endpoint<ScimAuth, never, Projection, 'id'>({
    summary: 'Get a user of the directory',
    query: projectionQuery,
    response: resource,
    handle: async ({ deps, auth, actor, params, query }) => {
      const dir = dirOf(auth, actor);
      const row = await getScimUser(deps, dir, params.id);
      return readWithVersion(auth, projectUser(row, dir, query), row.version);
    },
  }),
  replace: endpoint<ScimAuth, Body, never, 'id'>({
    summary: 'Replace a user (PUT); If-Match is honoured',
    audit: { action: 'scim_user.replaced' },
    body: resourceBody,
    response: resource,
    handle: async ({ deps, auth, actor, params, body }) => {
      const dir = dirOf(auth, actor);
      const row = await replaceScimUser(deps, dir, params.id, body);
      return withVersion(userResource(row, dir), row.version);
    },
  }),
  patch: endpoint<ScimAuth, PatchBody, never, 'id'>({
    summary: 'Patch a user (add/replace/remove, Okta and Entra shapes); If-Match is honoured',
    audit: { action: 'scim_user.patched' },
    body: patchBody,
    response: resource,
    handle: async ({ deps, auth, actor, params, body }) => {
      const dir = dirOf(auth, actor);
      const row = await patchScimUser(deps, dir, params.id, body);
      return withVersion(userResource(row, dir), row.version);
    },
  }),
  delete: endpoint<ScimAuth, never, never, 'id'>({
    summary: 'Deprovision a user: the membership goes; a user the directory created that belongs nowhere else is deleted',
    audit: { action: 'scim_user.deleted' },
    response: resource,
    status: 204,
    handle: async ({ deps, auth, actor, params }) => {
      await deleteScimUser(deps, dirOf(auth, actor), params.id);
      return noContent();
    },
  }),
};

export const scimGroupResources = {
  // --- Groups ---
  list: endpoint<ScimAuth, never, ListQuery>({
    summary: 'List the directory’s groups: filter, startIndex, count, attributes, excludedAttributes',
    query: listQuery,
    response: resource,
    handle: ({ deps, auth, actor, query }) => listScimGroups(deps, dirOf(auth, actor), query),
  }),
  create: endpoint<ScimAuth, Body>({
    summary: 'Create a group with its members',
    audit: { action: 'scim_group.created' },
    body: resourceBody,
    response: resource,
    status: 201,
    handle: async ({ deps, auth, actor, body }) => {
      const dir = dirOf(auth, actor);
      const { group, resource: r } = await createScimGroup(deps, dir, body);
      return withVersion(r, group.version, 201, `${dir.baseUrl}/Groups/${group.id}`);
    },
  }),
  get: endpoint<ScimAuth, never, Projection, 'id'>({
    summary: 'Get a group (excludedAttributes=members skips its members)',
    query: projectionQuery,
    response: resource,
    handle: async ({ deps, auth, actor, params, query }) => {
      const { group, resource: r } = await getScimGroup(deps, dirOf(auth, actor), params.id, query);
      return readWithVersion(auth, r, group.version);
    },
  }),
  replace: endpoint<ScimAuth, Body, never, 'id'>({
    summary: 'Replace a group and its members (PUT); If-Match is honoured',
    audit: { action: 'scim_group.replaced' },
    body: resourceBody,
    response: resource,
    handle: async ({ deps, auth, actor, params, body }) => {
      const { group, resource: r } = await replaceScimGroup(deps, dirOf(auth, actor), params.id, body);
      return withVersion(r, group.version);
    },
  }),
  patch: endpoint<ScimAuth, PatchBody, Projection, 'id'>({
    summary: 'Patch a group: add members, remove them by filter or value, replace them, rename',
    audit: { action: 'scim_group.patched' },
    body: patchBody,
    query: projectionQuery,
    response: resource,
    handle: async ({ deps, auth, actor, params, body, query }) => {
      const { group, resource: r } = await patchScimGroup(deps, dirOf(auth, actor), params.id, body, query);
      return withVersion(r, group.version);
    },
  }),
  delete: endpoint<ScimAuth, never, never, 'id'>({
    summary: 'Delete a group; members of a mapped group lose its role',
    audit: { action: 'scim_group.deleted' },
    response: resource,
    status: 204,
    handle: async ({ deps, auth, actor, params }) => {
      await deleteScimGroup(deps, dirOf(auth, actor), params.id);
      return noContent();
    },
  }),
};
