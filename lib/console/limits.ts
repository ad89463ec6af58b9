/** The dashboard API's rate-limit policy and network ACLs (types generated from server/limits/schemas.ts). */
import type { NetworkAcl, RateLimitPolicy } from '@/lib/generated/dashboard';

export const BUDGET_NAMES = [
  'sign_in_per_ip',
  'sign_up_per_ip',
  'attempts_per_ip',
  'verification_sends_per_ip',
  'federation_per_ip',
  'invitations_per_user',
  'invitations_per_organization',
  'bapi_per_key',
] as const satisfies readonly (keyof RateLimitPolicy['budgets'])[];

export type { NetworkAcl, RateLimitPolicy } from '@/lib/generated/dashboard';

export const ACL_SURFACES = ['bapi', 'fapi', 'oidc', 'sso', 'lti', 'scim'] as const satisfies readonly NetworkAcl['surfaces'][number][];
