'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Button } from '@/components/ui';

export type CursorState = {
  /** `starting_after` of the page shown (undefined: the first page). */
  current: string | undefined;
  pageNumber: number;
  next: (cursor: string) => void;
  previous: () => void;
};

/** Previous/next over a cursor-paginated list; back to the first page when `resetOn` changes. */
export function useCursorPages(resetOn: unknown[]): CursorState {
  const key = JSON.stringify(resetOn);
  const [state, setState] = useState<{ key: string; stack: string[] }>({ key, stack: [] });
  const stack = state.key === key ? state.stack : [];
  return {
    current: stack[stack.length - 1],
    pageNumber: stack.length + 1,
    next: (cursor) => setState({ key, stack: [...stack, cursor] }),
    previous: () => setState({ key, stack: stack.slice(0, -1) }),
  };
}

/** Previous / Next buttons under a list (hidden when there is only one page). */
export function Pager({
  state,
  page,
  loading,
}: {
  state: CursorState;
  page: { has_more: boolean; next_cursor: string | null } | undefined;
  loading: boolean;
}) {
  const t = useTranslations('common');
  const tPager = useTranslations('console.pager');
  const hasNext = Boolean(page?.has_more && page.next_cursor);
  if (state.pageNumber === 1 && !hasNext) return null;
  return (
    <nav
      aria-label={tPager('label')}
      className="flex items-center justify-between gap-3 border-t border-zinc-200 px-5 py-3 dark:border-zinc-800"
    >
      <span className="text-sm text-zinc-600 dark:text-zinc-400">{tPager('page', { number: state.pageNumber })}</span>
      <div className="flex gap-2">
        <Button variant="secondary" size="sm" disabled={state.pageNumber === 1 || loading} onClick={state.previous}>
          {t('previous')}
        </Button>
        <Button
          variant="secondary"
          size="sm"
          disabled={!hasNext || loading}
          onClick={() => page?.next_cursor && state.next(page.next_cursor)}
        >
          {t('next')}
        </Button>
      </div>
    </nav>
  );
}
