'use client';

import type { ReactNode } from 'react';
import { Button } from './button';
import { Dialog } from './dialog';
import { ShownOnce } from './value-field';

/**
 * The dialog that shows a just-created secret once: open while `value` is set, a warning,
 * the secret fields (`children`, given the value) and a single button that closes it.
 */
export function ShownOnceDialog<T>({
  value,
  onClose,
  title,
  warning,
  doneLabel,
  children,
}: {
  value: T | null;
  onClose: () => void;
  title: ReactNode;
  warning: ReactNode;
  doneLabel: ReactNode;
  children: (value: T) => ReactNode;
}) {
  return (
    <Dialog open={value !== null} onClose={onClose} title={title}>
      {value !== null && (
        <ShownOnce warning={warning} actions={<Button onClick={onClose}>{doneLabel}</Button>}>
          {children(value)}
        </ShownOnce>
      )}
    </Dialog>
  );
}
