'use client';

import { useState } from 'react';
import { useTranslations } from 'next-intl';
import { Button } from './button';

/**
 * Copies `value` to the clipboard and says so for two seconds. `describedBy` names the
 * element that says what is copied (an accessible description, so the button keeps the
 * short name "Copy" and a label lookup finds the value, not its button).
 */
export function CopyButton({ value, label, describedBy }: { value: string; label?: string; describedBy?: string }) {
  const t = useTranslations('common');
  const [copied, setCopied] = useState(false);
  async function copy() {
    await navigator.clipboard.writeText(value);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <Button
      variant="secondary"
      size="sm"
      onClick={copy}
      aria-label={label ? `${t('copy')}: ${label}` : undefined}
      aria-describedby={describedBy}
    >
      <span aria-live="polite" className="inline-block min-w-[4.5rem] text-center">
        {copied ? t('copied') : t('copy')}
      </span>
    </Button>
  );
}

/** A value shown in monospace with a copy button, e.g. a key or a URL. */
export function CopyField({ value, label }: { value: string; label: string }) {
  return (
    <div className="flex items-center gap-2">
      <code aria-label={label} className="min-w-0 flex-1 truncate rounded-md bg-zinc-100 px-3 py-2 font-mono text-xs dark:bg-zinc-800">
        {value}
      </code>
      <CopyButton value={value} label={label} />
    </div>
  );
}
