import { EMAIL_TEMPLATES, SMS_TEMPLATES, type EmailTemplateName, type SmsTemplateName } from '../../emails';
import { DEFAULT_LOCALE } from '../instances/locales';
import type { EmailTemplate, EmailTemplateParts, SmsTemplate } from './render';

/** `fr-CA` → [`fr-ca`, `fr`, `en`]: the locales tried, most specific first. */
export function localeChain(locale: string | null | undefined): string[] {
  const chain: string[] = [];
  const tag = (locale ?? '').trim().toLowerCase().replace(/_/g, '-');
  if (/^[a-z]{2,3}(-[a-z0-9]{1,8})*$/.test(tag)) {
    const parts = tag.split('-');
    for (let i = parts.length; i > 0; i--) chain.push(parts.slice(0, i).join('-'));
  }
  if (!chain.includes(DEFAULT_LOCALE)) chain.push(DEFAULT_LOCALE);
  return chain;
}

function pick<T>(locales: Record<string, T>, locale: string | null | undefined): { locale: string; copy: T } {
  const found = localeChain(locale).find((l) => Object.prototype.hasOwnProperty.call(locales, l));
  const resolved = found ?? DEFAULT_LOCALE;
  return { locale: resolved, copy: locales[resolved]! };
}

/**
 * The built-in email template for a name and locale (falling back to the language, then
 * English). The mailer resolves an instance's overrides first (server/localization/resolve.ts).
 */
export function builtInEmailTemplate(name: EmailTemplateName, locale?: string | null): EmailTemplate {
  const def = EMAIL_TEMPLATES[name];
  if (!def) throw new Error(`Unknown email template: ${name}`);
  const { locale: resolved, copy } = pick<EmailTemplateParts>(def.locales, locale);
  return { name, locale: resolved, variables: def.variables, subject: copy.subject, mjml: copy.mjml, text: copy.text };
}

export function builtInSmsTemplate(name: SmsTemplateName, locale?: string | null): SmsTemplate {
  const def = SMS_TEMPLATES[name];
  if (!def) throw new Error(`Unknown SMS template: ${name}`);
  const { locale: resolved, copy } = pick<{ body: string }>(def.locales, locale);
  return { name, locale: resolved, variables: def.variables, body: copy.body };
}
