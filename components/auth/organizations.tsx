'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useId, useRef, useState } from 'react';
import { Alert, Field, Input, Skeleton, cn, focusRing } from '@/components/ui';
import type { FapiItem, FapiResponse, PublicOrganization } from '@/lib/generated/fapi';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { useFapi, useFapiInvalidate } from './hosted-list';
import { AuthCard, AuthForm, PendingAuthCard, TextLink } from './shell';
import { useFormErrors } from './use-form-errors';

/**
 * The hosted organization pages (Clerk's <CreateOrganization/>, <OrganizationSwitcher/>;
 * the profile is organization-profile.tsx): all through the FAPI's own routes, which
 * enforce what the instance allows and what each member's role may do.
 */

export type MyMembership = FapiItem<'GET /v1/me/organization_memberships'>;

/**
 * The signed-in user's memberships (GET /v1/me/organization_memberships), shared by the switcher
 * and the organization page; not asked for while the environment says organizations are off.
 */
export function useMyMemberships() {
  const { env } = useHosted();
  const { data, message } = useFapi<{ data: MyMembership[] }>(env?.user_settings.organizations.enabled ? MEMBERSHIPS : null);
  return { list: data?.data ?? null, error: message };
}
const MEMBERSHIPS = '/v1/me/organization_memberships';

/**
 * Sets the active organization of this browser's session (`null`: the personal account) through
 * POST /v1/client/sessions/:id/touch, and keeps the client it answers.
 */
export function useSetActiveOrganization() {
  const { call, client, setClient } = useHosted();
  return async (organizationId: string | null) => {
    const sessionId = client?.session?.id;
    if (!sessionId) return;
    const answer = await call<FapiResponse<'POST /v1/client/sessions/{id}/touch'>>(`/v1/client/sessions/${sessionId}/touch`, {
      json: { active_organization_id: organizationId },
    });
    setClient(answer.client);
  };
}

/** An organization's logo, else its initial in a square. */
export function OrganizationAvatar({
  organization,
  size = 'sm',
}: {
  organization: Pick<PublicOrganization, 'name' | 'image_url'>;
  size?: 'sm' | 'lg';
}) {
  const box = size === 'lg' ? 'size-14 text-xl' : 'size-7 text-xs';
  return organization.image_url ? (
    <img src={organization.image_url} alt="" className={cn(box, 'shrink-0 rounded-md object-cover')} />
  ) : (
    <span
      aria-hidden
      className={cn(box, 'flex shrink-0 items-center justify-center rounded-md bg-zinc-200 font-semibold dark:bg-zinc-800')}
    >
      {organization.name.slice(0, 1).toUpperCase()}
    </span>
  );
}

/**
 * The organization switcher of the hosted profile: the personal account and each membership;
 * choosing one makes it the session's active organization. Links to the active
 * organization's page and, when the instance lets users, to creating one.
 */
