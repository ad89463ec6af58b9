'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import type { ReactNode } from 'react';
import { Alert, AsyncContent, Card, EmptyState, ErrorAlert, Skeleton, Table, Thead } from '@/components/ui';
import { ApiError } from '@/lib/api-client';
import { pages } from '@/lib/console/paths';
import { useErrorMessage } from '@/lib/use-error-message';

/** A page-level failure: not found (404 or unknown id), no permission (403), or an error with a retry. */
export function ErrorState({ error, notFound, onRetry }: { error?: unknown; notFound?: boolean; onRetry?: () => void }) {
  const t = useTranslations('console.states');
  const errorMessage = useErrorMessage();
  if (notFound || (error instanceof ApiError && error.status === 404)) {
    return (
      <Card>
        <EmptyState
          title={t('notFoundTitle')}
          description={t('notFoundDescription')}
          action={
            <Link href={pages.home} className="text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400">
              {t('backHome')}
            </Link>
          }
        />
      </Card>
    );
  }
  if (error instanceof ApiError && error.status === 403) {
    return (
      <Alert tone="warning" title={t('forbiddenTitle')}>
        {t('forbiddenDescription')}
      </Alert>
    );
  }
  return <ErrorAlert title={t('errorTitle')} message={errorMessage(error)} onRetry={onRetry} />;
}

/** Inline error inside a card, with an optional retry. */
export function InlineError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const errorMessage = useErrorMessage();
  return (
    <div className="px-5 py-4">
      <ErrorAlert message={errorMessage(error)} onRetry={onRetry} />
    </div>
  );
}

/** Rows of grey bars holding a table's place while it loads. */
export function TableSkeleton({ columns, rows = 3 }: { columns: number; rows?: number }) {
  return (
    <div className="flex flex-col gap-3 px-5 py-4" aria-hidden>
      {Array.from({ length: rows }, (_, r) => (
        <div key={r} className="flex gap-4">
          {Array.from({ length: columns }, (_, c) => (
            <Skeleton key={c} className="h-5 flex-1" />
          ))}
        </div>
      ))}
    </div>
  );
}

type CardListProps<T> = {
  data: T | undefined;
  error: unknown;
  onRetry: () => void;
  columns: number;
  rows?: number;
  emptyTitle?: ReactNode;
  emptyDescription?: ReactNode;
  emptyAction?: ReactNode;
};

/**
 * A card's list loaded from the dashboard API: the error with a retry, a table skeleton of
 * `columns` × `rows` while loading, the empty state (when `emptyTitle` is given, with
 * `emptyAction` under it) for an empty list, else `children(data)`.
 */
export function CardList<T>({
  data,
  error,
  onRetry,
  columns,
  rows,
  emptyTitle,
  emptyDescription,
  emptyAction,
  children,
}: CardListProps<T> & { children: (data: T) => ReactNode }) {
  return (
    <AsyncContent
      data={data}
      error={error ? <InlineError error={error} onRetry={onRetry} /> : undefined}
      loading={<TableSkeleton columns={columns} rows={rows} />}
      empty={emptyTitle ? <EmptyState title={emptyTitle} description={emptyDescription} action={emptyAction} /> : undefined}
    >
      {children}
    </AsyncContent>
  );
}

/**
 * A CardList of rows shown as a table: captioned `caption`, headed `headings` (then the row
 * buttons' column, when `actions` names it), one `row(item)` each; `busy` while a new page loads.
 */
export function CardTable<T>({
  caption,
  headings,
  actions,
  busy,
  row,
  ...list
}: CardListProps<T[]> & { caption: string; headings: ReactNode[]; actions?: string | false; busy?: boolean; row: (item: T) => ReactNode }) {
  return (
    <CardList {...list}>
      {(items) => (
        <Table caption={caption}>
          <Thead columns={headings} actions={actions} />
          <tbody aria-busy={busy || undefined}>{items.map(row)}</tbody>
        </Table>
      )}
    </CardList>
  );
}
