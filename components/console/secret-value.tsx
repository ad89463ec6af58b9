'use client';

import { CopyButton } from '@/components/ui';

/** A secret shown once: the whole value (wrapped, never cut off) and a copy button. */
export function SecretValue({ value, label }: { value: string; label: string }) {
  return (
    <div className="flex flex-col gap-1.5">
      <span className="text-sm font-medium">{label}</span>
      <div className="flex items-start gap-2">
        <code aria-label={label} className="min-w-0 flex-1 break-all rounded-md bg-zinc-100 px-3 py-2 font-mono text-xs select-all dark:bg-zinc-800">
          {value}
        </code>
        <CopyButton value={value} label={label} />
      </div>
    </div>
  );
}
