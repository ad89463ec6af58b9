import type { z } from 'zod';
import { endpoint, type RequestInfo } from '../http/endpoint';
import type { BapiAuth } from '../keys/bapi-auth';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  revealSecret,
  rotateSecret,
  updateEndpoint,
  type ActorContext,
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

const actor = (auth: BapiAuth, request: RequestInfo): ActorContext => ({ actor: auth.actor, ip: request.ip, userAgent: request.userAgent });

export const createWebhookEndpointEndpoint = endpoint<BapiAuth, z.output<typeof createEndpointBody>>({
  summary: 'Create a webhook endpoint; the answer carries its whsec_ signing secret',
  body: createEndpointBody,
  response: createdEndpointSchema,
  handle: ({ deps, auth, body, request }) => createEndpoint(deps, auth.instance, body, actor(auth, request)),
});

export const listWebhookEndpointsEndpoint = endpoint<BapiAuth, never, z.output<typeof listEndpointsQuery>>({
  summary: 'List webhook endpoints, newest first (cursor pagination)',
  query: listEndpointsQuery,
  response: endpointListSchema,
  handle: ({ deps, auth, query }) => listEndpoints(deps, auth.instance.id, query),
});

export const getWebhookEndpointEndpoint = endpoint<BapiAuth>({
  summary: 'Get a webhook endpoint',
  response: endpointSchema,
  handle: ({ deps, auth, params }) => getEndpoint(deps, auth.instance.id, params.id!),
});

export const updateWebhookEndpointEndpoint = endpoint<BapiAuth, z.output<typeof updateEndpointBody>>({
  summary: 'Update a webhook endpoint (url, description, event_types, disabled)',
  body: updateEndpointBody,
  response: endpointSchema,
  handle: ({ deps, auth, params, body, request }) => updateEndpoint(deps, auth.instance, params.id!, body, actor(auth, request)),
});

export const deleteWebhookEndpointEndpoint = endpoint<BapiAuth>({
  summary: 'Delete a webhook endpoint with its delivery log',
  response: deletedEndpointSchema,
  handle: ({ deps, auth, params, request }) => deleteEndpoint(deps, auth.instance.id, params.id!, actor(auth, request)),
});

export const revealWebhookSecretEndpoint = endpoint<BapiAuth>({
  summary: 'Reveal the signing secret of a webhook endpoint (audited)',
  response: secretSchema,
  handle: ({ deps, auth, params, request }) => revealSecret(deps, auth.instance.id, params.id!, actor(auth, request)),
});

export const rotateWebhookSecretEndpoint = endpoint<BapiAuth>({
  summary: 'Rotate the signing secret; the previous one keeps signing beside it for 24 h',
  response: secretSchema,
  handle: ({ deps, auth, params, request }) => rotateSecret(deps, auth.instance.id, params.id!, actor(auth, request)),
});

export const listWebhookDeliveriesEndpoint = endpoint<BapiAuth, never, z.output<typeof listDeliveriesQuery>>({
  summary: 'List the messages sent to an endpoint, newest first, each with every attempt',
  query: listDeliveriesQuery,
  response: messageListSchema,
  handle: ({ deps, auth, params, query }) => listDeliveries(deps, auth.instance.id, params.id!, query),
});

export const retryWebhookMessageEndpoint = endpoint<BapiAuth>({
  summary: 'Deliver a message again now, with a fresh retry schedule and the same webhook-id',
  response: messageSchema,
  status: 202,
  handle: ({ deps, auth, params, request }) => retryMessage(deps, auth.instance.id, params.id!, params.message_id!, actor(auth, request)),
});

export const recoverWebhookMessagesEndpoint = endpoint<BapiAuth, z.output<typeof recoverBody>>({
  summary: 'Deliver again every failed message of an endpoint created since a time (ms)',
  body: recoverBody,
  response: recoverySchema,
  status: 202,
  handle: ({ deps, auth, params, body, request }) => recoverFailed(deps, auth.instance.id, params.id!, body, actor(auth, request)),
});

export const testWebhookEndpointEndpoint = endpoint<BapiAuth>({
  summary: 'Emit webhook.test to this endpoint only',
  response: messageSchema,
  status: 202,
  handle: ({ deps, auth, params }) => sendTestEvent(deps, auth.instance.id, params.id!),
});
