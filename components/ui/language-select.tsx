'use client';

import { useLocale, useTranslations } from 'next-intl';
import { LOCALE_COOKIE, LOCALES } from '@/i18n/locales';
import { cn, focusRing } from './cn';

/** Remembers a language choice for a year in the `latchkey_locale` cookie. */
export function rememberLocale(locale: string): void {
  document.cookie = `${LOCALE_COOKIE}=${locale}; path=/; max-age=${365 * 86400}; samesite=lax`;
}

/** The language menu ("Language"): the current locale selected, `onChange` with the one picked. */
export function LanguageSelect({ onChange, className }: { onChange: (locale: string) => void; className?: string }) {
  const t = useTranslations('common');
  const locale = useLocale();
  return (
    <select
      aria-label={t('language')}
      value={locale}
      onChange={(e) => onChange(e.target.value)}
      className={cn(
        'h-8 rounded-md border-0 bg-transparent py-0 pr-7 pl-2 ring-1 ring-inset ring-zinc-300 dark:ring-zinc-700',
        focusRing,
        className,
      )}
    >
      {LOCALES.map((l) => (
        <option key={l} value={l}>
          {t(`languages.${l}`)}
        </option>
      ))}
    </select>
  );
}
