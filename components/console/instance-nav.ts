/**
 * The per-instance navigation of the console sidebar, in order. `segment` is the path
 * under `/accounts/<a>/instances/<i>` ('' = overview); `messageKey` is a full next-intl key
 * (any namespace), so a feature adds its entry here and its label in its own catalog.
 */
export type InstanceNavEntry = { segment: string; messageKey: string; testOnly?: boolean };

export const INSTANCE_NAV: InstanceNavEntry[] = [
  { segment: '', messageKey: 'console.nav.overview' },
  { segment: 'users', messageKey: 'console.nav.users' },
  { segment: 'organizations', messageKey: 'organizations.nav.organizations' },
  { segment: 'roles', messageKey: 'organizations.nav.roles' },
  { segment: 'settings', messageKey: 'console.nav.settings' },
  { segment: 'audit', messageKey: 'console.nav.audit' },
  { segment: 'outbox', messageKey: 'console.nav.outbox' },
  { segment: 'templates', messageKey: 'templates.nav.templates' },
  { segment: 'localizations', messageKey: 'templates.nav.localizations' },
  { segment: 'webhooks', messageKey: 'webhooks.nav' },
  { segment: 'limits', messageKey: 'limits.nav' },
  { segment: 'protection', messageKey: 'protection.nav' },
  { segment: 'oauth-applications', messageKey: 'oauth.console.nav' },
  { segment: 'api-keys', messageKey: 'apikeys.nav' },
  { segment: 'billing', messageKey: 'billing.nav' },
  { segment: 'lti-platforms', messageKey: 'lti.nav' },
  { segment: 'waitlist', messageKey: 'waitlist.nav' },
  { segment: 'social', messageKey: 'social.console.nav' },
];
