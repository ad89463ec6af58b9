import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  revealSecret,
  rotateSecret,
  updateEndpoint,
  type WebhookInstance,
} from './webhook-endpoints';
import { listDeliveries, recoverFailed, retryMessage, sendTestEvent } from './messages';
import {
  createdEndpointSchema,
  createEndpointBody,
  deletedEndpointSchema,
  endpointListSchema,
  endpointSchema,
  listDeliveriesQuery,
  testEventBody,
  listEndpointsQuery,
  messageListSchema,
  messageSchema,
  recoverBody,
  recoverySchema,
  secretSchema,
  updateEndpointBody,
} from './schemas';

/** Which instance a surface's caller acts on, and how audit entries name the caller. */
type Caller<Auth> = (auth: Auth) => WebhookInstance;

/**
 * The webhook endpoints of one surface (BAPI, dashboard): the same bodies, answers and
 * domain calls; only the caller differs. `params.id` is the endpoint, `params.message_id` a message.
 */
export function webhookEndpointsFor<Auth>(caller: Caller<Auth>) {
  return {
    create: endpoint<Auth, z.output<typeof createEndpointBody>>({
      summary: 'Create a webhook endpoint; the answer carries its whsec_ signing secret',
      audit: { action: 'webhook_endpoint.created' },
      body: createEndpointBody,
      response: createdEndpointSchema,
      handle: ({ deps, auth, body, actor }) => createEndpoint(deps, caller(auth), body, auditContextOf(actor)),
    }),
    list: endpoint<Auth, never, z.output<typeof listEndpointsQuery>>({
      summary: 'List webhook endpoints, newest first (cursor pagination)',
      query: listEndpointsQuery,
      response: endpointListSchema,
      handle: ({ deps, auth, query }) => listEndpoints(deps, caller(auth).id, query),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a webhook endpoint',
      response: endpointSchema,
      handle: ({ deps, auth, params }) => getEndpoint(deps, caller(auth).id, params.id),
    }),
    update: endpoint<Auth, z.output<typeof updateEndpointBody>, never, 'id'>({
      summary: 'Update a webhook endpoint (url, description, event_types, disabled)',
      audit: { action: 'webhook_endpoint.updated' },
      body: updateEndpointBody,
      response: endpointSchema,
      handle: ({ deps, auth, params, body, actor }) => updateEndpoint(deps, caller(auth), params.id, body, auditContextOf(actor)),
    }),
    delete: endpoint<Auth, never, never, 'id'>({
      summary: 'Delete a webhook endpoint with its delivery log',
      audit: { action: 'webhook_endpoint.deleted' },
      response: deletedEndpointSchema,
      handle: ({ deps, auth, params, actor }) => deleteEndpoint(deps, caller(auth).id, params.id, auditContextOf(actor)),
    }),
    revealSecret: endpoint<Auth, never, never, 'id'>({
      summary: 'Reveal the signing secret of a webhook endpoint (audited)',
      response: secretSchema,
      handle: ({ deps, auth, params, actor }) => revealSecret(deps, caller(auth).id, params.id, auditContextOf(actor)),
    }),
    rotateSecret: endpoint<Auth, never, never, 'id'>({
      summary: 'Rotate the signing secret; the previous one keeps signing beside it for 24 h',
      audit: { action: 'webhook_endpoint.secret_rotated' },
      response: secretSchema,
      handle: ({ deps, auth, params, actor }) => rotateSecret(deps, caller(auth).id, params.id, auditContextOf(actor)),
    }),
    deliveries: endpoint<Auth, never, z.output<typeof listDeliveriesQuery>, 'id'>({
      summary: 'List the messages sent to an endpoint, newest first, each with every attempt',
      query: listDeliveriesQuery,
      response: messageListSchema,
      handle: ({ deps, auth, params, query }) => listDeliveries(deps, caller(auth).id, params.id, query),
    }),
    retry: endpoint<Auth, never, never, 'id' | 'message_id'>({
      summary: 'Deliver a message again now, with a fresh retry schedule and the same webhook-id',
      audit: { action: 'webhook_message.retried', target: 'message_id' },
      response: messageSchema,
      status: 202,
      handle: ({ deps, auth, params, actor }) => retryMessage(deps, caller(auth).id, params.id, params.message_id, auditContextOf(actor)),
    }),
    recover: endpoint<Auth, z.output<typeof recoverBody>, never, 'id'>({
      summary: 'Deliver again every failed message of an endpoint created since a time (ms)',
      audit: { action: 'webhook_endpoint.recovered' },
      body: recoverBody,
      response: recoverySchema,
      status: 202,
      handle: ({ deps, auth, params, body, actor }) => recoverFailed(deps, caller(auth).id, params.id, body, auditContextOf(actor)),
    }),
    test: endpoint<Auth, z.output<typeof testEventBody>, never, 'id'>({
      summary: 'Send a test event to this endpoint only: webhook.test, or an example of `event_type` (one it subscribes to)',
      audit: { action: 'webhook_endpoint.tested' },
      body: testEventBody,
      response: messageSchema,
      status: 202,
      handle: ({ deps, auth, params, body }) => sendTestEvent(deps, caller(auth).id, params.id, body.event_type),
    }),
  };
}
