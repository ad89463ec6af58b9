'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useState, type ReactNode } from 'react';
import {
  Alert,
  AsyncContent,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  ConfirmDialog,
  CopyField,
  Field,
  Input,
  Select,
  Skeleton,
} from '@/components/ui';
import { IMAGE_UPLOAD_TYPES } from '@/lib/file-base64';
import type { FapiItem, OrganizationDomain, PublicOrganization, Role } from '@/lib/generated/fapi';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { appName, useHosted } from './hosted-context';
import { useImageUpload } from './use-image-upload';
import { SectionError, useFapi, useFapiInvalidate, useList } from './hosted-list';
import { OrganizationAvatar, useMyMemberships, useSetActiveOrganization, type MyMembership } from './organizations';
import { HostedPage, InstanceMark, LoadError, TextLink } from './shell';
import { useFormErrors } from './use-form-errors';

type Member = FapiItem<'GET /v1/organizations/{id}/memberships'>;
type Invitation = FapiItem<'GET /v1/organizations/{id}/invitations'>;

const can = (m: MyMembership, permission: string) => m.permissions.includes(permission);

/**
 * `{fapi}/organization`: the session's active organization, as Clerk's <OrganizationProfile/>:
 * general (logo, name, slug), members and their roles, invitations, verified domains, leaving
 * and deleting. Each part shows only when the member's role holds its permission; the FAPI
 * enforces the same permissions on every call.
 */
export function OrganizationProfilePage() {
  const t = useTranslations('hosted.organizations');
  const { env, client, loadError, href } = useHosted();
  const router = useRouter();
  const session = client?.session ?? null;
  const signedIn = session?.status === 'active';
  const memberships = useMyMemberships();

  useEffect(() => {
    if (client && !signedIn) router.replace(href('/sign-in'));
  }, [client, signedIn, router, href]);

  const activeId = session?.last_active_organization_id ?? null;
  const mine = memberships.list?.find((m) => m.organization.id === activeId) ?? null;

  let body: ReactNode;
  if (loadError) body = <LoadError />;
  else if (!env || !signedIn) body = <PageSkeleton />;
  else if (!env.user_settings.organizations.enabled) body = <Alert tone="info">{t('disabled')}</Alert>;
  else if (activeId && !memberships.list && !memberships.error) body = <PageSkeleton />;
  else if (memberships.error) body = <Alert tone="error">{memberships.error}</Alert>;
  else if (!mine) body = <Alert tone="info">{t('noActive')}</Alert>;
  else body = <Sections key={mine.organization.id} mine={mine} />;

  return (
    <HostedPage wide>
      <div className="flex min-w-0 flex-col gap-6 [&>*]:min-w-0">
        <header className="flex flex-col gap-4">
          <div className="flex items-center justify-between gap-3">
            <div className="flex min-w-0 items-center gap-2 text-sm font-medium text-zinc-600 dark:text-zinc-400">
              {env ? <InstanceMark name={appName(env)} logoUrl={env.branding?.logo_url} small /> : <Skeleton className="size-8" />}
              {env ? <span className="truncate">{appName(env)}</span> : <Skeleton className="h-5 w-24" />}
            </div>
            {env && (
              <TextLink href={href('/profile')} className="text-sm">
                {t('backToProfile')}
              </TextLink>
            )}
          </div>
          {mine ? (
            <div className="flex min-w-0 items-center gap-3">
              <OrganizationAvatar organization={mine.organization} size="lg" />
              <div className="min-w-0">
                <h1 className="truncate text-2xl font-semibold tracking-tight">{mine.organization.name}</h1>
                <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('yourRole', { role: mine.role_name ?? mine.role })}</p>
              </div>
            </div>
          ) : env ? (
            <h1 className="text-2xl font-semibold tracking-tight">{t('profileTitle')}</h1>
          ) : (
            <Skeleton className="h-8 w-48" />
          )}
        </header>
        {body}
      </div>
    </HostedPage>
  );
}

function PageSkeleton() {
  return (
    <Card aria-hidden>
      <div className="flex flex-col gap-3 px-5 py-4">
        <Skeleton className="h-5 w-40" />
        <Skeleton className="h-10 w-full rounded-md" />
        <Skeleton className="h-10 w-full rounded-md" />
      </div>
    </Card>
  );
}

