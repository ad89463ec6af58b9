import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { EMAIL_TEMPLATES, SMS_TEMPLATES, type EmailTemplateName, type SmsTemplateName } from '../../emails';
import type { EmailTemplateParts, TemplateVariable } from './render';
import { BUILT_IN_LOCALES, normalizeLocale } from '../instances/locales';
import { messageArguments } from './icu';

/**
 * The resource catalog: every piece of copy an operator may localize, with its base copy
 * per built-in language and its variables.
 *
 * Keys: `email.<template>` (subject, MJML, text), `sms.<template>` (body) and
 * `hosted.<message key>` (one message of the hosted pages' next-intl catalog,
 * `messages/<locale>/hosted.json`, nested keys joined with dots).
 */
export type ResourceKind = 'email' | 'sms' | 'hosted';

export interface CatalogResource {
  key: string;
  kind: ResourceKind;
  description: string;
  variables: readonly TemplateVariable[];
  /** The base copy per locale that has one. */
  base: Record<string, EmailTemplateParts | { body: string } | { text: string }>;
}

const emailResource = (name: EmailTemplateName): CatalogResource => {
  const def = EMAIL_TEMPLATES[name];
  const base: CatalogResource['base'] = {};
  for (const [locale, copy] of Object.entries(def.locales))
    base[locale] = { subject: copy.subject, mjml: copy.mjml, text: copy.text ?? null };
  return { key: `email.${name}`, kind: 'email', description: def.description, variables: def.variables, base };
};

const smsResource = (name: SmsTemplateName): CatalogResource => {
  const def = SMS_TEMPLATES[name];
  const base: CatalogResource['base'] = {};
  for (const [locale, copy] of Object.entries(def.locales)) base[locale] = { body: copy.body };
  return { key: `sms.${name}`, kind: 'sms', description: def.description, variables: def.variables, base };
};

/** Where the next-intl catalogs live; tests point it elsewhere. */
const MESSAGES_DIR = path.resolve(process.cwd(), 'messages');

function flatten(value: unknown, prefix: string, out: Map<string, string>) {
  if (typeof value === 'string') out.set(prefix, value);
  else if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (/^[A-Za-z0-9_-]{1,64}$/.test(k) && k !== '__proto__' && k !== 'constructor' && k !== 'prototype')
        flatten(v, prefix ? `${prefix}.${k}` : k, out);
    }
  }
}

/** `messages/<locale>/hosted.json` of every locale directory there is, flattened to dotted keys. */
export function hostedCatalogs(dir = MESSAGES_DIR): Map<string, Map<string, string>> {
  const byLocale = new Map<string, Map<string, string>>();
  if (!existsSync(dir)) return byLocale;
  for (const entry of readdirSync(dir)) {
    const locale = normalizeLocale(entry);
    const file = path.join(dir, entry, 'hosted.json');
    if (!locale || !existsSync(file) || !statSync(file).isFile()) continue;
    try {
      const messages = new Map<string, string>();
      flatten(JSON.parse(readFileSync(file, 'utf8')), '', messages);
      byLocale.set(locale, messages);
    } catch {
      // A catalog that does not parse offers nothing to localize; next-intl reports it.
    }
  }
  return byLocale;
}

function hostedResources(dir: string): CatalogResource[] {
  const catalogs = hostedCatalogs(dir);
  const english = catalogs.get('en') ?? new Map<string, string>();
  const keys = new Set<string>(english.keys());
  for (const messages of catalogs.values()) for (const k of messages.keys()) keys.add(k);
  return [...keys].sort().map((key) => {
    const base: CatalogResource['base'] = {};
    for (const [locale, messages] of catalogs) {
      const text = messages.get(key);
      if (text !== undefined) base[locale] = { text };
    }
    const reference = english.get(key) ?? Object.values(base).map((b) => (b as { text: string }).text)[0] ?? '';
    const variables = [...messageArguments(reference)].map((name) => ({
      name,
      type: 'string' as const,
      required: false,
      description: `The {${name}} argument of the message`,
      sample: name,
    }));
    return { key: `hosted.${key}`, kind: 'hosted' as const, description: `Hosted pages: ${key}`, variables, base };
  });
}

/** Every localizable resource: emails, SMS, then hosted-page messages. */
export function resourceCatalog(opts: { messagesDir?: string } = {}): CatalogResource[] {
  return [
    ...(Object.keys(EMAIL_TEMPLATES) as EmailTemplateName[]).map(emailResource),
    ...(Object.keys(SMS_TEMPLATES) as SmsTemplateName[]).map(smsResource),
    ...hostedResources(opts.messagesDir ?? MESSAGES_DIR),
  ];
}

/** One resource of the catalog, or null for an unknown key. */
export function findResource(key: string, opts: { messagesDir?: string } = {}): CatalogResource | null {
  if (key.startsWith('email.')) {
    const name = key.slice(6);
    return Object.prototype.hasOwnProperty.call(EMAIL_TEMPLATES, name) ? emailResource(name as EmailTemplateName) : null;
  }
  if (key.startsWith('sms.')) {
    const name = key.slice(4);
    return Object.prototype.hasOwnProperty.call(SMS_TEMPLATES, name) ? smsResource(name as SmsTemplateName) : null;
  }
  if (key.startsWith('hosted.')) return hostedResources(opts.messagesDir ?? MESSAGES_DIR).find((r) => r.key === key) ?? null;
  return null;
}

export const catalogLocales = () => [...BUILT_IN_LOCALES];
