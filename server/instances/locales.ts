import { z } from 'zod';

/** The languages the built-in emails, SMS and hosted pages are written in. */
export const BUILT_IN_LOCALES = ['en', 'fr', 'de'] as const;
export const DEFAULT_LOCALE = 'en';

/**
 * Languages an operator may localize for and a user may prefer (ISO 639-1). A locale is
 * one of these, optionally with a region (`fr-CA`) or a script (`zh-Hant`).
 */
export const SUPPORTED_LANGUAGES = [
  'ar',
  'bg',
  'bn',
  'ca',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'es',
  'et',
  'fa',
  'fi',
  'fr',
  'he',
  'hi',
  'hr',
  'hu',
  'id',
  'is',
  'it',
  'ja',
  'ko',
  'lt',
  'lv',
  'ms',
  'nb',
  'nl',
  'nn',
  'no',
  'pl',
  'pt',
  'ro',
  'ru',
  'sk',
  'sl',
  'sr',
  'sv',
  'sw',
  'th',
  'tr',
  'uk',
  'ur',
  'vi',
  'zh',
] as const;
const LANGUAGES = new Set<string>(SUPPORTED_LANGUAGES);

/**
 * The canonical form of a supported locale (`FR_ca` → `fr-CA`, `zh-hant` → `zh-Hant`),
 * or null for anything else.
 */
export function normalizeLocale(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string' || raw.length > 16) return null;
  const m = /^([A-Za-z]{2})(?:[-_]([A-Za-z]{4}))?(?:[-_]([A-Za-z]{2}|\d{3}))?$/.exec(raw.trim());
  if (!m) return null;
  const lang = m[1]!.toLowerCase();
  if (!LANGUAGES.has(lang)) return null;
  const script = m[2] ? m[2][0]!.toUpperCase() + m[2].slice(1).toLowerCase() : null;
  const region = m[3] ? m[3].toUpperCase() : null;
  return [lang, script, region].filter(Boolean).join('-');
}

/** A request field holding a supported locale, answered in canonical form. */
export const localeInput = z
  .string()
  .max(16)
  .transform((v, ctx) => {
    const locale = normalizeLocale(v);
    if (!locale) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a supported locale such as en, fr, de or fr-CA',
        params: { reason: 'unsupported_locale' },
      });
      return z.NEVER;
    }
    return locale;
  })
  // Any case and `_` are accepted too; the document states the canonical form.
  .meta({ pattern: `^(?:${SUPPORTED_LANGUAGES.join('|')})(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}|[0-9]{3}))?$` });

/** `fr-CA` → [`fr-ca`, `fr`]: the tags tried for one preference, most specific first, lower-cased. */
export function languageChain(locale: string | null | undefined): string[] {
  const canonical = normalizeLocale(locale);
  if (!canonical) return [];
  const parts = canonical.toLowerCase().split('-');
  const chain: string[] = [];
  for (let i = parts.length; i > 0; i--) chain.push(parts.slice(0, i).join('-'));
  return chain;
}

/** The supported locales of an Accept-Language header, by descending quality (q=0 excluded). */
export function parseAcceptLanguage(header: string | null | undefined): string[] {
  if (!header) return [];
  const ranked: { locale: string; q: number; at: number }[] = [];
  header
    .slice(0, 1024)
    .split(',')
    .forEach((entry, at) => {
      const [tag = '', ...params] = entry.trim().split(';');
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      const locale = normalizeLocale(tag.trim());
      if (locale && Number.isFinite(q) && q > 0) ranked.push({ locale, q, at });
    });
  return ranked.sort((a, b) => b.q - a.q || a.at - b.at).map((r) => r.locale);
}

export interface LocalePreferences {
  /** The user's own locale, when known. */
  userLocale?: string | null;
  /** The request's Accept-Language header. */
  acceptLanguage?: string | null;
  /** The instance's default_locale setting. */
  instanceDefault?: string | null;
}

/**
 * The order in which a message's locales are tried: the user's locale, then the request's
 * Accept-Language, then the instance default, then English. Each preference expands to
 * its language (`fr-CA`, `fr`); lower-cased, without duplicates, English last.
 */
export function localeCandidates(p: LocalePreferences): string[] {
  const out: string[] = [];
  const add = (l: string) => {
    if (!out.includes(l)) out.push(l);
  };
  for (const pref of [p.userLocale, ...parseAcceptLanguage(p.acceptLanguage), p.instanceDefault]) {
    for (const l of languageChain(pref)) add(l);
  }
  add(DEFAULT_LOCALE);
  return out;
}
