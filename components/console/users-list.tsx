'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Badge, Card, EmptyState, PageHeader, Skeleton, Table, Td, Thead, Tr, cn, focusRing } from '@/components/ui';
import { displayName, initials, primaryEmail, useDates } from '@/lib/console/format';
import { api, pages, query } from '@/lib/console/paths';
import type { CursorPage, User } from '@/lib/console/types';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { SearchBox } from './search-box';
import { InlineError } from './states';

const PAGE_SIZE = 20;

/** `…/users`: search and page through an instance's users. */
export function UsersList() {
  const t = useTranslations('console.users');
  const dates = useDates();
  const { account } = useConsole();
  const instance = useInstance();
  const [q, setQ] = useState('');
  const cursor = useCursorPages([q]);

  const path = `${api.instance(account.id, instance.id)}/users${query({ query: q, limit: PAGE_SIZE, starting_after: cursor.current })}`;
  const users = useDashboard<CursorPage<User>>(path);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader title={t('title')} description={t('description', { name: instance.name })} />
      <SearchBox label={t('search')} placeholder={t('searchPlaceholder')} onSearch={setQ} />
      <Card>
        {users.error ? (
          <InlineError error={users.error} onRetry={users.reload} />
        ) : users.data && users.data.data.length === 0 ? (
          <EmptyState title={q ? t('noMatchesTitle') : t('emptyTitle')} description={q ? t('noMatchesDescription', { query: q }) : t('emptyDescription')} />
        ) : (
          <Table caption={t('title')}>
            <Thead columns={[t('user'), t('email'), t('created'), t('lastSignIn')]} />
            <tbody aria-busy={users.loading || undefined}>
              {!users.data
                ? Array.from({ length: 5 }, (_, i) => (
                    <tr key={i}>
                      <Td>
                        <span className="flex items-center gap-3">
                          <Skeleton className="size-8 rounded-full" />
                          <Skeleton className="h-4 w-32" />
                        </span>
                      </Td>
                      {['w-40', 'w-24', 'w-24'].map((width, c) => (
                        <Td key={c}>
                          <Skeleton className={`h-4 ${width}`} />
                        </Td>
                      ))}
                    </tr>
                  ))
                : users.data.data.map((user) => {
                    const name = displayName(user);
                    const email = primaryEmail(user);
                    return (
                      <Tr key={user.id} className={cn(users.loading && 'opacity-60')}>
                        <Td>
                          <Link href={pages.user(account.id, instance.id, user.id)} className={cn('flex items-center gap-3 rounded-md', focusRing)}>
                            <span aria-hidden className="grid size-8 shrink-0 place-items-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300">
                              {initials(name, email)}
                            </span>
                            <span className="flex min-w-0 flex-col">
                              <span className="truncate font-medium text-zinc-900 hover:underline dark:text-zinc-100">{name ?? email ?? user.id}</span>
                              <span className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{user.id}</span>
                            </span>
                            {user.banned && <Badge tone="red">{t('banned')}</Badge>}
                          </Link>
                        </Td>
                        <Td className="text-zinc-600 dark:text-zinc-400">{email ?? '—'}</Td>
                        <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(user.created_at)}</Td>
                        <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.relative(user.last_sign_in_at)}</Td>
                      </Tr>
                    );
                  })}
            </tbody>
          </Table>
        )}
        <Pager state={cursor} page={users.data} loading={users.loading} />
      </Card>
    </div>
  );
}
