import Stripe from 'stripe';
import { guardedFetch } from '../http/outbound-fetch';
import type { BillingProcessor, CheckoutRequest, ProcessorConnection, ProcessorEvent, SubscriptionSnapshot } from './processor';
import { SignatureInvalid } from './processor';

const TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 256 * 1024;
/** Signatures older than this (seconds) are refused: Stripe's own default. */
const TOLERANCE_S = 300;

/** fetch for the Stripe SDK, through the SSRF guard (the API base is the customer's to set). */
function stripeFetch(conn: ProcessorConnection): typeof fetch {
  const fetcher = guardedFetch({
    policy: conn.policy,
    resolve: conn.resolve,
    testTrustedCas: conn.testTrustedCas,
    timeoutMs: TIMEOUT_MS,
    maxResponseBytes: MAX_RESPONSE_BYTES,
  });
  return ((input: string | URL | Request, init?: RequestInit) =>
    fetcher(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, {
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: init?.body ?? undefined,
    })) as typeof fetch;
}

function client(conn: ProcessorConnection): Stripe {
  const base = conn.apiBaseUrl ? new URL(conn.apiBaseUrl) : null;
  return new Stripe(conn.secretKey, {
    httpClient: Stripe.createFetchHttpClient(stripeFetch(conn)),
    maxNetworkRetries: 0,
    timeout: TIMEOUT_MS,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

/** Webhook verification needs no key: the SDK's helpers work on any instance. */
const webhooks = new Stripe('sk_unused').webhooks;

const ms = (s: number | null | undefined) => (typeof s === 'number' ? s * 1000 : null);

/** Period fields moved from the subscription to its items in newer Stripe API versions: read either. */
function snapshotOf(sub: Record<string, unknown>): SubscriptionSnapshot {
  const items = (sub.items as { data?: Record<string, unknown>[] } | undefined)?.data ?? [];
  const first = items[0] ?? {};
  const price = first.price as { id?: string } | string | undefined;
  const customer = sub.customer as string | { id?: string } | null | undefined;
  const metadata = Object.fromEntries(
    Object.entries((sub.metadata as Record<string, unknown>) ?? {}).filter(([, v]) => typeof v === 'string'),
  ) as Record<string, string>;
  return {
    processorSubscriptionId: String(sub.id),
    processorCustomerId: typeof customer === 'string' ? customer : (customer?.id ?? null),
    processorPriceId: typeof price === 'string' ? price : (price?.id ?? null),
    status: String(sub.status),
    currentPeriodStart: ms((sub.current_period_start ?? first.current_period_start) as number | undefined),
    currentPeriodEnd: ms((sub.current_period_end ?? first.current_period_end) as number | undefined),
    cancelAt: ms(sub.cancel_at as number | null),
    canceledAt: ms(sub.canceled_at as number | null),
    metadata,
  };
}

const KINDS: Record<string, 'created' | 'updated' | 'deleted'> = {
  'customer.subscription.created': 'created',
  'customer.subscription.updated': 'updated',
  'customer.subscription.paused': 'updated',
  'customer.subscription.resumed': 'updated',
  'customer.subscription.deleted': 'deleted',
};

const stripeProcessor: BillingProcessor = {
  name: 'stripe',

  parseWebhook(rawBody, header, signingSecret, nowMs): ProcessorEvent {
    const signature = header('stripe-signature');
    if (!signature) throw new SignatureInvalid('The Stripe-Signature header is missing.');
    let event: Stripe.Event;
    try {
      event = webhooks.constructEvent(rawBody, signature, signingSecret, TOLERANCE_S, undefined, nowMs);
    } catch (err) {
      throw new SignatureInvalid(err instanceof Error ? err.message : 'The signature does not match.');
    }
    const kind = KINDS[event.type];
    const object = event.data?.object as unknown as Record<string, unknown> | undefined;
    return {
      id: event.id,
      createdAt: event.created * 1000,
      change:
        kind && object?.object === 'subscription' && typeof object.id === 'string' ? { kind, subscription: snapshotOf(object) } : null,
    };
  },

  async createCheckout(conn, req: CheckoutRequest) {
    const metadata = { latchkey_instance_id: req.instanceId, latchkey_subject: req.subject, latchkey_plan_id: req.planId };
    const session = await client(conn).checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: req.priceId, quantity: 1 }],
      success_url: req.successUrl,
      cancel_url: req.cancelUrl,
      client_reference_id: req.subject,
      ...(req.customerId ? { customer: req.customerId } : req.email ? { customer_email: req.email } : {}),
      metadata,
      subscription_data: { metadata },
    });
    if (!session.url) throw new Error('The processor answered no checkout URL.');
    return { id: session.id, url: session.url };
  },

  async createPortal(conn, req) {
    const session = await client(conn).billingPortal.sessions.create({ customer: req.customerId, return_url: req.returnUrl });
    return { url: session.url };
  },
};

export const PROCESSORS: Record<string, BillingProcessor> = { stripe: stripeProcessor };