function Sections({ mine }: { mine: MyMembership }) {
  const id = mine.organization.id;
  const org = useFapi<PublicOrganization>(`/v1/organizations/${id}`);
  const canReadMembers = can(mine, 'org:sys_memberships:read') || can(mine, 'org:sys_memberships:manage');
  const roles = useFapi<{ data: Role[] }>(canReadMembers ? `/v1/organizations/${id}/roles` : null);
  const roleList = canReadMembers ? (roles.data?.data ?? null) : [];
  if (org.message ?? roles.message) return <Alert tone="error">{org.message ?? roles.message}</Alert>;
  if (!org.data || !roleList) return <PageSkeleton />;
  return (
    <>
      <GeneralSection organization={org.data} editable={can(mine, 'org:sys_profile:manage')} onSaved={org.setData} />
      {canReadMembers && <MembersSection mine={mine} roles={roleList} />}
      {can(mine, 'org:sys_memberships:manage') && <InvitationsSection organizationId={id} roles={roleList} />}
      {(can(mine, 'org:sys_domains:read') || can(mine, 'org:sys_domains:manage')) && (
        <DomainsSection organizationId={id} editable={can(mine, 'org:sys_domains:manage')} />
      )}
      <LeaveSection organization={org.data} canDelete={can(mine, 'org:sys_profile:delete')} />
    </>
  );
}

const GENERAL_FIELDS = ['name', 'slug'] as const;

function GeneralSection({
  organization,
  editable,
  onSaved,
}: {
  organization: PublicOrganization;
  editable: boolean;
  onSaved(o: PublicOrganization): void;
}) {
  const t = useTranslations('hosted.organizations');
  const { call } = useHosted();
  const invalidate = useFapiInvalidate();
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(GENERAL_FIELDS);
  const [name, setName] = useState(organization.name);
  const [slug, setSlug] = useState(organization.slug);
  const [saved, setSaved] = useState(false);
  const dirty = name.trim() !== organization.name || slug.trim() !== organization.slug;

  const changed = async (o: PublicOrganization) => {
    onSaved(o);
    await invalidate('/v1/me/organization_memberships');
  };
  const save = handleSubmit(
    async () => {
      setSaved(false);
      const json = {
        ...(name.trim() !== organization.name ? { name: name.trim() } : {}),
        ...(slug.trim() !== organization.slug ? { slug: slug.trim() } : {}),
      };
      await changed(await call<PublicOrganization>(`/v1/organizations/${organization.id}`, { method: 'PATCH', json }));
      setSaved(true);
    },
    { check: () => (name.trim() ? false : { name: t('nameRequired') }) },
  );

  return (
    <Card>
      <CardHeader title={t('generalTitle')} description={editable ? t('generalDescription') : undefined} />
      <CardBody className="flex flex-col gap-6">
        <OrganizationLogo organization={organization} editable={editable} onSaved={changed} />
        {editable ? (
          <form onSubmit={save} noValidate className="flex flex-col gap-4">
            {formError && <Alert tone="error">{formError}</Alert>}
            {saved && !dirty && <Alert tone="success">{t('saved')}</Alert>}
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
              <Field label={t('name')} error={fieldErrors.name}>
                {(p) => <Input {...p} name="name" maxLength={256} value={name} onChange={(e) => setName(e.target.value)} />}
              </Field>
              <Field label={t('slug')} error={fieldErrors.slug}>
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
            </div>
            <div className="flex justify-end">
              <Button type="submit" loading={busy} disabled={!dirty}>
                {t('save')}
              </Button>
            </div>
          </form>
        ) : (
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-zinc-600 dark:text-zinc-400">{t('name')}</dt>
            <dd className="min-w-0 break-words">{organization.name}</dd>
            <dt className="text-zinc-600 dark:text-zinc-400">{t('slug')}</dt>
            <dd className="min-w-0 break-all font-mono">{organization.slug}</dd>
          </dl>
        )}
      </CardBody>
    </Card>
  );
}

