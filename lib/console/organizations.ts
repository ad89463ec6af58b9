/** Shapes and paths of the dashboard API's organization calls (server/organizations/routes.ts, mounted in server/api/dashboard). */
import { api, pages } from './paths';

export type Organization = {
  object: 'organization';
  id: string;
  name: string;
  slug: string;
  image_url: string | null;
  public_metadata: Record<string, unknown>;
  private_metadata: Record<string, unknown>;
  max_allowed_memberships: number;
  members_count: number;
  created_by: string | null;
  created_at: number;
  updated_at: number;
};

export type Membership = {
  id: string;
  role: string;
  role_name: string | null;
  permissions: string[];
  public_user_data: { user_id: string; first_name: string | null; last_name: string | null; identifier: string };
  created_at: number;
};

export type Invitation = {
  id: string;
  email_address: string;
  role: string;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  expires_at: number;
  created_at: number;
};

export const ENROLLMENT_MODES = ['manual_invitation', 'automatic_invitation', 'automatic_suggestion'] as const;
export type EnrollmentMode = (typeof ENROLLMENT_MODES)[number];

export type Domain = {
  id: string;
  name: string;
  enrollment_mode: EnrollmentMode;
  verification: { status: 'unverified' | 'verified'; strategy: string | null; verified_at: number | null };
  txt_record: { type: 'TXT'; name: string; value: string };
  created_at: number;
};

export type OrgRole = { id: string; key: string; name: string; description: string; permissions: string[]; is_system: boolean };
export type Permission = { id: string; key: string; name: string; description: string; type: 'system' | 'user' };
export type LightList<T> = { object: 'list'; data: T[]; has_more: boolean };

export const orgApi = {
  organizations: (accountId: string, instanceId: string) => `${api.instance(accountId, instanceId)}/organizations`,
  organization: (accountId: string, instanceId: string, orgId: string) => `${orgApi.organizations(accountId, instanceId)}/${encodeURIComponent(orgId)}`,
  roles: (accountId: string, instanceId: string) => `${api.instance(accountId, instanceId)}/roles`,
  permissions: (accountId: string, instanceId: string) => `${api.instance(accountId, instanceId)}/permissions`,
};

export const orgPages = {
  organization: (accountId: string, instanceId: string, orgId: string) => `${pages.instance(accountId, instanceId, 'organizations')}/${encodeURIComponent(orgId)}`,
};
