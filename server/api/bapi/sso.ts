import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import type { BapiAuth } from './authenticate';
import { createConnection, listConnections } from '../../sso/connections';
import { connectionList, connectionSchema, createConnectionBody, listConnectionsQuery } from '../../sso/schemas';
import { connectionChange, crud } from '../../sso/endpoints';

const bapiInstance = (auth: BapiAuth) => auth.instance.id;
/** BAPI: `/v1/sso_connections` (scopes sso_connections:read|write). */
export const bapiSso = {
  create: endpoint<BapiAuth, z.output<typeof createConnectionBody>>({
    summary: 'Create an SSO connection (SAML 2.0 or OIDC) for an organization’s verified domains',
    audit: { action: 'sso_connection.created', details: connectionChange },
    body: createConnectionBody,
    response: connectionSchema,
    status: 201,
    handle: ({ deps, auth, body }) => createConnection(deps, auth.instance.id, body),
  }),
  list: endpoint<BapiAuth, never, z.output<typeof listConnectionsQuery>>({
    summary: 'List SSO connections, newest first, optionally of one organization (cursor pagination)',
    query: listConnectionsQuery,
    response: connectionList,
    handle: ({ deps, auth, query }) => listConnections(deps, auth.instance.id, query),
  }),
  ...crud(bapiInstance, 'id', (): string | undefined => undefined),
};
