import { index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { instanceRef, instances } from './instances';

/** One price of a plan, as the processor knows it (a Stripe `price_…`). */
export interface PlanPrice {
  processor_price_id: string;
  /** Minor units (cents). */
  amount: number;
  currency: string;
  interval: 'month' | 'year';
}

/** Plans (`plan_…`) a user or an organization subscribes to; `features` are the customer's own keys. */
export const billingPlans = pgTable(
  'billing_plans',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    key: text('key').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    /** Who subscribes: `user` or `organization`. */
    payer: text('payer').$type<'user' | 'organization'>().notNull(),
    prices: jsonb('prices').$type<PlanPrice[]>().notNull(),
    features: jsonb('features').$type<string[]>().notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('billing_plans_key_uq').on(t.instanceId, t.key), index('billing_plans_instance_idx').on(t.instanceId, t.id)],
);

/** The instance's payment-processor settings; the secrets are encrypted with ENCRYPTION_KEY and never shown again. */
export const billingSettings = pgTable('billing_settings', {
  instanceId: text('instance_id')
    .primaryKey()
    .references(() => instances.id, { onDelete: 'cascade' }),
  processor: text('processor').$type<'stripe'>().notNull(),
  secretKeyEncrypted: text('secret_key_encrypted'),
  webhookSecretEncrypted: text('webhook_secret_encrypted'),
  /** Null: the processor's own API. */
  apiBaseUrl: text('api_base_url'),
  updatedAt: millis('updated_at').notNull(),
});

/**
 * Subscriptions (`sub_…`) as the processor reports them. `processor_updated_at` is the
 * creation time of the last processor event applied: an older event never overwrites a
 * newer state. A deleted subscription stays as a tombstone (`deleted_at`), so an event
 * arriving after its deletion cannot bring it back.
 */
export const billingSubscriptions = pgTable(
  'billing_subscriptions',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    subject: text('subject').notNull(),
    planId: text('plan_id'),
    status: text('status').notNull(),
    currentPeriodStart: millis('current_period_start'),
    currentPeriodEnd: millis('current_period_end'),
    cancelAt: millis('cancel_at'),
    canceledAt: millis('canceled_at'),
    processor: text('processor').notNull(),
    processorSubscriptionId: text('processor_subscription_id').notNull(),
    processorCustomerId: text('processor_customer_id'),
    processorPriceId: text('processor_price_id'),
    processorUpdatedAt: millis('processor_updated_at').notNull(),
    deletedAt: millis('deleted_at'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('billing_subscriptions_processor_uq').on(t.instanceId, t.processor, t.processorSubscriptionId),
    index('billing_subscriptions_subject_idx').on(t.instanceId, t.subject, t.id),
  ],
);

/** Processor events already applied, by id: a redelivery changes nothing. */
export const billingProcessorEvents = pgTable(
  'billing_processor_events',
  {
    instanceId: instanceRef('cascade'),
    processor: text('processor').notNull(),
    eventId: text('event_id').notNull(),
    receivedAt: millis('received_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.processor, t.eventId] })],
);
