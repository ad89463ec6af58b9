'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { useErrorMessage } from '@/lib/use-error-message';
import { Alert } from './alert';
import { Button } from './button';
import { Dialog } from './dialog';
import { Field } from './field';
import { Input } from './input';

/**
 * Asks before a destructive action. With `confirmText` (and the `confirmTextLabel` asking
 * for it), the person types it to enable the button. Shows the action's error inside the
 * dialog (`describeError` turns it into copy; the API error message by default); closes on
 * success.
 */
export function ConfirmDialog({
  open,
  onClose,
  title,
  description,
  confirmLabel,
  confirmText,
  confirmTextLabel,
  describeError,
  onConfirm,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  description: ReactNode;
  confirmLabel: string;
  confirmText?: string;
  confirmTextLabel?: string;
  describeError?: (error: unknown) => string;
  onConfirm: () => Promise<void>;
}) {
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
    <FormDialog
      open={open}
      onClose={onClose}
      title={title}
      onSubmit={(e) => {
        e.preventDefault();
        if (!blocked) void confirm();
      }}
      error={error !== undefined && (describeError ?? errorMessage)(error)}
      submitLabel={confirmLabel}
      busy={busy}
      danger
      disabled={blocked}
    >
      <div className="text-sm text-zinc-600 dark:text-zinc-400">{description}</div>
      {confirmText !== undefined && (
        <Field label={confirmTextLabel ?? confirmText}>
          {(p) => <Input {...p} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} autoFocus />}
        </Field>
      )}
    </FormDialog>
  );
}

/** The buttons at the foot of a form or dialog: stacked (main action on top) on a phone, in a row at the right above. */
export function FormActions({ children }: { children: ReactNode }) {
  return <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{children}</div>;
}

/** "Cancel" and the submit button (`busy`: loading; `danger`: a destructive action) at the foot of a form. */
function CancelSubmit({
  onCancel,
  submitLabel,
  busy,
  danger = false,
  disabled,
}: {
  onCancel: () => void;
  submitLabel: ReactNode;
  busy: boolean;
  danger?: boolean;
  disabled?: boolean;
}) {
  const tCommon = useTranslations('common');
  return (
    <FormActions>
      <Button variant="secondary" onClick={onCancel}>
        {tCommon('cancel')}
      </Button>
      <Button type="submit" variant={danger ? 'danger' : 'primary'} loading={busy} disabled={disabled}>
        {submitLabel}
      </Button>
    </FormActions>
  );
}

/**
 * A dialog holding a form: the form-level `error` in an Alert at the top, the fields, then
 * "Cancel" and the submit button.
 */
export function FormDialog({
  open,
  onClose,
  title,
  onSubmit,
  error,
  submitLabel,
  busy,
  danger,
  disabled,
  children,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  onSubmit: (e: FormEvent) => void;
  error?: ReactNode;
  submitLabel: ReactNode;
  busy: boolean;
  danger?: boolean;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      <form className="flex flex-col gap-4" onSubmit={onSubmit} noValidate>
        {error ? <Alert tone="error">{error}</Alert> : null}
        {children}
        <CancelSubmit onCancel={onClose} submitLabel={submitLabel} busy={busy} danger={danger} disabled={disabled} />
      </form>
    </Dialog>
  );
}
