import type { EventType } from '../events/types';

/**
 * Example `data` for each event type, sent by "send a test event" so a receiver can be built
 * before the real thing happens. The resource's main fields, with ids ending in `_example`
 * (never a real row of the instance).
 */
const AT = 1_767_225_600_000; // 2026-01-01T00:00:00Z

const user = {
  object: 'user',
  id: 'user_example',
  first_name: 'Ada',
  last_name: 'Lovelace',
  username: null,
  primary_email_address_id: 'idn_example',
  email_addresses: [
    {
      object: 'email_address',
      id: 'idn_example',
      email_address: 'ada@example.com',
      verification: { status: 'verified', strategy: 'email_code' },
    },
  ],
  phone_numbers: [],
  public_metadata: {},
  private_metadata: {},
  unsafe_metadata: {},
  banned: false,
  locked: false,
  created_at: AT,
  updated_at: AT,
};
const session = {
  object: 'session',
  id: 'sess_example',
  user_id: user.id,
  client_id: 'client_example',
  status: 'active',
  last_active_at: AT,
  expire_at: AT + 7 * 86_400_000,
  created_at: AT,
  updated_at: AT,
};
const organization = {
  object: 'organization',
  id: 'org_example',
  name: 'Example Inc',
  slug: 'example-inc',
  image_url: null,
  members_count: 1,
  public_metadata: {},
  private_metadata: {},
  created_at: AT,
  updated_at: AT,
};
const publicOrganizationData = { id: organization.id, name: organization.name, slug: organization.slug, image_url: null };
const membership = {
  object: 'organization_membership',
  id: 'orgmem_example',
  role: 'org:admin',
  organization: publicOrganizationData,
  public_user_data: { user_id: user.id, first_name: 'Ada', last_name: 'Lovelace', identifier: 'ada@example.com' },
  created_at: AT,
  updated_at: AT,
};
const invitation = {
  object: 'organization_invitation',
  id: 'orginv_example',
  email_address: 'grace@example.com',
  role: 'org:member',
  status: 'pending',
  organization_id: organization.id,
  public_organization_data: publicOrganizationData,
  expires_at: AT + 30 * 86_400_000,
  created_at: AT,
  updated_at: AT,
};
const domain = {
  object: 'organization_domain',
  id: 'orgdmn_example',
  organization_id: organization.id,
  name: 'example.com',
  enrollment_mode: 'manual_invitation',
  verification: { status: 'verified', strategy: 'dns_record' },
  created_at: AT,
  updated_at: AT,
};
const role = {
  object: 'role',
  id: 'role_example',
  key: 'org:billing',
  name: 'Billing',
  description: 'Manages the plan',
  permissions: ['org:billing:manage'],
  created_at: AT,
  updated_at: AT,
};
const permission = {
  object: 'permission',
  id: 'perm_example',
  key: 'org:billing:manage',
  name: 'Manage billing',
  description: '',
  created_at: AT,
  updated_at: AT,
};

const BY_RESOURCE: Record<string, Record<string, unknown>> = {
  user,
  session,
  email: {
    object: 'email',
    id: 'email_example',
    to: 'ada@example.com',
    template: 'verification_code',
    subject: '123456 is your verification code',
    status: 'delivered',
    created_at: AT,
  },
  sms: { object: 'sms', id: 'sms_example', to: '+14155550100', template: 'verification_code', status: 'delivered', created_at: AT },
  organization,
  organizationMembership: membership,
  organizationInvitation: invitation,
  organizationDomain: domain,
  role,
  permission,
  waitlistEntry: {
    object: 'waitlist_entry',
    id: 'wle_example',
    email_address: 'lin@example.com',
    status: 'pending',
    created_at: AT,
    updated_at: AT,
  },
  subscription: {
    object: 'subscription',
    id: 'sub_example',
    plan_id: 'plan_example',
    payer: { type: 'organization', id: organization.id },
    status: 'active',
    created_at: AT,
    updated_at: AT,
  },
  scimToken: { object: 'scim_token', id: 'scimtok_example', organization_id: organization.id, name: 'Okta', created_at: AT },
  ssoConnection: {
    object: 'sso_connection',
    id: 'ssoc_example',
    organization_id: organization.id,
    protocol: 'saml',
    name: 'Okta',
    domains: ['example.com'],
    active: true,
    created_at: AT,
    updated_at: AT,
  },
  apiKey: { object: 'api_key', id: 'apik_example', subject: user.id, name: 'Reporting job', scopes: [], created_at: AT },
  passkey: {
    object: 'passkey',
    id: 'passkey_example',
    user_id: user.id,
    name: 'MacBook Touch ID',
    last_used_at: null,
    created_at: AT,
    updated_at: AT,
  },
  webhook: {
    object: 'webhook_endpoint',
    id: 'whep_example',
    url: 'https://example.com/webhooks',
    description: '',
    event_types: ['*'],
    disabled: false,
    created_at: AT,
    updated_at: AT,
  },
};

/** The example data of an event type (the resource its family names). */
export function exampleEventData(type: EventType): Record<string, unknown> {
  const resource = type.slice(0, type.indexOf('.'));
  const data = BY_RESOURCE[resource];
  if (!data) throw new Error(`No example for ${type}`);
  if (type === 'user.deleted' || type === 'organization.deleted' || type === 'role.deleted' || type === 'permission.deleted')
    return { object: data.object, id: data.id, deleted: true };
  if (type === 'user.banned') return { ...data, banned: true };
  if (type === 'session.revoked' || type === 'session.ended' || type === 'session.removed' || type === 'session.pending')
    return { ...data, status: type.slice('session.'.length) };
  if (type === 'organizationInvitation.accepted' || type === 'organizationInvitation.revoked')
    return { ...data, status: type.slice('organizationInvitation.'.length) };
  return data;
}
