'use client';

import { useLocale, useTranslations } from 'next-intl';
import { useRouter } from 'next/navigation';
import { useId } from 'react';
import { LOCALE_COOKIE, LOCALES } from '@/i18n/locales';
import { cn, focusRing } from '@/components/ui';

/** Picks the console language: remembers it in the `latchkey_locale` cookie and re-renders. */
export function LanguagePicker({ className }: { className?: string }) {
  const t = useTranslations('common');
  const locale = useLocale();
  const router = useRouter();
  const id = useId();

  function change(next: string) {
    document.cookie = `${LOCALE_COOKIE}=${next}; path=/; max-age=${365 * 86400}; samesite=lax`;
    const url = new URL(window.location.href);
    if (url.searchParams.has('locale')) {
      // An explicit ?locale= wins over the cookie: drop it so the choice sticks.
      url.searchParams.delete('locale');
      window.location.replace(url.toString());
      return;
    }
    router.refresh();
  }

  return (
    <div className={cn('flex items-center gap-2', className)}>
      <label htmlFor={id} className="sr-only">
        {t('language')}
      </label>
      <select
        id={id}
        value={locale}
        onChange={(e) => change(e.target.value)}
        className={cn(
          'h-8 rounded-md border-0 bg-transparent py-0 pl-2 pr-7 text-sm text-zinc-700 ring-1 ring-inset ring-zinc-300 dark:text-zinc-300 dark:ring-zinc-700 dark:bg-zinc-900',
          focusRing,
        )}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l}>
            {t(`languages.${l}`)}
          </option>
        ))}
      </select>
    </div>
  );
}
