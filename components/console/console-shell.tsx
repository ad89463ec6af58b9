'use client';

import Link from 'next/link';
import { useParams, usePathname, useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import { Alert, Badge, Button, cn, focusRing, Skeleton } from '@/components/ui';
import { useErrorMessage } from '@/lib/use-error-message';
import { displayName, initials, primaryEmail } from '@/lib/console/format';
import { api, pages } from '@/lib/console/paths';
import type { Instance, Me } from '@/lib/console/types';
import { useDashboard } from '@/lib/console/use-dashboard';
import { ConsoleContext, type ConsoleContextValue } from './console-context';
import { INSTANCE_NAV, INSTANCE_NAV_GROUPS } from './instance-nav';
import { LanguagePicker } from './language-picker';
import { signOut } from './sign-out';
import { ErrorState } from './states';
import type { DashboardResponse } from '@/lib/generated/dashboard';

/**
 * The signed-in console frame: a sidebar (account switcher, the account's instances and
 * the current instance's sections; a menu button on phones) and a top bar (operator,
 * language, sign-out). Children read the operator and account with useConsole().
 */
export function ConsoleShell({ accountId, children }: { accountId: string; children: ReactNode }) {
  const t = useTranslations('console');
  const me = useDashboard<Me>(api.me);
  const instances = useDashboard<DashboardResponse<'GET /accounts/{accountId}/instances'>>(`${api.account(accountId)}/instances`);
  const [menuOpen, setMenuOpen] = useState(false);
  const pathname = usePathname();

  // Close the phone menu on navigation.
  useEffect(() => setMenuOpen(false), [pathname]);

  const account = me.data?.accounts.find((a) => a.id === accountId);
  const value = useMemo<ConsoleContextValue | null>(() => {
    if (!me.data || !account) return null;
    return {
      me: me.data,
      account,
      instances: instances.data?.data,
      instancesError: instances.error,
      reloadInstances: instances.reload,
      reloadMe: me.reload,
      canWrite: account.role !== 'viewer',
      isOwner: account.role === 'owner',
    };
  }, [me.data, me.reload, account, instances.data, instances.error, instances.reload]);

  let main: ReactNode;
  if (me.error) main = <ErrorState error={me.error} onRetry={me.reload} />;
  else if (!me.data) main = <PageSkeleton />;
  else if (!account) main = <ErrorState notFound />;
  else main = children;

  return (
    <div className="min-h-screen lg:flex">
      <a
        href="#main"
        className={cn(
          'sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 dark:focus:bg-zinc-900',
          focusRing,
        )}
      >
        {t('shell.skipToContent')}
      </a>
      {/* Phone: the sidebar is an overlay behind a menu button. */}
      {menuOpen && <div aria-hidden className="fixed inset-0 z-30 bg-zinc-950/40 lg:hidden" onClick={() => setMenuOpen(false)} />}
      <aside
        id="console-sidebar"
        aria-label={t('shell.sidebar')}
        className={cn(
          'fixed inset-y-0 left-0 z-40 w-72 max-w-[85vw] -translate-x-full overflow-y-auto border-r border-zinc-200 bg-white transition-transform dark:border-zinc-800 dark:bg-zinc-900',
          'lg:sticky lg:top-0 lg:z-auto lg:h-screen lg:w-64 lg:max-w-none lg:translate-x-0 lg:shrink-0',
          menuOpen ? 'translate-x-0' : 'max-lg:invisible',
        )}
      >
        <Sidebar
          accountId={accountId}
          me={me.data}
          instances={instances.data?.data}
          instancesLoading={instances.loading && !instances.data}
          onClose={() => setMenuOpen(false)}
        />
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <TopBar me={me.data} menuOpen={menuOpen} onMenu={() => setMenuOpen((o) => !o)} />
        <main id="main" className="mx-auto w-full max-w-6xl min-w-0 flex-1 px-4 py-6 sm:px-6 lg:px-8 lg:py-8">
          {value ? <ConsoleContext.Provider value={value}>{main}</ConsoleContext.Provider> : main}
        </main>
      </div>
    </div>
  );
}

function Sidebar({
  accountId,
  me,
  instances,
  instancesLoading,
  onClose,
}: {
  accountId: string;
  me: Me | undefined;
  instances: Instance[] | undefined;
  instancesLoading: boolean;
  onClose: () => void;
}) {
  const t = useTranslations('console');
  const tAll = useTranslations();
  const router = useRouter();
  const pathname = usePathname();
  const params = useParams<{ instanceId?: string }>();
  const switcherId = useId();
  const accountHref = pages.account(accountId);

  const linkClass = (active: boolean) =>
    cn(
      'flex items-center gap-2 rounded-md px-2.5 py-1.5 text-sm',
      focusRing,
      active
        ? 'bg-indigo-50 font-medium text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300'
        : 'text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800',
    );

  return (
    <div className="flex flex-col gap-6 p-4">
      <div className="flex items-center justify-between">
        <Link href={pages.home} className={cn('flex items-center gap-2 rounded-md text-base font-semibold', focusRing)}>
          <span aria-hidden className="grid size-7 place-items-center rounded-md bg-indigo-600 text-sm font-bold text-white">
            L
          </span>
          Latchkey
        </Link>
        <Button variant="ghost" size="sm" className="lg:hidden" onClick={onClose}>
          {t('shell.closeMenu')}
        </Button>
      </div>

      <div className="flex flex-col gap-1.5">
        <label htmlFor={switcherId} className="text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
          {t('shell.account')}
        </label>
        {me ? (
          <select
            id={switcherId}
            value={accountId}
            onChange={(e) => router.push(e.target.value === '__new' ? `${pages.home}?new=1` : pages.account(e.target.value))}
            className={cn(
              'h-9 w-full rounded-md border-0 bg-white px-2.5 text-sm ring-1 ring-inset ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700',
              focusRing,
            )}
          >
            {me.accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
            <option value="__new">{t('shell.newAccount')}</option>
          </select>
        ) : (
          <Skeleton className="h-9 w-full" />
        )}
        <Link
          href={accountHref}
          className={linkClass(pathname === accountHref)}
          aria-current={pathname === accountHref ? 'page' : undefined}
        >
          {t('shell.accountOverview')}
        </Link>
      </div>

      <nav aria-label={t('shell.instances')} className="flex flex-col gap-1.5">
        <p className="text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{t('shell.instances')}</p>
        {instancesLoading && (
          <div className="flex flex-col gap-2">
            <Skeleton className="h-7 w-full" />
            <Skeleton className="h-7 w-4/5" />
          </div>
        )}
        {instances && instances.length === 0 && <p className="px-2.5 text-sm text-zinc-500 dark:text-zinc-400">{t('shell.noInstances')}</p>}
        <ul className="flex flex-col gap-0.5">
          {instances?.map((instance) => {
            const base = pages.instance(accountId, instance.id);
            const open = params.instanceId === instance.id;
            return (
              <li key={instance.id}>
                <Link href={base} className={cn(linkClass(false), open && 'font-medium text-zinc-900 dark:text-zinc-100')}>
                  <span className="min-w-0 flex-1 truncate">{instance.name}</span>
                  <Badge tone={instance.environment === 'live' ? 'green' : 'amber'}>{t(`environment.${instance.environment}`)}</Badge>
                </Link>
                {open && (
                  <div className="mt-0.5 ml-3 flex flex-col gap-3 border-l border-zinc-200 pl-2 dark:border-zinc-800">
                    {[undefined, ...INSTANCE_NAV_GROUPS].map((group) => {
                      const entries = INSTANCE_NAV.filter((entry) => entry.group === group);
                      // A visual heading only: a labelled group would make every link's label ambiguous ("Users").
                      return (
                        <div key={group ?? 'top'}>
                          {group && (
                            <p className="px-2.5 pb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
                              {t(`nav.groups.${group}`)}
                            </p>
                          )}
                          <ul className="flex flex-col gap-0.5">
                            {entries.map((entry) => {
                              const href = pages.instance(accountId, instance.id, entry.segment);
                              const active = pathname === href || (entry.segment !== '' && pathname.startsWith(`${href}/`));
                              return (
                                <li key={entry.segment}>
                                  <Link href={href} className={linkClass(active)} aria-current={active ? 'page' : undefined}>
                                    {tAll(entry.messageKey)}
                                  </Link>
                                </li>
                              );
                            })}
                          </ul>
                        </div>
                      );
                    })}
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      </nav>
    </div>
  );
}

function TopBar({ me, menuOpen, onMenu }: { me: Me | undefined; menuOpen: boolean; onMenu: () => void }) {
  const t = useTranslations('console');
  const errorMessage = useErrorMessage();
  const [signingOut, setSigningOut] = useState(false);
  const [error, setError] = useState<unknown>();
  const name = me ? displayName(me.user) : null;
  const email = me ? primaryEmail(me.user) : null;

  async function onSignOut() {
    setSigningOut(true);
    setError(undefined);
    try {
      await signOut();
    } catch (e) {
      setError(e);
      setSigningOut(false);
    }
  }

  return (
    <header className="sticky top-0 z-20 border-b border-zinc-200 bg-white/90 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/90">
      <div className="flex h-14 items-center gap-3 px-4 sm:px-6 lg:px-8">
        <Button
          variant="secondary"
          size="sm"
          className="lg:hidden"
          aria-expanded={menuOpen}
          aria-controls="console-sidebar"
          onClick={onMenu}
        >
          {t('shell.menu')}
        </Button>
        <div className="flex-1" />
        <LanguagePicker />
        <div className="hidden items-center gap-2 sm:flex">
          {me ? (
            <>
              <span
                aria-hidden
                className="grid size-8 place-items-center rounded-full bg-zinc-200 text-xs font-semibold text-zinc-700 dark:bg-zinc-800 dark:text-zinc-200"
              >
                {initials(name, email)}
              </span>
              <div className="flex min-w-0 flex-col leading-tight" data-testid="operator">
                {name && <span className="truncate text-sm font-medium">{name}</span>}
                {email && <span className="truncate text-xs text-zinc-500 dark:text-zinc-400">{email}</span>}
              </div>
            </>
          ) : (
            <Skeleton className="h-8 w-36" />
          )}
        </div>
        <Button variant="ghost" size="sm" loading={signingOut} onClick={onSignOut}>
          {t('shell.signOut')}
        </Button>
      </div>
      {error !== undefined && (
        <div className="px-4 pb-3 sm:px-6 lg:px-8">
          <Alert tone="error">{errorMessage(error)}</Alert>
        </div>
      )}
    </header>
  );
}

export function PageSkeleton() {
  return (
    <div className="flex flex-col gap-6" aria-busy>
      <Skeleton className="h-8 w-64" />
      <Skeleton className="h-4 w-96 max-w-full" />
      <Skeleton className="h-48 w-full" />
    </div>
  );
}
