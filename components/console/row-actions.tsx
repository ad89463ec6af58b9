'use client';

import type { ReactNode } from 'react';
import { Button, ConfirmDialog, Td } from '@/components/ui';
import { mutate } from '@/lib/console/use-dashboard';

/** A list row's last cell: Edit, any further actions, then Delete, right-aligned. */
export function EditDeleteCell({
  onEdit,
  onDelete,
  editLabel,
  deleteLabel,
  children,
}: {
  onEdit(): void;
  onDelete(): void;
  editLabel: string;
  deleteLabel: string;
  children?: ReactNode;
}) {
  return (
    <Td className="whitespace-nowrap text-right">
      <div className="flex justify-end gap-2">
        <Button variant="secondary" size="sm" onClick={onEdit}>
          {editLabel}
        </Button>
        {children}
        <Button variant="ghost" size="sm" onClick={onDelete}>
          {deleteLabel}
        </Button>
      </div>
    </Td>
  );
}

/** Asks before `DELETE {path}/{item.id}`; `onDeleted` then (reload the list). */
export function DeleteDialog({
  item,
  path,
  onClose,
  onDeleted,
  title,
  description,
  confirmLabel,
}: {
  item: { id: string } | null;
  path: string;
  onClose(): void;
  onDeleted(): void;
  title: string;
  description: string;
  confirmLabel: string;
}) {
  return (
    <ConfirmDialog
      open={item !== null}
      onClose={onClose}
      title={title}
      description={description}
      confirmLabel={confirmLabel}
      onConfirm={async () => {
        await mutate('DELETE', `${path}/${item!.id}`);
        onDeleted();
      }}
    />
  );
}
