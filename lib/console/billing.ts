/** The billing answers (types generated from server/billing/schemas.ts), shared by the console and the hosted profile. */
import type { Plan } from '@/lib/generated/dashboard';
import type { FapiResponse } from '@/lib/generated/fapi';

export type { BillingSettings, Plan, Subscription } from '@/lib/generated/dashboard';
export type PlanPrice = Plan['prices'][number];
export type BillingStatus = FapiResponse<'GET /v1/me/billing'>;
