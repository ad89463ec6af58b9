import type { z } from 'zod';
import { endpoint, type RequestInfo } from '../http/endpoint';
import type { BapiAuth } from '../keys/bapi-auth';
import { routeInstance, type ConsoleAuth } from '../operators/console-auth';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  revealSecret,
  rotateSecret,
  updateEndpoint,
  type ActorContext,
  type WebhookInstance,
} from './endpoints';
import { listDeliveries, recoverFailed, retryMessage, sendTestEvent } from './messages';
import {
  createdEndpointSchema,
  createEndpointBody,
  deletedEndpointSchema,
  endpointListSchema,
  endpointSchema,
  listDeliveriesQuery,
  listEndpointsQuery,
  messageListSchema,
  messageSchema,
  recoverBody,
  recoverySchema,
  secretSchema,
  updateEndpointBody,
} from './schemas';

/** Which instance a surface's caller acts on, and how audit entries name the caller. */
type Caller<Auth> = (auth: Auth, request: RequestInfo) => { instance: WebhookInstance; actor: ActorContext };

/**
 * The webhook endpoints of one surface (BAPI, dashboard): the same bodies, answers and
 * domain calls; only the caller differs. `params.id` is the endpoint, `params.message_id` a message.
 */
function webhookEndpointsFor<Auth>(caller: Caller<Auth>) {
  return {
    create: endpoint<Auth, z.output<typeof createEndpointBody>>({
      summary: 'Create a webhook endpoint; the answer carries its whsec_ signing secret',
      audit: { action: 'webhook_endpoint.created' },
      body: createEndpointBody,
      response: createdEndpointSchema,
      handle: ({ deps, auth, body, request }) => {
        const c = caller(auth, request);
        return createEndpoint(deps, c.instance, body, c.actor);
      },
    }),
    list: endpoint<Auth, never, z.output<typeof listEndpointsQuery>>({
      summary: 'List webhook endpoints, newest first (cursor pagination)',
      query: listEndpointsQuery,
      response: endpointListSchema,
      handle: ({ deps, auth, query, request }) => listEndpoints(deps, caller(auth, request).instance.id, query),
    }),
    get: endpoint<Auth>({
      summary: 'Get a webhook endpoint',
      response: endpointSchema,
      handle: ({ deps, auth, params, request }) => getEndpoint(deps, caller(auth, request).instance.id, params.id!),
    }),
    update: endpoint<Auth, z.output<typeof updateEndpointBody>>({
      summary: 'Update a webhook endpoint (url, description, event_types, disabled)',
      audit: { action: 'webhook_endpoint.updated' },
      body: updateEndpointBody,
      response: endpointSchema,
      handle: ({ deps, auth, params, body, request }) => {
        const c = caller(auth, request);
        return updateEndpoint(deps, c.instance, params.id!, body, c.actor);
      },
    }),
    delete: endpoint<Auth>({
      summary: 'Delete a webhook endpoint with its delivery log',
      audit: { action: 'webhook_endpoint.deleted' },
      response: deletedEndpointSchema,
      handle: ({ deps, auth, params, request }) => {
        const c = caller(auth, request);
        return deleteEndpoint(deps, c.instance.id, params.id!, c.actor);
      },
    }),
    revealSecret: endpoint<Auth>({
      summary: 'Reveal the signing secret of a webhook endpoint (audited)',
      response: secretSchema,
      handle: ({ deps, auth, params, request }) => {
        const c = caller(auth, request);
        return revealSecret(deps, c.instance.id, params.id!, c.actor);
      },
    }),
    rotateSecret: endpoint<Auth>({
      summary: 'Rotate the signing secret; the previous one keeps signing beside it for 24 h',
      audit: { action: 'webhook_endpoint.secret_rotated' },
      response: secretSchema,
      handle: ({ deps, auth, params, request }) => {
        const c = caller(auth, request);
        return rotateSecret(deps, c.instance.id, params.id!, c.actor);
      },
    }),
    deliveries: endpoint<Auth, never, z.output<typeof listDeliveriesQuery>>({
      summary: 'List the messages sent to an endpoint, newest first, each with every attempt',
      query: listDeliveriesQuery,
      response: messageListSchema,
      handle: ({ deps, auth, params, query, request }) => listDeliveries(deps, caller(auth, request).instance.id, params.id!, query),
    }),
    retry: endpoint<Auth>({
      summary: 'Deliver a message again now, with a fresh retry schedule and the same webhook-id',
      audit: { action: 'webhook_message.retried', target: 'message_id' },
      response: messageSchema,
      status: 202,
      handle: ({ deps, auth, params, request }) => {
        const c = caller(auth, request);
        return retryMessage(deps, c.instance.id, params.id!, params.message_id!, c.actor);
      },
    }),
    recover: endpoint<Auth, z.output<typeof recoverBody>>({
      summary: 'Deliver again every failed message of an endpoint created since a time (ms)',
      audit: { action: 'webhook_endpoint.recovered' },
      body: recoverBody,
      response: recoverySchema,
      status: 202,
      handle: ({ deps, auth, params, body, request }) => {
        const c = caller(auth, request);
        return recoverFailed(deps, c.instance.id, params.id!, body, c.actor);
      },
    }),
    test: endpoint<Auth>({
      summary: 'Emit webhook.test to this endpoint only',
      audit: { action: 'webhook_endpoint.tested' },
      response: messageSchema,
      status: 202,
      handle: ({ deps, auth, params, request }) => sendTestEvent(deps, caller(auth, request).instance.id, params.id!),
    }),
  };
}

/** BAPI: the key's instance; audit names the key. */
export const bapiWebhooks = webhookEndpointsFor<BapiAuth>((auth, request) => ({
  instance: auth.instance,
  actor: { actor: auth.actor, ip: request.ip, userAgent: request.userAgent },
}));

/** Dashboard: the route's instance (of an account the operator belongs to); audit names the operator. */
export const dashboardWebhooks = webhookEndpointsFor<ConsoleAuth>((auth) => ({
  instance: routeInstance(auth),
  actor: { actor: auth.actor, ip: auth.request.ip, userAgent: auth.request.userAgent },
}));
