'use client';

import { useId, type ReactNode } from 'react';
import { Alert } from './alert';
import { cn } from './cn';
import { CopyButton } from './copy-button';

/**
 * A labelled value with a copy button: a key, a URL, or a secret shown once (`wrap`: the
 * whole value, never cut off). The value carries the label (getByLabel finds it alone); the
 * button is "Copy", described by the label.
 */
export function ValueField({ value, label, wrap = false }: { value: string; label: string; wrap?: boolean }) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1.5">
      <span id={id} className="text-sm font-medium">
        {label}
      </span>
      <div className="flex items-start gap-2">
        <code
          aria-label={label}
          className={cn(
            'min-w-0 flex-1 rounded-md bg-zinc-100 px-3 py-2 font-mono text-xs select-all dark:bg-zinc-800',
            wrap ? 'break-all' : 'truncate',
          )}
        >
          {value}
        </code>
        <CopyButton value={value} describedBy={id} />
      </div>
    </div>
  );
}

/** A secret shown once: the whole value and a copy button. */
export function SecretValue({ value, label }: { value: string; label: string }) {
  return <ValueField value={value} label={label} wrap />;
}

/**
 * The body of a "shown once" dialog: the warning that the secret will not be shown again,
 * the values (SecretValue / CopyField), then the actions (a "done" button…).
 */
export function ShownOnce({ warning, children, actions }: { warning: ReactNode; children: ReactNode; actions: ReactNode }) {
  return (
    <div className="flex flex-col gap-4">
      <Alert tone="warning">{warning}</Alert>
      {children}
      <div className="flex flex-wrap justify-end gap-2">{actions}</div>
    </div>
  );
}
