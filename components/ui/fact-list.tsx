import type { ReactNode } from 'react';
import { cn } from './cn';

/** Label–value pairs in a grid, label beside value (`className`: the columns and gaps). */
export function FactList({ facts, className }: { facts: Array<[string, ReactNode]>; className: string }) {
  return (
    <dl className={cn('grid text-sm', className)}>
      {facts.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-zinc-500 dark:text-zinc-400">{label}</dt>
          <dd className="min-w-0 break-all">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
