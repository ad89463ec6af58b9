import { cn } from './cn';

export function Spinner({ className, label }: { className?: string; label?: string }) {
  return (
    <span role={label ? 'status' : undefined} className="inline-flex items-center gap-2">
      <span aria-hidden className={cn('size-4 animate-spin rounded-full border-2 border-current border-r-transparent', className)} />
      {label && <span className="text-sm text-zinc-600 dark:text-zinc-400">{label}</span>}
    </span>
  );
}

/** A grey block holding the place of content that is loading, so nothing shifts when it arrives. */
export function Skeleton({ className }: { className?: string }) {
  return <span aria-hidden className={cn('block animate-pulse rounded bg-zinc-200 dark:bg-zinc-800', className)} />;
}
