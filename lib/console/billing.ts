/** The billing answers (types generated from server/billing/schemas.ts), shared by the console and the hosted profile. */
import type { FapiResponse } from '@/lib/generated/fapi';

export type { BillingSettings, Plan } from '@/lib/generated/dashboard';
export type BillingStatus = FapiResponse<'GET /v1/me/billing'>;
