'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState, type ReactNode } from 'react';
import { Alert, Button, Dialog, Field, Input } from '@/components/ui';
import { useErrorMessage } from '@/lib/use-error-message';

/**
 * Asks before a destructive action. With `confirmText`, the operator types it to enable
 * the button. Shows the action's error inside the dialog; closes on success.
 */
export function ConfirmDialog({
  open,
  onClose,
  title,
  description,
  confirmLabel,
  confirmText,
  onConfirm,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  description: ReactNode;
  confirmLabel: string;
  confirmText?: string;
  onConfirm: () => Promise<void>;
}) {
  const t = useTranslations('console.confirm');
  const tCommon = useTranslations('common');
  const errorMessage = useErrorMessage();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    if (open) {
      setTyped('');
      setError(undefined);
      setBusy(false);
    }
  }, [open]);

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      onClose();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const blocked = confirmText !== undefined && typed.trim() !== confirmText;
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      <form
        className="flex flex-col gap-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (!blocked) void confirm();
        }}
      >
        {error !== undefined && <Alert tone="error">{errorMessage(error)}</Alert>}
        <div className="text-sm text-zinc-600 dark:text-zinc-400">{description}</div>
        {confirmText !== undefined && (
          <Field label={t('typeToConfirm', { text: confirmText })}>
            {(p) => <Input {...p} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} autoFocus />}
          </Field>
        )}
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            {tCommon('cancel')}
          </Button>
          <Button type="submit" variant="danger" loading={busy} disabled={blocked}>
            {confirmLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
