'use client';

import { useRouter } from 'next/navigation';
import { LanguageSelect, rememberLocale, ThemeToggle } from '@/components/ui';

/** Picks the console language (remembered in the `latchkey_locale` cookie, then re-renders) and the colour theme. */
export function LanguagePicker({ className }: { className?: string }) {
  const router = useRouter();

  function change(next: string) {
    rememberLocale(next);
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
    <div className={className ? `flex items-center gap-2 ${className}` : 'flex items-center gap-2'}>
      <LanguageSelect onChange={change} className="text-sm text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300" />
      <ThemeToggle />
    </div>
  );
}
