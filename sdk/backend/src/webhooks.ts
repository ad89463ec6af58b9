import { Webhook } from 'standardwebhooks';

export interface WebhookEvent<T = Record<string, unknown>> {
  type: string;
  data: T;
  [field: string]: unknown;
}

/** A Fetch `Request`, or the raw body (string, exactly as received) with its headers. */
export type WebhookInput = Request | { body: string; headers: Headers | Record<string, string | string[] | undefined> };

function headerRecord(h: Headers | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (h as Headers).forEach === 'function' && typeof (h as Headers).get === 'function') {
    (h as Headers).forEach((v, k) => (out[k] = v));
    return out;
  }
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, with the endpoint's `whsec_` secret) and answers the parsed event;
 * throws `WebhookVerificationError` when it does not check out (or is older than 5 minutes).
 */
export async function verifyWebhook<T = Record<string, unknown>>(input: WebhookInput, secret: string): Promise<WebhookEvent<T>> {
  const body = input instanceof Request ? await input.text() : input.body;
  return new Webhook(secret).verify(body, headerRecord(input.headers)) as WebhookEvent<T>;
}

export { WebhookVerificationError } from 'standardwebhooks';
