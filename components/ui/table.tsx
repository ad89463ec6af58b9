import type { HTMLAttributes, ReactNode, TdHTMLAttributes, ThHTMLAttributes } from 'react';
import { Button, type ButtonProps } from './button';
import { cn } from './cn';

/** A table that scrolls sideways on a phone instead of breaking the layout. */
export function Table({ caption, children }: { caption?: ReactNode; children: ReactNode }) {
  return (
    <div className="relative overflow-x-auto">
      <table className="w-full min-w-[36rem] text-left text-sm">
        {caption && <caption className="sr-only">{caption}</caption>}
        {children}
      </table>
    </div>
  );
}

export function Th({ className, ...rest }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      scope="col"
      className={cn(
        'border-b border-zinc-200 px-4 py-2.5 text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:border-zinc-800 dark:text-zinc-400',
        className,
      )}
      {...rest}
    />
  );
}

export function Td({ className, ...rest }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={cn('border-b border-zinc-100 px-4 py-3 align-middle dark:border-zinc-800/60', className)} {...rest} />;
}

export function Tr({ className, ...rest }: HTMLAttributes<HTMLTableRowElement>) {
  return <tr className={cn('hover:bg-zinc-50 dark:hover:bg-zinc-800/40', className)} {...rest} />;
}

/**
 * A table's header row: one column heading per entry of `columns`, then (with `actions`)
 * a last column for the row buttons, named for screen readers only.
 */
export function Thead({ columns, actions }: { columns: ReactNode[]; actions?: string | false }) {
  return (
    <thead>
      <tr>
        {columns.map((column, i) => (
          <Th key={i}>{column}</Th>
        ))}
        {actions && (
          <Th>
            <span className="sr-only">{actions}</span>
          </Th>
        )}
      </tr>
    </thead>
  );
}

/** A row's last cell holding its one button (Revoke, Remove…), small and aligned right; without `show`, the cell stays empty. */
export function ActionCell({ show = true, ...props }: ButtonProps & { show?: boolean }) {
  return <Td className="text-right">{show && <Button variant="ghost" size="sm" {...props} />}</Td>;
}
