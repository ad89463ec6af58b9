import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import type { BapiAuth } from './authenticate';
import { webhookAckSchema } from '../../billing/schemas';
import { receiveProcessorWebhook } from '../../billing/subscriptions';
import { billingEndpointsFor } from '../../billing/endpoints';

export const bapiBilling = {
  ...billingEndpointsFor<BapiAuth>((auth) => auth.instance),
  /** Public: Stripe calls it, and its signature over the raw body is the credential. */
  stripeWebhook: endpoint<BapiAuth | null, Record<string, unknown>, never, 'instance_id'>({
    summary:
      'Receive the payment processor’s events (Stripe-Signature verified over the raw body; 400 signature_invalid; idempotent on the event id)',
    audit: { unaudited: 'the processor’s own events, recorded by id; each subscription change emits its event' },
    body: z.record(z.string(), z.unknown()),
    params: z.object({ instance_id: z.string().min(1).max(64) }),
    response: webhookAckSchema,
    handle: ({ deps, params, raw }) => receiveProcessorWebhook(deps, 'stripe', params.instance_id, raw),
  }),
};
