/**
 * The per-instance navigation of the console sidebar, in order. `segment` is the path
 * under `/accounts/<a>/instances/<i>` ('' = overview); `messageKey` is a full next-intl key
 * (any namespace), so a feature adds its entry here and its label in its own catalog.
 * `group` places it under a heading of the sidebar (none: above the groups).
 */
export type InstanceNavGroup = 'people' | 'configure' | 'developers' | 'monitor';
export type InstanceNavEntry = { segment: string; messageKey: string; group?: InstanceNavGroup; testOnly?: boolean };

/** The sidebar's headings, in order; each label is `console.nav.groups.<group>`. */
export const INSTANCE_NAV_GROUPS: InstanceNavGroup[] = ['people', 'configure', 'developers', 'monitor'];

export const INSTANCE_NAV: InstanceNavEntry[] = [
  { segment: '', messageKey: 'console.nav.overview' },
  { segment: 'users', messageKey: 'console.nav.users', group: 'people' },
  { segment: 'organizations', messageKey: 'organizations.nav.organizations', group: 'people' },
  { segment: 'roles', messageKey: 'organizations.nav.roles', group: 'people' },
  { segment: 'waitlist', messageKey: 'waitlist.nav', group: 'people' },
  { segment: 'settings', messageKey: 'console.nav.settings', group: 'configure' },
  { segment: 'social', messageKey: 'social.console.nav', group: 'configure' },
  { segment: 'protection', messageKey: 'protection.nav', group: 'configure' },
  { segment: 'limits', messageKey: 'limits.nav', group: 'configure' },
  { segment: 'templates', messageKey: 'templates.nav.templates', group: 'configure' },
  { segment: 'localizations', messageKey: 'templates.nav.localizations', group: 'configure' },
  { segment: 'billing', messageKey: 'billing.nav', group: 'configure' },
  { segment: 'api-keys', messageKey: 'apikeys.nav', group: 'developers' },
  { segment: 'webhooks', messageKey: 'webhooks.nav', group: 'developers' },
  { segment: 'oauth-applications', messageKey: 'oauth.console.nav', group: 'developers' },
  { segment: 'lti-platforms', messageKey: 'lti.nav', group: 'developers' },
  { segment: 'audit', messageKey: 'console.nav.audit', group: 'monitor' },
  { segment: 'outbox', messageKey: 'console.nav.outbox', group: 'monitor' },
];

/**
 * The settings section's sub-pages, in order: `segment` under `…/settings` ('' = General),
 * each label `console.settingsNav.<key>`. The Danger zone comes last.
 */
export const SETTINGS_NAV = [
  { segment: '', key: 'general' },
  { segment: 'sign-up', key: 'signUp' },
  { segment: 'sessions', key: 'sessions' },
  { segment: 'branding', key: 'branding' },
  { segment: 'organizations', key: 'organizations' },
  { segment: 'session-token', key: 'sessionToken' },
  { segment: 'domain', key: 'domain' },
  { segment: 'sms', key: 'sms' },
  { segment: 'danger', key: 'danger' },
] as const;
