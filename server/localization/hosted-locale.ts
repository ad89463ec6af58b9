import { isLocale, type Locale } from '../../i18n/locales';
import { languageChain, localeCandidates, type LocalePreferences } from '../instances/locales';

/**
 * The language of the hosted pages for a request: the first preference with a hosted
 * catalog — the page's explicit `locale` parameter, then the user's locale, then
 * Accept-Language, then the instance default, then English (`fr-CA` → `fr`). `tag` is
 * the preference it came from (`fr-CA`), so that overrides written for `fr-CA` apply
 * before those for `fr` (resolveHostedCopy).
 */
export function hostedLocale(p: LocalePreferences & { explicit?: string | null }): { locale: Locale; tag: string } {
  const candidates = [...languageChain(p.explicit), ...localeCandidates(p)];
  for (const c of candidates) {
    const base = c.split('-')[0];
    if (isLocale(base)) return { locale: base, tag: c };
  }
  return { locale: 'en', tag: 'en' };
}
