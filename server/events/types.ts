/** The contract's event catalog. A new type is an additive change. */
export const EVENT_TYPES = [
  'user.created', 'user.updated', 'user.deleted', 'user.banned', 'user.unbanned',
  'session.created', 'session.revoked', 'session.ended', 'session.pending', 'session.removed',
  'email.created', 'sms.created',
  'organization.created', 'organization.updated', 'organization.deleted',
  'organizationMembership.created', 'organizationMembership.updated', 'organizationMembership.deleted',
  'organizationInvitation.created', 'organizationInvitation.accepted', 'organizationInvitation.revoked',
  'organizationDomain.created', 'organizationDomain.updated', 'organizationDomain.deleted',
  'role.created', 'role.updated', 'role.deleted',
  'permission.created', 'permission.updated', 'permission.deleted',
  'waitlistEntry.created', 'waitlistEntry.updated',
  'subscription.created', 'subscription.updated', 'subscription.deleted',
  'scimToken.created', 'scimToken.revoked',
  'ssoConnection.created', 'ssoConnection.updated', 'ssoConnection.deleted',
  'webhook.test',
  'apiKey.created', 'apiKey.revoked',
  'passkey.created', 'passkey.updated', 'passkey.deleted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
