import type { EmailTemplateParts, TemplateVariable } from '../server/localization/render';

/** A built-in email: its variables, and its copy per built-in locale (en, fr, de; add locales beside them). */
export interface EmailTemplateDefinition {
  name: string;
  description: string;
  variables: readonly TemplateVariable[];
  locales: { en: EmailTemplateParts } & Record<string, EmailTemplateParts>;
}

export interface SmsTemplateDefinition {
  name: string;
  description: string;
  variables: readonly TemplateVariable[];
  locales: { en: { body: string } } & Record<string, { body: string }>;
}

/** Every email names the app: the mailer fills it with the instance name. */
/** The instance's logo (branding), shown above the app name; empty when it has none. */
export const LOGO_URL = {
  name: 'logo_url',
  type: 'url',
  required: false,
  description: 'The application logo (instance branding), shown above the app name.',
  sample: 'https://example.com/logo.png',
} as const satisfies TemplateVariable;

/** The instance's support address (branding), named in the footer; empty when it has none. */
export const SUPPORT_EMAIL = {
  name: 'support_email',
  type: 'string',
  required: false,
  description: 'Where users get help (instance branding), named in the footer.',
  sample: 'support@example.com',
} as const satisfies TemplateVariable;

/** The instance's primary colour (branding) for the emails' buttons; empty: the default dark grey. */
export const BRAND_COLOR = {
  name: 'brand_color',
  type: 'string',
  required: false,
  description: 'The button colour (instance branding); empty: dark grey.',
  sample: '#4f46e5',
} as const satisfies TemplateVariable;

export const APP_NAME = {
  name: 'app_name',
  type: 'string',
  required: false,
  description: 'The application name shown in the header and the subject.',
  sample: 'Acme',
} as const satisfies TemplateVariable;

export const EXPIRES_IN_MINUTES = {
  name: 'expires_in_minutes',
  type: 'number',
  required: false,
  description: 'Minutes until the code or link expires.',
  sample: 10,
} as const satisfies TemplateVariable;

/** When, from where and on what an emailed link was asked for (sessions/user-agent.ts describeRequest). */
export const LINK_REQUEST = [
  {
    name: 'time',
    type: 'string',
    required: false,
    description: 'When the link was asked for (UTC)',
    sample: 'Sat, 22 Nov 2025 10:24:00 GMT',
  },
  {
    name: 'location',
    type: 'string',
    required: false,
    description: 'Where it was asked from: the network (/24, /48), with the country when GeoIP is set up',
    sample: '203.0.113.0/24 (FR)',
  },
  {
    name: 'device',
    type: 'string',
    required: false,
    description: 'The browser and operating system that asked',
    sample: 'Firefox on macOS',
  },
] as const satisfies readonly TemplateVariable[];
