/**
 * Every `meta.reason` the rate-limit policy and network ACL routes and guard answer with.
 * Clients branch on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  invalid_cidr: 'invalid_cidr',
  denied_by_rule: 'denied_by_rule',
  not_in_allow_list: 'not_in_allow_list',
  too_many_rules: 'too_many_rules',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    limits: typeof REASONS;
  }
}
