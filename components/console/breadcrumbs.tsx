'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { cn, focusRing } from '@/components/ui';
import { pages } from '@/lib/console/paths';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { INSTANCE_NAV } from './instance-nav';

/** Where a nested page sits: the instance › its section (`segment` of INSTANCE_NAV) › this page. */
export function Breadcrumbs({ segment, current }: { segment: string; current: string }) {
  const t = useTranslations();
  const { account } = useConsole();
  const instance = useInstance();
  const section = INSTANCE_NAV.find((entry) => entry.segment === segment);
  const link = cn('rounded-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400', focusRing);
  return (
    <nav aria-label={t('console.shell.breadcrumbs')}>
      <ol className="flex flex-wrap items-center gap-1.5 text-sm text-zinc-600 dark:text-zinc-400">
        <li>
          <Link href={pages.instance(account.id, instance.id)} className={link}>
            {instance.name}
          </Link>
        </li>
        <li aria-hidden>›</li>
        <li>
          <Link href={pages.instance(account.id, instance.id, segment)} className={link}>
            {section ? t(section.messageKey) : segment}
          </Link>
        </li>
        <li aria-hidden>›</li>
        <li aria-current="page" className="max-w-xs truncate">
          {current}
        </li>
      </ol>
    </nav>
  );
}
