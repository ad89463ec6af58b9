'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { cn, focusRing } from './cn';

const THEMES = ['system', 'light', 'dark'] as const;
type Theme = (typeof THEMES)[number];
const STORAGE_KEY = 'latchkey_theme';

/**
 * Runs before the first paint (inline in <head>): applies the remembered theme so a page
 * never flashes the other one. `system` leaves it to prefers-color-scheme.
 */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem('${STORAGE_KEY}');if(t==='light'||t==='dark')document.documentElement.dataset.theme=t}catch(e){}`;

/** Cycles the colour theme: as the system says, light, dark (remembered in this browser). */
export function ThemeToggle({ className }: { className?: string }) {
  const t = useTranslations('common.theme');
  const [theme, setTheme] = useState<Theme>('system');
  useEffect(() => {
    const stored = document.documentElement.dataset.theme;
    if (stored === 'light' || stored === 'dark') setTheme(stored);
  }, []);

  function next() {
    const chosen = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!;
    setTheme(chosen);
    if (chosen === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = chosen;
    try {
      if (chosen === 'system') localStorage.removeItem(STORAGE_KEY);
      else localStorage.setItem(STORAGE_KEY, chosen);
    } catch {
      // Storage refused (private mode, iframe): the choice lasts for this page.
    }
  }

  return (
    <button
      type="button"
      onClick={next}
      aria-label={t('label', { theme: t(theme) })}
      title={t('label', { theme: t(theme) })}
      className={cn(
        'inline-flex size-8 items-center justify-center rounded-md text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800',
        focusRing,
        className,
      )}
    >
      <svg aria-hidden viewBox="0 0 20 20" fill="currentColor" className="size-4">
        {theme === 'dark' ? (
          <path d="M17.3 12.9A7.5 7.5 0 0 1 7.1 2.7a7.5 7.5 0 1 0 10.2 10.2Z" />
        ) : theme === 'light' ? (
          <path d="M10 14.5a4.5 4.5 0 1 0 0-9 4.5 4.5 0 0 0 0 9ZM10 0a1 1 0 0 1 1 1v1a1 1 0 1 1-2 0V1a1 1 0 0 1 1-1Zm0 17a1 1 0 0 1 1 1v1a1 1 0 1 1-2 0v-1a1 1 0 0 1 1-1ZM0 10a1 1 0 0 1 1-1h1a1 1 0 1 1 0 2H1a1 1 0 0 1-1-1Zm17 0a1 1 0 0 1 1-1h1a1 1 0 1 1 0 2h-1a1 1 0 0 1-1-1Z" />
        ) : (
          <path
            fillRule="evenodd"
            d="M2 4a2 2 0 0 1 2-2h12a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2h-4v2h2a1 1 0 1 1 0 2H6a1 1 0 1 1 0-2h2v-2H4a2 2 0 0 1-2-2V4Zm2 0h12v8H4V4Z"
            clipRule="evenodd"
          />
        )}
      </svg>
    </button>
  );
}
