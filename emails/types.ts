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
