'use client';

import type { ReactNode } from 'react';

/** A copy of `set` with `item` put in (`on`) or taken out. */
export function toggled(set: ReadonlySet<string>, item: string, on: boolean): Set<string> {
  const next = new Set(set);
  if (on) next.add(item);
  else next.delete(item);
  return next;
}

/**
 * Everything or a chosen few (API key scopes, webhook event types): two radios named `name`,
 * the `children` picking the few when "some" is chosen, and the `error` under them.
 */
export function AllOrSome({
  legend,
  name,
  all,
  onAll,
  allLabel,
  someLabel,
  error,
  children,
}: {
  legend: string;
  name: string;
  all: boolean;
  onAll: (all: boolean) => void;
  allLabel: string;
  someLabel: string;
  error?: string | null;
  children: ReactNode;
}) {
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-1.5 text-sm font-medium">{legend}</legend>
      {[true, false].map((value) => (
        <label key={String(value)} className="inline-flex items-center gap-2 text-sm">
          <input type="radio" name={name} checked={all === value} onChange={() => onAll(value)} className="accent-indigo-600" />
          {value ? allLabel : someLabel}
        </label>
      ))}
      {!all && children}
      {error && (
        <p role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </fieldset>
  );
}
