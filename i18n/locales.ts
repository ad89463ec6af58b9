/** Languages with complete catalogs. The first is the fallback. */
export const LOCALES = ['en', 'fr', 'de'] as const;
export type Locale = (typeof LOCALES)[number];
const DEFAULT_LOCALE: Locale = 'en';

/** Header the proxy sets from a `locale` query parameter (hosted pages). */
export const LOCALE_HEADER = 'x-latchkey-locale';
/** Cookie remembering a locale the visitor picked explicitly. */
export const LOCALE_COOKIE = 'latchkey_locale';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** The supported language of a tag such as `fr-CA`, or null. */
export function matchLocale(tag: string | null | undefined): Locale | null {
  if (!tag) return null;
  const base = tag.trim().toLowerCase().split(/[-_]/)[0];
  return isLocale(base) ? base : null;
}

/** The best supported language of an Accept-Language header, by q-value then order. */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag, q: q ? Number(q.slice(2)) || 0 : 1, index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const locale = matchLocale(entry.tag);
    if (locale) return locale;
  }
  return null;
}

/** Explicit choice first (query parameter, then cookie), then the browser's languages, then English. */
export function resolveLocale(input: { explicit?: string | null; cookie?: string | null; acceptLanguage?: string | null }): Locale {
  return matchLocale(input.explicit) ?? matchLocale(input.cookie) ?? localeFromAcceptLanguage(input.acceptLanguage) ?? DEFAULT_LOCALE;
}
