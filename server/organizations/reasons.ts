/**
 * Every `meta.reason` the organization routes answer with. Clients branch on these:
 * a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  organizations_disabled: 'organizations_disabled',
  organization_creation_disabled: 'organization_creation_disabled',
  missing_permission: 'missing_permission',
  already_member: 'already_member',
  membership_limit: 'membership_limit',
  last_admin: 'last_admin',
  duplicate: 'duplicate',
  duplicate_invitation: 'duplicate_invitation',
  not_allowed: 'not_allowed',
  invitation_accepted: 'invitation_accepted',
  invitation_revoked: 'invitation_revoked',
  invitation_expired: 'invitation_expired',
  duplicate_domain: 'duplicate_domain',
  domain_taken: 'domain_taken',
  public_email_domain: 'public_email_domain',
  wrong_domain: 'wrong_domain',
  txt_record_not_found: 'txt_record_not_found',
  suggestion_accepted: 'suggestion_accepted',
  membership_request_answered: 'membership_request_answered',
  unknown_role: 'unknown_role',
  unknown_permission: 'unknown_permission',
  reserved: 'reserved',
  system_role: 'system_role',
  system_permission: 'system_permission',
  role_in_use: 'role_in_use',
  admin_needs_system_permissions: 'admin_needs_system_permissions',
  sso_required: 'sso_required',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    organizations: typeof REASONS;
  }
}
