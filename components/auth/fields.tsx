'use client';

import { useTranslations } from 'next-intl';
import { useState, type InputHTMLAttributes } from 'react';
import { Input, cn, focusRing, type ControlProps } from '@/components/ui';

/** A password input with a show/hide toggle; `autoComplete` says current-password or new-password. */
export function PasswordInput({ className, ...rest }: ControlProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  const t = useTranslations('hosted.fields');
  const [shown, setShown] = useState(false);
  return (
    <div className="relative">
      <Input {...rest} type={shown ? 'text' : 'password'} className={cn('pr-16', className)} />
      <button
        type="button"
        onClick={() => setShown((v) => !v)}
        aria-pressed={shown}
        aria-controls={rest.id}
        className={cn(
          'absolute inset-y-1 right-1 rounded px-2 text-xs font-medium text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800',
          focusRing,
        )}
      >
        {shown ? t('hidePassword') : t('showPassword')}
      </button>
    </div>
  );
}

/** A 6-digit code: numeric keyboard, one-time-code autofill, digits only. */
export function CodeInput({ className, onChange, ...rest }: ControlProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange'> & { onChange(value: string): void }) {
  return (
    <Input
      {...rest}
      type="text"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]*"
      maxLength={6}
      onChange={(e) => onChange(e.target.value.replace(/\D/g, '').slice(0, 6))}
      className={cn('h-12 text-center font-mono text-xl tracking-[0.5em]', className)}
    />
  );
}
