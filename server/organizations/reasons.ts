/**
 * Every `meta.reason` the organization routes answer with. Clients branch on these:
 * a reason is never renamed (README, "Stable reasons").
 */
export const REASONS = {
  organizations_disabled: 'organizations_disabled',
  organization_creation_disabled: 'organization_creation_disabled',
  missing_permission: 'missing_permission',
} as const;
