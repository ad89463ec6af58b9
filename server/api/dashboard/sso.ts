import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { notFound } from '../../http/errors';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { createConnection, listConnections } from '../../sso/connections';
import { connectionList, connectionSchema, createConnectionBody, listConnectionsQuery } from '../../sso/schemas';
import { connectionChange, crud } from '../../sso/endpoints';

const consoleInstance = (auth: ConsoleAuth) => routeInstance(auth).id;
const orgPage = listConnectionsQuery.omit({ organization_id: true });
/** Dashboard: the organization page's SSO section (`:id` the organization). */
export const dashboardSso = {
  create: endpoint<ConsoleAuth, z.output<typeof createConnectionBody>, never, 'id'>({
    summary: 'Create an SSO connection for this organization',
    audit: { action: 'sso_connection.created', details: connectionChange },
    body: createConnectionBody,
    response: connectionSchema,
    status: 201,
    handle: async ({ deps, auth, params, body }) => {
      if (body.organization_id !== params.id) throw notFound('organization');
      return createConnection(deps, consoleInstance(auth), body);
    },
  }),
  list: endpoint<ConsoleAuth, never, z.output<typeof orgPage>, 'id'>({
    summary: 'This organization’s SSO connections, newest first',
    query: orgPage,
    response: connectionList,
    handle: ({ deps, auth, params, query }) => listConnections(deps, consoleInstance(auth), { ...query, organization_id: params.id }),
  }),
  ...crud(consoleInstance, 'connection_id', (params: Record<'id', string>) => params.id),
};
