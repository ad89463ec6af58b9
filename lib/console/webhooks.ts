/** The dashboard API's webhook answers (types generated from server/webhooks/schemas.ts) and the event catalog. */
import type { InstanceResponse } from './types';
import type { WebhookMessage } from '@/lib/generated/dashboard';

export { EVENT_TYPES } from '../../server/events/types';
export type { WebhookEndpoint, WebhookMessage } from '@/lib/generated/dashboard';
export type CreatedWebhookEndpoint = InstanceResponse<'POST /webhook_endpoints'>;
export type WebhookSecret = InstanceResponse<'GET /webhook_endpoints/{id}/secret'>;
export type WebhookAttempt = WebhookMessage['attempts'][number];
