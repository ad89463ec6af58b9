'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useTranslations } from 'next-intl';
import type { ReactNode } from 'react';
import { cn, focusRing, PageHeader } from '@/components/ui';
import { pages } from '@/lib/console/paths';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { SETTINGS_NAV } from './instance-nav';

/**
 * The settings section: its sub-pages' navigation (a row that scrolls on a phone, a column
 * beside the page from `lg`) and the current sub-page under its own heading.
 */
export function SettingsSection({ children }: { children: ReactNode }) {
  const t = useTranslations('console.settings');
  const tn = useTranslations('console.settingsNav');
  const { account } = useConsole();
  const instance = useInstance();
  const pathname = usePathname();
  const hrefOf = (segment: string) => pages.instance(account.id, instance.id, segment ? `settings/${segment}` : 'settings');
  const current = SETTINGS_NAV.find((entry) => hrefOf(entry.segment) === pathname) ?? SETTINGS_NAV[0];

  return (
    <div className="flex flex-col gap-6">
      <div>
        <p className="text-sm font-medium text-zinc-500 dark:text-zinc-400">{t('title')}</p>
        <PageHeader title={tn(current.key)} description={t(`pageDescription.${current.key}`)} />
      </div>
      <div className="flex flex-col gap-6 lg:flex-row lg:items-start">
        <nav aria-label={tn('label')} className="-mx-1 overflow-x-auto lg:sticky lg:top-6 lg:mx-0 lg:w-52 lg:shrink-0 lg:overflow-visible">
          <ul className="flex gap-1 px-1 lg:flex-col lg:px-0">
            {SETTINGS_NAV.map((entry) => {
              const active = entry === current;
              return (
                <li key={entry.key} className="shrink-0">
                  <Link
                    href={hrefOf(entry.segment)}
                    aria-current={active ? 'page' : undefined}
                    className={cn(
                      'block whitespace-nowrap rounded-md px-3 py-1.5 text-sm',
                      focusRing,
                      active
                        ? 'bg-indigo-50 font-medium text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300'
                        : 'text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800',
                      entry.key === 'danger' && !active && 'text-red-700 dark:text-red-400',
                    )}
                  >
                    {tn(entry.key)}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <div className="flex min-w-0 flex-1 flex-col gap-8">{children}</div>
      </div>
    </div>
  );
}
