'use client';

import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslations } from 'next-intl';
import { focusRing } from './cn';

/**
 * A panel sliding in from the right on the native <dialog> (focus trapped and restored by the
 * browser, Escape closes it): details too long for a table cell, read beside the list.
 */
export function SidePanel({
  open,
  onClose,
  title,
  children,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
}) {
  const t = useTranslations('common');
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      onClick={(e) => e.target === ref.current && onClose()}
      aria-labelledby={titleId}
      className="fixed inset-y-0 right-0 left-auto m-0 h-full max-h-none w-[min(36rem,100vw)] max-w-none overflow-y-auto bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-950/40 dark:bg-zinc-900 dark:text-zinc-100"
    >
      {open && (
        <div className="flex min-h-full flex-col gap-4 p-6">
          <div className="flex items-start justify-between gap-4">
            <h2 id={titleId} className="text-lg font-semibold break-words">
              {title}
            </h2>
            <button
              type="button"
              onClick={onClose}
              className={`rounded-md px-2 py-1 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800 ${focusRing}`}
            >
              {t('close')}
            </button>
          </div>
          {children}
        </div>
      )}
    </dialog>
  );
}
