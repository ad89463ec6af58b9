import { describe, expect, it } from 'vitest';
import { localeFromAcceptLanguage, resolveLocale } from './locales';

describe('locale resolution', () => {
  it('follows Accept-Language by q-value and order', () => {
    expect(localeFromAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8')).toBe('fr');
    expect(localeFromAcceptLanguage('es, de;q=0.5, en;q=0.7')).toBe('en');
    expect(localeFromAcceptLanguage('es, it')).toBeNull();
    expect(localeFromAcceptLanguage('de;q=0, en')).toBe('en');
  });

  it('prefers the explicit parameter, then the cookie, then the header, then English', () => {
    expect(resolveLocale({ explicit: 'de', cookie: 'fr', acceptLanguage: 'en' })).toBe('de');
    expect(resolveLocale({ explicit: 'xx', cookie: 'fr', acceptLanguage: 'de' })).toBe('fr');
    expect(resolveLocale({ acceptLanguage: 'de-AT' })).toBe('de');
    expect(resolveLocale({})).toBe('en');
  });
});
