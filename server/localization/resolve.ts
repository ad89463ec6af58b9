import { and, eq, like } from 'drizzle-orm';
import { EMAIL_TEMPLATES, SMS_TEMPLATES, type EmailTemplateName, type SmsTemplateName } from '../../emails';
import type { Deps } from '../deps';
import { localizations } from '../db/schema';
import type { EmailTemplate, SmsTemplate } from './render';
import { builtInEmailTemplate, builtInSmsTemplate } from './built-in-templates';
import { languageChain } from '../instances/locales';
import type { LocalizationRow } from './overrides';

/** Where a message's copy came from: an operator's override, or the built-in copy. */
export interface Resolved<T> {
  template: T;
  source: 'override' | 'built_in';
  localizationId: string | null;
}

async function enabledOverrides(deps: Pick<Deps, 'db'>, instanceId: string, resource: string) {
  const rows = await deps.db
    .select()
    .from(localizations)
    .where(and(eq(localizations.instanceId, instanceId), eq(localizations.resource, resource), eq(localizations.enabled, true)));
  return new Map(rows.map((r) => [r.locale.toLowerCase(), r]));
}

/**
 * The first candidate locale (see localeCandidates) with copy for the resource: an
 * enabled override in that locale, else the built-in copy in it. English is always last
 * and always has built-in copy.
 */
function pick<T>(
  candidates: string[],
  overrides: Map<string, LocalizationRow>,
  builtInLocales: Record<string, unknown>,
  fromOverride: (row: LocalizationRow) => T,
  fromBuiltIn: (locale: string) => T,
): Resolved<T> {
  for (const c of [...candidates, 'en']) {
    const row = overrides.get(c);
    if (row) return { template: fromOverride(row), source: 'override', localizationId: row.id };
    if (Object.prototype.hasOwnProperty.call(builtInLocales, c))
      return { template: fromBuiltIn(c), source: 'built_in', localizationId: null };
  }
  return { template: fromBuiltIn('en'), source: 'built_in', localizationId: null };
}

export async function resolveEmailTemplate(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  name: EmailTemplateName,
  candidates: string[],
): Promise<Resolved<EmailTemplate>> {
  const def = EMAIL_TEMPLATES[name];
  return pick(
    candidates,
    await enabledOverrides(deps, instanceId, `email.${name}`),
    def.locales,
    (row) => {
      const c = row.content as { subject: string; mjml: string; text: string | null };
      return { name, locale: row.locale, variables: def.variables, subject: c.subject, mjml: c.mjml, text: c.text };
    },
    (locale) => builtInEmailTemplate(name, locale),
  );
}

export async function resolveSmsTemplate(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  name: SmsTemplateName,
  candidates: string[],
): Promise<Resolved<SmsTemplate>> {
  const def = SMS_TEMPLATES[name];
  return pick(
    candidates,
    await enabledOverrides(deps, instanceId, `sms.${name}`),
    def.locales,
    (row) => ({ name, locale: row.locale, variables: def.variables, body: (row.content as { body: string }).body }),
    (locale) => builtInSmsTemplate(name, locale),
  );
}

/**
 * The hosted-page copy an instance overrides for a locale: message key (as in
 * `messages/<locale>/hosted.json`, dotted) → text, from the enabled overrides of the
 * locale or its language (`fr-CA`, then `fr`). The hosted pages merge it over the
 * next-intl catalog of that locale (mergeHostedMessages).
 */
export async function resolveHostedCopy(db: Deps['db'], instanceId: string, locale: string): Promise<Record<string, string>> {
  const chain = languageChain(locale);
  if (!chain.length) return {};
  const rows = await db
    .select()
    .from(localizations)
    .where(and(eq(localizations.instanceId, instanceId), like(localizations.resource, 'hosted.%'), eq(localizations.enabled, true)));
  const out: Record<string, string> = {};
  // Least specific first, so the most specific locale's text is written last.
  for (const tag of [...chain].reverse()) {
    for (const r of rows) {
      if (r.locale.toLowerCase() === tag) out[r.resource.slice('hosted.'.length)] = (r.content as { text: string }).text;
    }
  }
  return out;
}

export { mergeHostedMessages } from '../../i18n/merge';

/** The built-in copy alone, for the first candidate locale that has one. */
export function builtInEmailFor(name: EmailTemplateName, candidates: string[]): EmailTemplate {
  return pick(
    candidates,
    new Map(),
    EMAIL_TEMPLATES[name].locales,
    () => builtInEmailTemplate(name),
    (l) => builtInEmailTemplate(name, l),
  ).template;
}

export function builtInSmsFor(name: SmsTemplateName, candidates: string[]): SmsTemplate {
  return pick(
    candidates,
    new Map(),
    SMS_TEMPLATES[name].locales,
    () => builtInSmsTemplate(name),
    (l) => builtInSmsTemplate(name, l),
  ).template;
}
