import { describe, expect, it } from 'vitest';
import { LOCALES } from '../i18n/locales';
import { CATALOGS } from './index';

/** Every leaf key of a catalog, as dotted paths. */
function keysOf(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => keysOf(child, prefix ? `${prefix}.${key}` : key));
}

/** ICU placeholders such as {code} or {count, plural, …}, by name. */
function placeholders(message: string): string[] {
  return [...message.matchAll(/\{\s*([a-zA-Z_][\w]*)\s*[,}]/g)].map((m) => m[1]!).sort();
}

function leaf(catalog: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], catalog);
}

describe('message catalogs', () => {
  const english = keysOf(CATALOGS.en);

  it('has English copy', () => {
    expect(english.length).toBeGreaterThan(20);
  });

  for (const locale of LOCALES.filter((l) => l !== 'en')) {
    it(`${locale} holds every English key and no other`, () => {
      expect(keysOf(CATALOGS[locale]).sort()).toEqual([...english].sort());
    });

    it(`${locale} keeps every placeholder of the English copy`, () => {
      for (const path of english) {
        const source = leaf(CATALOGS.en, path);
        const translated = leaf(CATALOGS[locale], path);
        expect(typeof translated, path).toBe('string');
        expect(new Set(placeholders(translated as string)), path).toEqual(new Set(placeholders(source as string)));
      }
    });

    it(`${locale} is translated, not copied`, () => {
      const same = english.filter((path) => leaf(CATALOGS.en, path) === leaf(CATALOGS[locale], path));
      // Brand names, language names and codes may stay; most copy may not.
      expect(same.length / english.length).toBeLessThan(0.2);
    });
  }
});

describe('words a page shows side by side', () => {
  const console = (locale: (typeof LOCALES)[number]) =>
    (CATALOGS[locale] as unknown as { console: { users: { banned: string }; user: Record<string, string> } }).console;
  for (const locale of LOCALES) {
    it(`${locale}: banning and locking a user read as two different things`, () => {
      const { users, user } = console(locale);
      const ban = [users.banned, user.ban!, user.unban!, user.banTitle!].join(' ').toLowerCase();
      const lock = [user.lock!, user.lockState!, user.notLocked!, user.lockedForever!].join(' ').toLowerCase();
      // A stem of the lock's copy (German "sperr", French "verrouill") must not name the ban too.
      const stems = { en: 'lock', fr: 'verrouill', de: 'sperr' }[locale];
      expect(lock).toContain(stems);
      expect(ban).not.toContain(stems);
      expect(user.ban).not.toBe(user.lock);
    });
  }
});
