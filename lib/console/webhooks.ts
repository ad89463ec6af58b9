/** The dashboard API's webhook answers (types generated from server/webhooks/schemas.ts) and the event catalog. */
import type { InstanceResponse } from './types';

export { EVENT_TYPES } from '../../server/events/types';
export type { WebhookEndpoint, WebhookMessage } from '@/lib/generated/dashboard';
export type CreatedWebhookEndpoint = InstanceResponse<'POST /webhook_endpoints'>;
export type WebhookSecret = InstanceResponse<'GET /webhook_endpoints/{id}/secret'>;
