'use client';

import Link from 'next/link';
import { useTranslations } from 'next-intl';
import type { ComponentProps, CSSProperties, FormEvent, ReactNode } from 'react';
import { Alert, Badge, Button, Card, LanguageSelect, Skeleton, Spinner, cn, focusRing, rememberLocale, ThemeToggle } from '@/components/ui';
import { ApiError } from '@/lib/api-client';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { appName, useHosted } from './hosted-context';

/** A link in the hosted pages' style (secondary actions: sign up, forgot password…). */
export function TextLink({ className, ...rest }: ComponentProps<typeof Link>) {
  return (
    <Link
      className={cn('rounded-sm font-medium text-indigo-600 underline-offset-4 hover:underline dark:text-indigo-400', focusRing, className)}
      {...rest}
    />
  );
}

/** Switches the language, keeping every other parameter of the page (and remembering the choice). */
function LanguagePicker() {
  function pick(next: string) {
    rememberLocale(next);
    const url = new URL(window.location.href);
    url.searchParams.set('locale', next);
    window.location.assign(url.toString());
  }
  return <LanguageSelect onChange={pick} className="text-xs text-zinc-600 hover:bg-white dark:text-zinc-300 dark:hover:bg-zinc-900" />;
}

function HostedFooter() {
  const t = useTranslations('hosted');
  const { env, loadError } = useHosted();
  return (
    <footer className="mt-6 flex flex-wrap items-center justify-center gap-x-4 gap-y-2 text-xs text-zinc-500 dark:text-zinc-400">
      {env || loadError ? (
        <span className="inline-flex items-center gap-1.5">
          <LockIcon className="size-3.5" />
          {t.rich('securedBy', { brand: (chunks) => <strong className="font-semibold text-zinc-700 dark:text-zinc-300">{chunks}</strong> })}
        </span>
      ) : (
        <Skeleton className="h-4 w-32" />
      )}
      {env?.branding?.support_email && (
        <a className="underline-offset-4 hover:underline" href={`mailto:${env.branding.support_email}`}>
          {t('support', { email: env.branding.support_email })}
        </a>
      )}
      {env?.instance.environment === 'test' && <Badge tone="amber">{t('testMode')}</Badge>}
      <LanguagePicker />
      <ThemeToggle />
    </footer>
  );
}

export function LockIcon({ className }: { className?: string }) {
  return (
    <svg aria-hidden viewBox="0 0 20 20" fill="currentColor" className={className}>
      <path
        fillRule="evenodd"
        d="M10 1a4.5 4.5 0 0 0-4.5 4.5V9H5a2 2 0 0 0-2 2v6a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-6a2 2 0 0 0-2-2h-.5V5.5A4.5 4.5 0 0 0 10 1Zm3 8V5.5a3 3 0 1 0-6 0V9h6Z"
        clipRule="evenodd"
      />
    </svg>
  );
}

/** The instance's mark: its logo (branding), else its initial on the brand colour. */
export function InstanceMark({ name, logoUrl, small = false }: { name: string; logoUrl?: string | null; small?: boolean }) {
  const size = small ? 'size-8 rounded-md text-sm' : 'size-10 rounded-lg text-lg';
  if (logoUrl) return <img src={logoUrl} alt="" className={cn(size, 'shrink-0 object-contain')} />;
  return (
    <span aria-hidden className={cn(size, 'flex shrink-0 items-center justify-center bg-indigo-600 font-semibold text-white shadow-sm')}>
      {name.trim().charAt(0).toUpperCase() || 'L'}
    </span>
  );
}

/**
 * The instance's primary colour (branding) for everything inside: the hosted pages draw their
 * accents with Tailwind's indigo, whose CSS variables this overrides. The colour was checked
 * for AA contrast against white text when it was saved.
 */
function brandStyle(color: string | null | undefined): CSSProperties | undefined {
  if (!color) return undefined;
  return {
    '--color-indigo-400': color,
    '--color-indigo-500': color,
    '--color-indigo-600': color,
    '--color-indigo-700': color,
  } as CSSProperties;
}

/** The page around a hosted card: centred on the screen, footer below. */
export function HostedPage({ children, wide = false }: { children: ReactNode; wide?: boolean }) {
  const { env } = useHosted();
  return (
    <div
      className="flex min-h-screen flex-col items-center justify-center px-4 py-10 sm:py-16"
      style={brandStyle(env?.branding?.primary_color)}
    >
      <main className={cn('w-full min-w-0', wide ? 'max-w-3xl' : 'max-w-sm')}>{children}</main>
      <HostedFooter />
    </div>
  );
}

/**
 * The card of a hosted auth page: the instance's mark and name, a title and subtitle,
 * the form, and secondary links under it. While the environment loads, skeletons of the
 * same size hold the place of the mark, the name, the title and the links (whose language
 * and copy the environment decides).
 */
