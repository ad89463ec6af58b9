/** The dashboard API's rate-limit policy and network ACL shapes (server/limits/schemas.ts). */
export const BUDGET_NAMES = ['sign_in_per_ip', 'sign_up_per_ip', 'attempts_per_ip', 'verification_sends_per_ip', 'federation_per_ip', 'invitations_per_user', 'invitations_per_organization', 'bapi_per_key'] as const;
export type BudgetName = (typeof BUDGET_NAMES)[number];

export interface Budget {
  limit: number;
  default: number;
  min: number;
  max: number;
  window_seconds: number;
  per: 'ip' | 'key' | 'user' | 'organization';
  description: string;
}

export interface RateLimitPolicy {
  object: 'rate_limit_policy';
  budgets: Record<BudgetName, Budget>;
  updated_at: number | null;
}

export const ACL_SURFACES = ['bapi', 'fapi', 'oidc', 'sso', 'lti', 'scim'] as const;

export interface NetworkAcl {
  object: 'network_acl';
  id: string;
  action: 'allow' | 'deny';
  cidr: string;
  surfaces: (typeof ACL_SURFACES)[number][];
  description: string;
  created_at: number;
  updated_at: number;
}
