/** Shapes of the billing answers (server/billing/schemas.ts), shared by the console and the hosted profile. */
export type PlanPrice = { processor_price_id: string; amount: number; currency: string; interval: 'month' | 'year' };

export type Plan = {
  object: 'plan';
  id: string;
  key: string;
  name: string;
  description: string | null;
  payer: 'user' | 'organization';
  prices: PlanPrice[];
  features: string[];
  created_at: number;
  updated_at: number;
};

export type Subscription = {
  object: 'subscription';
  id: string;
  subject: string;
  plan: { id: string; key: string; name: string; features: string[] } | null;
  status: string;
  current_period_start: number | null;
  current_period_end: number | null;
  cancel_at: number | null;
  canceled_at: number | null;
  deleted: boolean;
  processor: string;
  processor_subscription_id: string;
  processor_customer_id: string | null;
  processor_price_id: string | null;
  created_at: number;
  updated_at: number;
};

export type BillingStatus = { object: 'billing_status'; subject: string; subscription: Subscription | null };

export type BillingSettings = {
  object: 'billing_settings';
  processor: 'stripe';
  secret_key_set: boolean;
  webhook_signing_secret_set: boolean;
  api_base_url: string | null;
  webhook_url: string;
  updated_at: number | null;
};
