import { z } from 'zod';
import { cursorPageSchema, pageQuery } from '../http/pagination';

const key = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_:-]*$/, 'lowercase letters, digits, _ : and -');
const name = z.string().trim().min(1).max(256);
const description = z.string().trim().max(1024).nullable();
const features = z.array(key).max(100);
const price = z.strictObject({
  processor_price_id: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7E]+$/, 'printable ASCII without spaces'),
  amount: z.number().int().min(0).max(1e10),
  currency: z.string().regex(/^[a-z]{3}$/, 'an ISO 4217 code in lowercase'),
  interval: z.enum(['month', 'year']),
});
const prices = z.array(price).max(20);

export const createPlanBody = z.strictObject({
  key,
  name,
  description: description.optional(),
  payer: z.enum(['user', 'organization']),
  prices: prices.optional(),
  features: features.optional(),
});

/** The key and the payer are fixed once a plan exists: subscriptions and claims name them. */
export const updatePlanBody = z.strictObject({
  name: name.optional(),
  description: description.optional(),
  prices: prices.optional(),
  features: features.optional(),
});

export const listPlansQuery = z.strictObject({ ...pageQuery, payer: z.enum(['user', 'organization']).optional() });

export const planSchema = z
  .object({
    object: z.literal('plan'),
    id: z.string(),
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    payer: z.enum(['user', 'organization']),
    prices: z.array(
      z.object({ processor_price_id: z.string(), amount: z.number().int(), currency: z.string(), interval: z.enum(['month', 'year']) }),
    ),
    features: z.array(z.string()),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Plan' });
export const planListSchema = cursorPageSchema(planSchema);

/** Secrets are write-only: a string sets one, null clears it; neither is ever shown again. */
export const updateBillingSettingsBody = z.strictObject({
  processor: z.enum(['stripe']).optional(),
  secret_key: z
    .string()
    .max(255)
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'a Stripe secret or restricted key (sk_… or rk_…)')
    .nullable()
    .optional(),
  webhook_signing_secret: z
    .string()
    .max(255)
    .regex(/^whsec_[A-Za-z0-9+/=_-]+$/, 'a Stripe webhook signing secret (whsec_…)')
    .nullable()
    .optional(),
  api_base_url: z.string().max(2048).nullable().optional().meta({
    description:
      'The processor API base; null: the processor’s own. For tests and proxies; a private or non-https one is refused like a webhook target (422 invalid_url).',
  }),
});

export const billingSettingsSchema = z
  .object({
    object: z.literal('billing_settings'),
    processor: z.enum(['stripe']),
    secret_key_set: z.boolean(),
    webhook_signing_secret_set: z.boolean(),
    api_base_url: z.string().nullable(),
    webhook_url: z.string(),
    updated_at: z.number().int().nullable(),
  })
  .meta({ id: 'BillingSettings' });

const subscriptionSchema = z
  .object({
    object: z.literal('subscription'),
    id: z.string(),
    subject: z.string(),
    plan: z.object({ id: z.string(), key: z.string(), name: z.string(), features: z.array(z.string()) }).nullable(),
    status: z.string(),
    current_period_start: z.number().int().nullable(),
    current_period_end: z.number().int().nullable(),
    cancel_at: z.number().int().nullable(),
    canceled_at: z.number().int().nullable(),
    deleted: z.boolean(),
    processor: z.string(),
    processor_subscription_id: z.string(),
    processor_customer_id: z.string().nullable(),
    processor_price_id: z.string().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Subscription' });
export const subscriptionListSchema = cursorPageSchema(subscriptionSchema);

export const listSubscriptionsQuery = z.strictObject({
  ...pageQuery,
  subject: z.string().min(1).max(64).optional(),
  status: z.string().min(1).max(32).optional(),
});

export const webhookAckSchema = z.object({ received: z.literal(true), applied: z.boolean() });

/** Where the processor sends the customer back; handed to the processor, never followed by us. */
const returnUrl = z.url({ protocol: /^https?$/ }).max(2048);
export const checkoutBody = z.strictObject({
  plan: z.string().min(1).max(64).meta({ description: 'The plan’s key or id.' }),
  interval: z.enum(['month', 'year']).optional(),
  success_url: returnUrl,
  cancel_url: returnUrl,
});
export const portalBody = z.strictObject({ return_url: returnUrl });
export const checkoutSchema = z.object({ object: z.literal('checkout_session'), id: z.string(), url: z.string() });
export const portalSchema = z.object({ object: z.literal('billing_portal_session'), url: z.string() });

/** What the hosted profile shows: the subject's current plan, if any. */
export const currentPlanSchema = z.object({
  object: z.literal('billing_status'),
  subject: z.string(),
  subscription: subscriptionSchema.nullable(),
});
