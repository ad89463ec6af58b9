/** Names and paths of the dashboard API's organization calls (types generated from their schemas). */
import type { OrganizationDomain } from '@/lib/generated/dashboard';
import { api, pages } from './paths';
import type { InstanceItem } from './types';

export type {
  Organization,
  OrganizationDomain as Domain,
  OrganizationInvitation as Invitation,
  Permission,
  Role as OrgRole,
} from '@/lib/generated/dashboard';
export type Membership = InstanceItem<'GET /organizations/{id}/memberships'>;
export type EnrollmentMode = OrganizationDomain['enrollment_mode'];
export const ENROLLMENT_MODES = [
  'manual_invitation',
  'automatic_invitation',
  'automatic_suggestion',
] as const satisfies readonly EnrollmentMode[];

export const orgApi = {
  organizations: (accountId: string, instanceId: string) => `${api.instance(accountId, instanceId)}/organizations`,
  organization: (accountId: string, instanceId: string, orgId: string) =>
    `${orgApi.organizations(accountId, instanceId)}/${encodeURIComponent(orgId)}`,
  roles: (accountId: string, instanceId: string) => `${api.instance(accountId, instanceId)}/roles`,
  permissions: (accountId: string, instanceId: string) => `${api.instance(accountId, instanceId)}/permissions`,
};

export const orgPages = {
  organization: (accountId: string, instanceId: string, orgId: string) =>
    `${pages.instance(accountId, instanceId, 'organizations')}/${encodeURIComponent(orgId)}`,
};