export function AuthCard({
  title,
  subtitle,
  children,
  footer,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  const { env, loadError } = useHosted();
  return (
    <HostedPage>
      <Card className="overflow-hidden">
        <div className="flex flex-col gap-6 px-6 py-8 sm:px-8">
          <header className="flex flex-col items-center gap-3 text-center">
            {env ? (
              <InstanceMark name={appName(env)} logoUrl={env.branding?.logo_url} />
            ) : loadError ? (
              <span
                aria-hidden
                className="flex size-10 items-center justify-center rounded-lg bg-zinc-200 text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400"
              >
                <LockIcon className="size-5" />
              </span>
            ) : (
              <Skeleton className="size-10 rounded-lg" />
            )}
            {env ? (
              <p className="text-sm font-medium text-zinc-500 dark:text-zinc-400">{appName(env)}</p>
            ) : loadError ? null : (
              <Skeleton className="h-5 w-24" />
            )}
            {env || loadError ? (
              <>
                <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
                {subtitle && <p className="text-sm text-zinc-600 dark:text-zinc-400">{subtitle}</p>}
              </>
            ) : (
              // The title waits for the environment: its language and the operator's copy.
              <>
                <Skeleton className="h-7 w-52" />
                {subtitle && <Skeleton className="h-5 w-48" />}
              </>
            )}
          </header>
          {children}
        </div>
        {footer && (
          <div className="border-t border-zinc-200 bg-zinc-50 px-6 py-4 text-center text-sm text-zinc-600 dark:border-zinc-800 dark:bg-zinc-900/60 dark:text-zinc-400">
            {env || loadError ? footer : <Skeleton className="mx-auto h-5 w-56" />}
          </div>
        )}
      </Card>
    </HostedPage>
  );
}

/** Placeholder rows shaped like a form of `fields` inputs and its buttons (a divider between two). */
function FormSkeleton({ fields = 2, buttons = 1 }: { fields?: number; buttons?: 1 | 2 }) {
  const t = useTranslations('common');
  return (
    <div className="flex flex-col gap-4" aria-busy>
      <span className="sr-only" role="status">
        {t('loading')}
      </span>
      {Array.from({ length: fields }, (_, i) => (
        <div key={i} className="flex flex-col gap-1.5">
          <Skeleton className="h-5 w-28" />
          <Skeleton className="h-10 w-full rounded-md" />
        </div>
      ))}
      <Skeleton className="h-10 w-full rounded-md" />
      {buttons === 2 && (
        <>
          <Skeleton className="mx-auto h-4 w-8" />
          <Skeleton className="h-10 w-full rounded-md" />
        </>
      )}
    </div>
  );
}

/**
 * The card a page shows until the environment and client are loaded: the load error, or a
 * skeleton of the form (the page's `footer` below it).
 */
export function PendingAuthCard({
  title,
  footer,
  fields,
  buttons,
}: {
  title: ReactNode;
  footer?: ReactNode;
  fields?: number;
  buttons?: 1 | 2;
}) {
  const { loadError } = useHosted();
  if (loadError) {
    return (
      <AuthCard title={title}>
        <LoadError />
      </AuthCard>
    );
  }
  return (
    <AuthCard title={title} subtitle={<Skeleton className="mx-auto h-5 w-48" />} footer={footer}>
      <FormSkeleton fields={fields} buttons={buttons} />
    </AuthCard>
  );
}

/** Inside a card: the load error, a skeleton of `fields` inputs until `value` is there, then `children(value)`. */
export function WhenReady<T>({
  value,
  fields,
  children,
}: {
  value: T | null | undefined | false;
  fields?: number;
  children: (value: T) => ReactNode;
}) {
  const { loadError } = useHosted();
  if (loadError) return <LoadError />;
  if (!value) return <FormSkeleton fields={fields} />;
  return <>{children(value)}</>;
}

/** The environment or client could not be loaded (unknown instance, network…). */
export function LoadError() {
  const t = useTranslations('hosted');
  const { loadError, retryLoad } = useHosted();
  const describe = useFapiError();
  const missing = loadError instanceof ApiError && loadError.status === 404;
  return (
    <div className="flex flex-col gap-4">
      <Alert tone="error" title={t('loadFailed')}>
        {missing ? t('instanceNotFound') : describe(loadError).message}
      </Alert>
      {!missing && (
        <Button variant="secondary" onClick={retryLoad}>
          {t('retry')}
        </Button>
      )}
    </div>
  );
}

/** The bold part of a rich message (`t.rich(key, { strong })`): an address, a name. */
export const strong = (chunks: ReactNode) => <strong className="font-medium text-zinc-900 dark:text-zinc-100">{chunks}</strong>;

/**
 * A hosted page's form: the form-level `error` on top, the fields (`children`), the submit
 * button (loading while `busy`), then what comes `after` it (another way in, "Resend code"…).
 */
export function AuthForm({
  onSubmit,
  error,
  submitLabel,
  busy,
  disabled,
  after,
  children,
}: {
  onSubmit: (e: FormEvent) => void;
  error: string | null | undefined;
  submitLabel: ReactNode;
  busy: boolean;
  disabled?: boolean;
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      {error && <Alert tone="error">{error}</Alert>}
      {children}
      <Button type="submit" loading={busy} disabled={disabled}>
        {submitLabel}
      </Button>
      {after}
    </form>
  );
}

/** A step the page takes by itself (redeeming a ticket, signing out): a spinner saying so (`label`), or its `error` with a way on. */
export function Working({
  label,
  error,
  actionLabel,
  onAction,
}: {
  label: string;
  error: string | null | undefined;
  actionLabel: string;
  onAction: () => void;
}) {
  return error ? (
    <div className="flex flex-col gap-4">
      <Alert tone="error">{error}</Alert>
      <Button variant="secondary" onClick={onAction}>
        {actionLabel}
      </Button>
    </div>
  ) : (
    <div className="flex justify-center py-6">
      <Spinner label={label} />
    </div>
  );
}

/** A divider with a word in the middle ("or"). */
export function Divider({ label }: { label: string }) {
  return (
    <div className="flex items-center gap-3 text-xs uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
      <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
      {label}
      <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
