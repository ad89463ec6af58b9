/** Shapes of the dashboard API's webhook answers (server/webhooks/schemas.ts) and the event catalog. */
export { EVENT_TYPES } from '../../server/events/types';

export type WebhookEndpoint = {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  description: string;
  event_types: string[];
  disabled: boolean;
  disabled_reason: 'gone' | 'failing' | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
};

export type CreatedWebhookEndpoint = WebhookEndpoint & { secret: string };

export type WebhookSecret = { object: 'webhook_endpoint_secret'; secret: string; previous_secret_expires_at: number | null };

export type WebhookAttempt = {
  object: 'webhook_attempt';
  id: string;
  url: string;
  status_code: number | null;
  duration_ms: number;
  response: string;
  error: string | null;
  created_at: number;
};

export type WebhookMessage = {
  object: 'webhook_message';
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: number | null;
  attempts: WebhookAttempt[];
  created_at: number;
  updated_at: number;
};
