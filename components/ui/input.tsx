import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import { cn, focusRing } from './cn';

const control =
  'block w-full rounded-md border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-inset ring-zinc-300 placeholder:text-zinc-400 disabled:bg-zinc-100 disabled:text-zinc-500 aria-[invalid=true]:ring-red-500 dark:bg-zinc-900 dark:text-zinc-100 dark:ring-zinc-700 dark:disabled:bg-zinc-800';

export function Input({ className, ...rest }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={cn(control, 'h-10', focusRing, className)} {...rest} />;
}

export function Textarea({ className, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <textarea className={cn(control, 'py-2 font-mono', focusRing, className)} {...rest} />;
}

/** A select: its `children`, then one option per entry of `options`, shown as `optionLabel(value)` (the value itself by default). */
export function Select<T extends string>({
  className,
  children,
  options = [],
  optionLabel = (value) => value,
  ...rest
}: SelectHTMLAttributes<HTMLSelectElement> & { options?: readonly T[]; optionLabel?: (value: T) => ReactNode }) {
  return (
    <select className={cn(control, 'h-10 pr-8', focusRing, className)} {...rest}>
      {children}
      {options.map((value) => (
        <option key={value} value={value}>
          {optionLabel(value)}
        </option>
      ))}
    </select>
  );
}

export function Checkbox({ className, label, ...rest }: InputHTMLAttributes<HTMLInputElement> & { label: string }) {
  return (
    <label className="inline-flex items-center gap-2 text-sm">
      <input type="checkbox" className={cn('size-4 rounded border-zinc-300 accent-indigo-600', focusRing, className)} {...rest} />
      {label}
    </label>
  );
}