export function OrganizationSwitcher() {
  const t = useTranslations('hosted.organizations');
  const { env, client, href } = useHosted();
  const describe = useFapiError();
  const setActive = useSetActiveOrganization();
  const { list, error: loadError } = useMyMemberships();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  if (!env?.user_settings.organizations.enabled) return null;
  const activeId = client?.session?.last_active_organization_id ?? null;
  const active = list?.find((m) => m.organization.id === activeId)?.organization ?? null;

  async function choose(organizationId: string | null) {
    setOpen(false);
    if (organizationId === activeId) return;
    setBusy(true);
    setError(null);
    try {
      await setActive(organizationId);
    } catch (e) {
      setError(describe(e).message);
    } finally {
      setBusy(false);
    }
  }

  const item = cn(
    'flex w-full items-center gap-2 rounded-md px-2 py-2 text-left text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800',
    focusRing,
  );
  return (
    <div ref={root} className="relative flex min-w-0 flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          aria-haspopup="true"
          aria-expanded={open}
          aria-controls={menuId}
          disabled={!list || busy}
          onClick={() => setOpen((o) => !o)}
          className={cn(
            'inline-flex h-10 min-w-0 max-w-full items-center gap-2 rounded-md bg-white px-3 text-sm font-medium shadow-sm ring-1 ring-inset ring-zinc-300 hover:bg-zinc-50 disabled:opacity-60 dark:bg-zinc-900 dark:ring-zinc-700 dark:hover:bg-zinc-800',
            focusRing,
          )}
        >
          {active ? <OrganizationAvatar organization={active} /> : null}
          {list ? <span className="truncate">{active?.name ?? t('personal')}</span> : <Skeleton className="h-4 w-28" />}
          <span className="sr-only">{t('switcherLabel')}</span>
          <span aria-hidden className="text-zinc-500">
            ▾
          </span>
        </button>
        {active && (
          <TextLink href={href('/organization')} className="text-sm">
            {t('manage')}
          </TextLink>
        )}
      </div>
      {open && list && (
        <div
          id={menuId}
          className="absolute left-0 top-11 z-20 w-72 max-w-[calc(100vw-2rem)] rounded-lg bg-white p-1 shadow-lg ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800"
        >
          <ul aria-label={t('switchTo')}>
            <li>
              <button type="button" className={item} aria-current={activeId === null || undefined} onClick={() => choose(null)}>
                <span className="min-w-0 flex-1 truncate">{t('personal')}</span>
                {activeId === null && <span aria-hidden>✓</span>}
              </button>
            </li>
            {list.map((m) => (
              <li key={m.organization.id}>
                <button
                  type="button"
                  className={item}
                  aria-current={m.organization.id === activeId || undefined}
                  onClick={() => choose(m.organization.id)}
                >
                  <OrganizationAvatar organization={m.organization} />
                  <span className="min-w-0 flex-1 truncate">{m.organization.name}</span>
                  {m.organization.id === activeId && <span aria-hidden>✓</span>}
                </button>
              </li>
            ))}
          </ul>
          {env.user_settings.actions.create_organization && (
            <div className="mt-1 border-t border-zinc-200 pt-1 dark:border-zinc-800">
              <a href={href('/create-organization')} className={item}>
                {t('create')}
              </a>
            </div>
          )}
        </div>
      )}
      {(error ?? loadError) && <Alert tone="error">{error ?? loadError}</Alert>}
    </div>
  );
}

const CREATE_FIELDS = ['name', 'slug'] as const;

/** `{fapi}/create-organization`: name and slug (POST /v1/organizations); the new organization becomes the active one. */
export function CreateOrganizationPage() {
  const t = useTranslations('hosted.organizations');
  const { env, client, call, href } = useHosted();
  const router = useRouter();
  const invalidate = useFapiInvalidate();
  const setActive = useSetActiveOrganization();
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(CREATE_FIELDS);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const signedIn = client?.session?.status === 'active';

  useEffect(() => {
    if (client && !signedIn) router.replace(href('/sign-in'));
  }, [client, signedIn, router, href]);

  if (!env || !client || !signedIn) return <PendingAuthCard title={t('createTitle')} fields={2} />;
  const back = (
    <TextLink href={href('/profile')} className="text-sm">
      {t('backToProfile')}
    </TextLink>
  );
  if (!env.user_settings.actions.create_organization) {
    return (
      <AuthCard title={t('createTitle')} footer={back}>
        <Alert tone="info">{t('createNotAllowed')}</Alert>
      </AuthCard>
    );
  }

  const submit = handleSubmit(
    async () => {
      const created = await call<FapiResponse<'POST /v1/organizations'>>('/v1/organizations', {
        json: { name: name.trim(), ...(slug.trim() ? { slug: slug.trim() } : {}) },
      });
      await setActive(created.id);
      await invalidate(MEMBERSHIPS);
      router.push(href('/organization'));
    },
    { stayBusy: true, check: () => (name.trim() ? false : { name: t('nameRequired') }) },
  );

  return (
    <AuthCard title={t('createTitle')} subtitle={t('createSubtitle')} footer={back}>
      <AuthForm onSubmit={submit} error={formError} submitLabel={t('createSubmit')} busy={busy}>
        <Field label={t('name')} error={fieldErrors.name}>
          {(p) => <Input {...p} name="name" maxLength={256} value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
        <Field label={t('slug')} hint={t('slugHint')} error={fieldErrors.slug}>
          {(p) => (
            <Input
              {...p}
              name="slug"
              maxLength={64}
              value={slug}
              onChange={(e) => setSlug(e.target.value)}
              autoCapitalize="none"
              spellCheck={false}
            />
          )}
        </Field>
      </AuthForm>
    </AuthCard>
  );
}