function OrganizationLogo({
  organization,
  editable,
  onSaved,
}: {
  organization: PublicOrganization;
  editable: boolean;
  onSaved(o: PublicOrganization): Promise<void>;
}) {
  const t = useTranslations('hosted.organizations');
  const { error, busy, upload, remove } = useImageUpload<PublicOrganization>(`/v1/organizations/${organization.id}/logo`, onSaved, {
    type: t('logoType'),
    size: t('logoSize'),
  });

  return (
    <section aria-label={t('logo')} className="flex flex-wrap items-center gap-4">
      <OrganizationAvatar organization={organization} size="lg" />
      {editable && (
        <div className="flex flex-col gap-1">
          <label className="text-sm font-medium">
            {t('uploadLogo')}
            <input type="file" accept={IMAGE_UPLOAD_TYPES.join(',')} onChange={upload} disabled={busy} className="mt-1 block text-sm" />
          </label>
          {organization.has_image && (
            <Button size="sm" variant="ghost" className="self-start" disabled={busy} onClick={remove}>
              {t('removeLogo')}
            </Button>
          )}
        </div>
      )}
      {error && (
        <p role="alert" className="basis-full text-xs font-medium text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </section>
  );
}

const memberName = (m: Pick<Member, 'public_user_data'>) =>
  [m.public_user_data.first_name, m.public_user_data.last_name].filter(Boolean).join(' ') || m.public_user_data.identifier;

function RowsSkeleton() {
  return (
    <div className="flex flex-col gap-3 px-5 py-4" aria-hidden>
      <Skeleton className="h-10 w-full rounded-md" />
      <Skeleton className="h-10 w-full rounded-md" />
    </div>
  );
}

function MembersSection({ mine, roles }: { mine: MyMembership; roles: Role[] }) {
  const t = useTranslations('hosted.organizations');
  const { call, client } = useHosted();
  const describe = useFapiError();
  const id = mine.organization.id;
  const { list, setList, error } = useList<Member>(`/v1/organizations/${id}/memberships`);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [rowError, setRowError] = useState<string | null>(null);
  const manage = can(mine, 'org:sys_memberships:manage');
  const me = client?.session?.user_id;

  async function changeRole(member: Member, role: string) {
    setRowError(null);
    try {
      const updated = await call<Member>(`/v1/organizations/${id}/memberships/${member.public_user_data.user_id}`, {
        method: 'PATCH',
        json: { role },
      });
      setList((l) => l?.map((m) => (m.id === updated.id ? updated : m)) ?? null);
    } catch (e) {
      setRowError(describe(e).message);
    }
  }

  return (
    <Card>
      <CardHeader title={t('membersTitle')} description={t('membersDescription')} />
      {rowError && (
        <div className="px-5 pt-4">
          <Alert tone="error">{rowError}</Alert>
        </div>
      )}
      <AsyncContent data={list} error={error && <SectionError message={error} />} loading={<RowsSkeleton />}>
        {(list) => (
          <ul aria-label={t('membersTitle')} className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {list.map((m) => {
              const self = m.public_user_data.user_id === me;
              const name = memberName(m);
              return (
                <li key={m.id} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
                  <div className="min-w-0 text-sm">
                    <p className="flex flex-wrap items-center gap-2 font-medium">
                      <span className="break-all">{name}</span>
                      {self && <Badge tone="green">{t('you')}</Badge>}
                    </p>
                    {name !== m.public_user_data.identifier && (
                      <p className="break-all text-zinc-600 dark:text-zinc-400">{m.public_user_data.identifier}</p>
                    )}
                  </div>
                  <div className="flex flex-wrap items-center gap-2">
                    {manage && !self ? (
                      <Select
                        aria-label={t('roleOf', { name })}
                        className="w-40"
                        value={m.role}
                        onChange={(e) => void changeRole(m, e.target.value)}
                        options={roles.map((r) => r.key)}
                        optionLabel={(key) => roles.find((r) => r.key === key)?.name ?? key}
                      />
                    ) : (
                      <Badge>{m.role_name ?? m.role}</Badge>
                    )}
                    {manage && !self && (
                      <Button variant="secondary" size="sm" aria-label={t('removeMemberLabel', { name })} onClick={() => setRemoving(m)}>
                        {t('removeMember')}
                      </Button>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </AsyncContent>
      <ConfirmDialog
        open={removing !== null}
        title={t('removeMemberTitle')}
        description={removing ? t('removeMemberBody', { name: memberName(removing) }) : ''}
        confirmLabel={t('removeMember')}
        describeError={(e) => describe(e).message}
        onConfirm={async () => {
          const userId = removing!.public_user_data.user_id;
          await call(`/v1/organizations/${id}/memberships/${userId}`, { method: 'DELETE' });
          setList((l) => l?.filter((m) => m.public_user_data.user_id !== userId) ?? null);
        }}
        onClose={() => setRemoving(null)}
      />
    </Card>
  );
}

const INVITE_FIELDS = ['email_address', 'role'] as const;
const PENDING = { status: 'pending' } as const;

function InvitationsSection({ organizationId, roles }: { organizationId: string; roles: Role[] }) {
  const t = useTranslations('hosted.organizations');
  const { call } = useHosted();
  const describe = useFapiError();
  const { list, setList, error } = useList<Invitation>(`/v1/organizations/${organizationId}/invitations`, PENDING);
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(INVITE_FIELDS);
  const defaultRole = roles.find((r) => r.key === 'org:member')?.key ?? roles[0]?.key ?? '';
  const [email, setEmail] = useState('');
  const [role, setRole] = useState(defaultRole);
  const [sent, setSent] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const roleName = (key: string) => roles.find((r) => r.key === key)?.name ?? key;

  const invite = handleSubmit(
    async () => {
      setSent(null);
      const invitation = await call<Invitation>(`/v1/organizations/${organizationId}/invitations`, {
        json: { email_address: email.trim(), ...(role ? { role } : {}) },
      });
      setList((l) => [...(l ?? []), invitation]);
      setSent(invitation.email_address);
      setEmail('');
    },
    { check: () => (email.trim() ? false : { email_address: t('emailRequired') }) },
  );

  return (
    <Card>
      <CardHeader title={t('invitationsTitle')} description={t('invitationsDescription')} />
      <CardBody>
        <form onSubmit={invite} noValidate className="flex flex-col gap-4">
          {formError && <Alert tone="error">{formError}</Alert>}
          {sent && <Alert tone="success">{t('invitationSent', { email: sent })}</Alert>}
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-[1fr_12rem]">
            <Field label={t('inviteEmail')} error={fieldErrors.email_address}>
              {(p) => (
                <Input
                  {...p}
                  type="email"
                  name="email_address"
                  autoComplete="off"
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                />
              )}
            </Field>
            <Field label={t('inviteRole')} error={fieldErrors.role}>
              {(p) => (
                <Select
                  {...p}
                  value={role}
                  onChange={(e) => setRole(e.target.value)}
                  options={roles.map((r) => r.key)}
                  optionLabel={roleName}
                />
              )}
            </Field>
          </div>
          <div className="flex justify-end">
            <Button type="submit" loading={busy}>
              {t('sendInvitation')}
            </Button>
          </div>
        </form>
      </CardBody>
      <AsyncContent data={list} error={error && <SectionError message={error} />} loading={<RowsSkeleton />}>
        {(list) =>
          list.length === 0 ? (
            <p className="border-t border-zinc-100 px-5 py-4 text-sm text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
              {t('noInvitations')}
            </p>
          ) : (
            <ul
              aria-label={t('pendingInvitations')}
              className="divide-y divide-zinc-100 border-t border-zinc-100 dark:divide-zinc-800 dark:border-zinc-800"
            >
              {list.map((i) => (
                <li key={i.id} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
                  <div className="min-w-0 text-sm">
                    <p className="break-all font-medium">{i.email_address}</p>
                    <p className="text-zinc-600 dark:text-zinc-400">{roleName(i.role)}</p>
                  </div>
                  <Button
                    variant="secondary"
                    size="sm"
                    aria-label={t('revokeLabel', { email: i.email_address })}
                    onClick={() => setRevoking(i)}
                  >
                    {t('revoke')}
                  </Button>
                </li>
              ))}
            </ul>
          )
        }
      </AsyncContent>
      <ConfirmDialog
        open={revoking !== null}
        title={t('revokeTitle')}
        description={revoking ? t('revokeBody', { email: revoking.email_address }) : ''}
        confirmLabel={t('revoke')}
        describeError={(e) => describe(e).message}
        onConfirm={async () => {
          const invitationId = revoking!.id;
          await call(`/v1/organizations/${organizationId}/invitations/${invitationId}/revoke`, { method: 'POST' });
          setList((l) => l?.filter((i) => i.id !== invitationId) ?? null);
        }}
        onClose={() => setRevoking(null)}
      />
    </Card>
  );
}

const DOMAIN_FIELDS = ['name'] as const;
const ENROLLMENT = ['manual_invitation', 'automatic_invitation', 'automatic_suggestion'] as const;

function DomainsSection({ organizationId, editable }: { organizationId: string; editable: boolean }) {
  const t = useTranslations('hosted.organizations');
  const { call } = useHosted();
  const describe = useFapiError();
  const { list, setList, error } = useList<OrganizationDomain>(`/v1/organizations/${organizationId}/domains`);
  const { formError, fieldErrors, busy, handleSubmit } = useFormErrors(DOMAIN_FIELDS);
  const [name, setName] = useState('');
  const [rowError, setRowError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<OrganizationDomain | null>(null);
  const path = `/v1/organizations/${organizationId}/domains`;
  const replace = (d: OrganizationDomain) => setList((l) => l?.map((x) => (x.id === d.id ? d : x)) ?? null);

  const add = handleSubmit(
    async () => {
      const domain = await call<OrganizationDomain>(path, { json: { name: name.trim() } });
      setList((l) => [...(l ?? []), domain]);
      setName('');
    },
    { check: () => (name.trim() ? false : { name: t('domainRequired') }) },
  );

  async function act(change: () => Promise<OrganizationDomain>) {
    setRowError(null);
    try {
      replace(await change());
    } catch (e) {
      setRowError(describe(e).message);
    }
  }
  const checkDns = (d: OrganizationDomain) =>
    act(async () => {
      await call(`${path}/${d.id}/prepare_verification`, { json: { strategy: 'dns_record' } });
      return call<OrganizationDomain>(`${path}/${d.id}/attempt_verification`, { json: { strategy: 'dns_record' } });
    });

  return (
    <Card>
      <CardHeader title={t('domainsTitle')} description={t('domainsDescription')} />
      {editable && (
        <CardBody>
          <form onSubmit={add} noValidate className="flex flex-col gap-3 sm:flex-row sm:items-end">
            <div className="min-w-0 flex-1">
              <Field label={t('domainName')} error={fieldErrors.name ?? formError}>
                {(p) => (
                  <Input
                    {...p}
                    name="name"
                    placeholder="example.com"
                    autoCapitalize="none"
                    spellCheck={false}
                    value={name}
                    onChange={(e) => setName(e.target.value)}
                  />
                )}
              </Field>
            </div>
            <Button type="submit" loading={busy}>
              {t('addDomain')}
            </Button>
          </form>
        </CardBody>
      )}
      {rowError && (
        <div className="px-5 pb-4">
          <Alert tone="error">{rowError}</Alert>
        </div>
      )}
      <AsyncContent data={list} error={error && <SectionError message={error} />} loading={<RowsSkeleton />}>
        {(list) =>
          list.length === 0 ? (
            <p className="border-t border-zinc-100 px-5 py-4 text-sm text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
              {t('noDomains')}
            </p>
          ) : (
            <ul
              aria-label={t('domainsTitle')}
              className="divide-y divide-zinc-100 border-t border-zinc-100 dark:divide-zinc-800 dark:border-zinc-800"
            >
              {list.map((d) => {
                const verified = d.verification.status === 'verified';
                return (
                  <li key={d.id} className="flex flex-col gap-3 px-5 py-3">
                    <div className="flex flex-wrap items-center justify-between gap-3">
                      <p className="flex flex-wrap items-center gap-2 text-sm font-medium">
                        <span className="break-all">{d.name}</span>
                        {verified ? <Badge tone="green">{t('verified')}</Badge> : <Badge tone="amber">{t('unverified')}</Badge>}
                      </p>
                      {editable && (
                        <div className="flex flex-wrap items-center gap-2">
                          <Select
                            aria-label={t('enrollmentOf', { domain: d.name })}
                            className="w-56"
                            value={d.enrollment_mode}
                            onChange={(e) =>
                              void act(() =>
                                call<OrganizationDomain>(`${path}/${d.id}`, {
                                  method: 'PATCH',
                                  json: { enrollment_mode: e.target.value },
                                }),
                              )
                            }
                            options={ENROLLMENT}
                            optionLabel={(mode) => t(`enrollment.${mode}`)}
                          />
                          {!verified && (
                            <Button size="sm" variant="secondary" onClick={() => void checkDns(d)}>
                              {t('checkDns')}
                            </Button>
                          )}
                          <Button
                            size="sm"
                            variant="secondary"
                            aria-label={t('removeDomainLabel', { domain: d.name })}
                            onClick={() => setRemoving(d)}
                          >
                            {t('removeDomain')}
                          </Button>
                        </div>
                      )}
                    </div>
                    {!verified && editable && (
                      <div className="flex flex-col gap-2 text-sm">
                        <p className="text-zinc-600 dark:text-zinc-400">{t('txtHint')}</p>
                        <CopyField label={t('txtName')} value={d.txt_record.name} />
                        <CopyField label={t('txtValue')} value={d.txt_record.value} />
                      </div>
                    )}
                  </li>
                );
              })}
            </ul>
          )
        }
      </AsyncContent>
      <ConfirmDialog
        open={removing !== null}
        title={t('removeDomainTitle')}
        description={removing ? t('removeDomainBody', { domain: removing.name }) : ''}
        confirmLabel={t('removeDomain')}
        describeError={(e) => describe(e).message}
        onConfirm={async () => {
          const domainId = removing!.id;
          await call(`${path}/${domainId}`, { method: 'DELETE' });
          setList((l) => l?.filter((d) => d.id !== domainId) ?? null);
        }}
        onClose={() => setRemoving(null)}
      />
    </Card>
  );
}

/** Leaving (DELETE /v1/me/organization_memberships/:id) and, for those allowed, deleting; then back to the personal account. */
function LeaveSection({ organization, canDelete }: { organization: PublicOrganization; canDelete: boolean }) {
  const t = useTranslations('hosted.organizations');
  const { call, href } = useHosted();
  const describe = useFapiError();
  const setActive = useSetActiveOrganization();
  const invalidate = useFapiInvalidate();
  const router = useRouter();
  const [confirm, setConfirm] = useState<'leave' | 'delete' | null>(null);

  async function gone() {
    await setActive(null);
    await invalidate('/v1/me/organization_memberships');
    router.push(href('/profile'));
  }

  return (
    <Card>
      <CardHeader title={t('dangerTitle')} />
      <CardBody className="flex flex-col gap-4">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <p className="min-w-0 text-sm text-zinc-600 dark:text-zinc-400">{t('leaveDescription')}</p>
          <Button variant="danger" size="sm" onClick={() => setConfirm('leave')}>
            {t('leave')}
          </Button>
        </div>
        {canDelete && (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="min-w-0 text-sm text-zinc-600 dark:text-zinc-400">{t('deleteDescription')}</p>
            <Button variant="danger" size="sm" onClick={() => setConfirm('delete')}>
              {t('delete')}
            </Button>
          </div>
        )}
      </CardBody>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm === 'delete' ? t('deleteTitle') : t('leaveTitle')}
        description={t(confirm === 'delete' ? 'deleteBody' : 'leaveBody', { organization: organization.name })}
        confirmLabel={confirm === 'delete' ? t('delete') : t('leave')}
        confirmText={confirm === 'delete' ? organization.name : undefined}
        confirmTextLabel={confirm === 'delete' ? t('deleteConfirmLabel', { organization: organization.name }) : undefined}
        describeError={(e) => describe(e).message}
        onConfirm={async () => {
          if (confirm === 'delete') await call(`/v1/organizations/${organization.id}`, { method: 'DELETE' });
          else await call(`/v1/me/organization_memberships/${organization.id}`, { method: 'DELETE' });
          await gone();
        }}
        onClose={() => setConfirm(null)}
      />
    </Card>
  );
}
