'use client';

import { useTranslations } from 'next-intl';
import { useState, type InputHTMLAttributes } from 'react';
import { Input, cn, focusRing, type ControlProps } from '@/components/ui';
import { useHosted } from './hosted-context';

/** A password input with a show/hide toggle; `autoComplete` says current-password or new-password. */
export function PasswordInput({ className, ...rest }: ControlProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  const t = useTranslations('hosted.fields');
  const [shown, setShown] = useState(false);
  return (
    <div className="relative">
      <Input {...rest} type={shown ? 'text' : 'password'} className={cn('pr-11', className)} />
      <button
        type="button"
        onClick={() => setShown((v) => !v)}
        aria-pressed={shown}
        aria-controls={rest.id}
        title={shown ? t('hidePassword') : t('showPassword')}
        className={cn(
          'absolute inset-y-1 right-1 flex w-9 items-center justify-center rounded text-zinc-500 hover:bg-zinc-100 hover:text-zinc-700 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-200',
          focusRing,
        )}
      >
        <EyeIcon crossed={shown} />
        {/* Text, not aria-label, so that getByLabel('Password') finds only the input. */}
        <span className="sr-only">{shown ? t('hidePassword') : t('showPassword')}</span>
      </button>
    </div>
  );
}

function EyeIcon({ crossed }: { crossed: boolean }) {
  return (
    <svg
      aria-hidden
      viewBox="0 0 20 20"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.6}
      strokeLinecap="round"
      strokeLinejoin="round"
      className="size-5"
    >
      <path d="M1.5 10S4.5 4 10 4s8.5 6 8.5 6-3 6-8.5 6S1.5 10 1.5 10Z" />
      <circle cx="10" cy="10" r="2.5" />
      {crossed && <path d="M3 17 17 3" />}
    </svg>
  );
}

/** A typed identifier (username, email address, code): no autocapitalisation, no spell check. */
export function IdentifierInput(props: ControlProps & InputHTMLAttributes<HTMLInputElement>) {
  return <Input autoCapitalize="none" spellCheck={false} {...props} />;
}

/** An email address input: the email keyboard and autofill. */
export function EmailInput(props: ControlProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  return <IdentifierInput type="email" autoComplete="email" {...props} />;
}

/** A phone number in international format (E.164): the phone keyboard and autofill. */
export function PhoneInput(props: ControlProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  return <IdentifierInput type="tel" inputMode="tel" autoComplete="tel" {...props} />;
}

/** A 6-digit code: numeric keyboard, one-time-code autofill, digits only. */
export function CodeInput({
  className,
  onChange,
  ...rest
}: ControlProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange'> & { onChange(value: string): void }) {
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

const RULE_KEYS = ['require_uppercase', 'require_lowercase', 'require_digit', 'require_symbol'] as const;

/** The hint under a new-password field: the instance's minimum length and required kinds of characters. */
export function usePasswordHint(): string {
  const t = useTranslations('hosted.fields');
  const { env } = useHosted();
  const policy = env?.user_settings.password_settings;
  const min = policy?.min_length ?? 8;
  const rules = policy ? RULE_KEYS.filter((k) => policy[k]).map((k) => t(`passwordRules.${k}`)) : [];
  return rules.length ? t('passwordHintRules', { min, rules: rules.join(', ') }) : t('passwordHint', { min });
}
