'use client';

import type { ReactNode } from 'react';
import { Button } from './button';
import { Dialog } from './dialog';
import { ShownOnce } from './value-field';

type Props<T> = {
  value: T | null;
  onClose: () => void;
  title: ReactNode;
  warning: ReactNode;
  doneLabel: ReactNode;
  children: (value: T) => ReactNode;
};

/** A just-created secret shown once: open while `value` is set; the fields (`children`, given the value) and one button that closes it. */
export function ShownOnceDialog<T>({ value, onClose, title, warning, doneLabel, children }: Props<T>) {
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
