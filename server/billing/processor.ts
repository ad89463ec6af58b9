import type { Deps } from '../deps';
import type { TargetPolicy } from '../infra/ssrf';

/**
 * What Latchkey asks of a payment processor. Stripe is the first implementation
 * (stripe.ts); a second processor implements this interface and registers in PROCESSORS.
 */
export interface ProcessorConnection {
  secretKey: string;
  /** Null: the processor's own API. */
  apiBaseUrl: string | null;
  /** Outbound requests go through the SSRF guard with this policy. */
  policy: TargetPolicy;
  resolve: Deps['dns'];
  testTrustedCas?: Deps['testTrustedCas'];
}

/** A subscription as one processor event reports it. */
export interface SubscriptionSnapshot {
  processorSubscriptionId: string;
  processorCustomerId: string | null;
  processorPriceId: string | null;
  status: string;
  currentPeriodStart: number | null;
  currentPeriodEnd: number | null;
  cancelAt: number | null;
  canceledAt: number | null;
  /** Set by our checkout: latchkey_subject, latchkey_plan_id. */
  metadata: Record<string, string>;
}

export interface ProcessorEvent {
  id: string;
  /** When the processor created the event (ms): orders the changes of one subscription. */
  createdAt: number;
  /** A subscription change, or null for an event we do not act on. */
  change: { kind: 'created' | 'updated' | 'deleted'; subscription: SubscriptionSnapshot } | null;
}

export interface CheckoutRequest {
  priceId: string;
  subject: string;
  planId: string;
  instanceId: string;
  customerId: string | null;
  email: string | null;
  successUrl: string;
  cancelUrl: string;
}

export class SignatureInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignatureInvalid';
  }
}

export interface BillingProcessor {
  name: string;
  /** Verifies the signature over the raw body (throws SignatureInvalid) and reads the event. */
  parseWebhook(rawBody: string, header: (name: string) => string | undefined, signingSecret: string, nowMs: number): ProcessorEvent;
  createCheckout(conn: ProcessorConnection, req: CheckoutRequest): Promise<{ id: string; url: string }>;
  createPortal(conn: ProcessorConnection, req: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
}
