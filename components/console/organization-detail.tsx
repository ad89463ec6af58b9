'use client';

import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState, type FormEvent, type ReactNode } from 'react';
import {
  ActionCell,
  Alert,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  ConfirmDialog,
  CopyField,
  FactList,
  Field,
  Input,
  Select,
  Skeleton,
  Td,
  Tr,
} from '@/components/ui';
import { useDates } from '@/lib/console/format';
import {
  ENROLLMENT_MODES,
  orgApi,
  type Domain,
  type EnrollmentMode,
  type Invitation,
  type Membership,
  type Organization,
} from '@/lib/console/organizations';
import { pages } from '@/lib/console/paths';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { Breadcrumbs } from './breadcrumbs';
import { useConsole } from './console-context';
import { OrganizationDirectory } from './organization-directory';
import { OrganizationSso } from './organization-sso';
import { PortalLinkButton } from './portal-link';
import { useInstance } from './instance-context';
import { CardList, CardTable, ErrorState } from './states';
import { useActions } from './use-actions';
import { useFormError } from './use-form-error';
import { EditOrganizationDialog } from './organization-edit';
import { PersonRef, usePeople } from './person';
import { UserPicker } from './user-picker';
import { DEFAULT_ROLES, keysWith, roleName, type RoleChoice } from './role-choice';
import type { InstanceResponse } from '@/lib/console/types';

/** `…/organizations/[orgId]`: the organization, its members with roles, invitations and domains. */
export function OrganizationDetail({ orgId }: { orgId: string }) {
  const { account } = useConsole();
  const instance = useInstance();
  const base = orgApi.organization(account.id, instance.id, orgId);
  const org = useDashboard<Organization>(base);
  const roles = useDashboard<InstanceResponse<'GET /roles'>>(`${orgApi.roles(account.id, instance.id)}?limit=500`);
  const permissions = useDashboard<InstanceResponse<'GET /permissions'>>(`${orgApi.permissions(account.id, instance.id)}?limit=500`);

  if (org.error) return <ErrorState error={org.error} onRetry={org.reload} />;
  if (!org.data) {
    return (
      <div className="flex flex-col gap-8" aria-busy>
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-48 w-full" />
      </div>
    );
  }
  const roleKeys: RoleChoice[] = roles.data?.data.map((r) => ({ key: r.key, name: r.name })) ?? DEFAULT_ROLES;
  return (
    <div className="flex flex-col gap-8">
      <OrganizationHeader org={org.data} base={base} />
      <Members
        base={base}
        roles={roleKeys}
        permissionNames={Object.fromEntries((permissions.data?.data ?? []).map((p) => [p.key, p.name]))}
      />
      <Invitations base={base} roles={roleKeys} />
      <Domains base={base} />
      <OrganizationDirectory base={base} roles={roleKeys} />
      <OrganizationSso base={base} />
    </div>
  );
}

function OrganizationHeader({ org, base }: { org: Organization; base: string }) {
  const invalidate = useInvalidate();
  const t = useTranslations('organizations.detail');
  const tConfirm = useTranslations('console.confirm');
  const dates = useDates();
  const router = useRouter();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const [confirming, setConfirming] = useState(false);
  const [editing, setEditing] = useState(false);
  const people = usePeople([org.created_by]);
  const facts: Array<[string, ReactNode]> = [
    [t('slug'), org.slug],
    [t('members'), org.max_allowed_memberships > 0 ? `${org.members_count} / ${org.max_allowed_memberships}` : String(org.members_count)],
    [t('created'), dates.dateTime(org.created_at)],
    [t('createdBy'), <PersonRef key="by" value={org.created_by} people={people} />],
  ];
  return (
    <div className="flex flex-col gap-4">
      <Breadcrumbs segment="organizations" current={org.name} />
      <header className="flex flex-wrap items-center justify-between gap-4">
        <div className="flex min-w-0 items-center gap-3">
          {org.image_url && (
            <img src={org.image_url} alt="" className="size-10 shrink-0 rounded-md object-cover" referrerPolicy="no-referrer" />
          )}
          <div className="min-w-0">
            <h1 className="truncate text-2xl font-semibold tracking-tight">{org.name}</h1>
            <p className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{org.id}</p>
          </div>
        </div>
        {canWrite && (
          <div className="flex flex-wrap gap-2">
            <PortalLinkButton base={base} />
            <Button variant="secondary" onClick={() => setEditing(true)}>
              {t('edit')}
            </Button>
            <Button variant="danger" onClick={() => setConfirming(true)}>
              {t('delete')}
            </Button>
          </div>
        )}
      </header>
      <FactList facts={facts} className="grid-cols-[auto_1fr] gap-x-6 gap-y-2 sm:grid-cols-[auto_1fr_auto_1fr]" />
      {editing && (
        <EditOrganizationDialog
          org={org}
          base={base}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            void invalidate(base, { exact: true });
          }}
        />
      )}
      <ConfirmDialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={t('deleteTitle')}
        description={t('deleteDescription', { name: org.name })}
        confirmLabel={t('delete')}
        confirmText={org.slug}
        confirmTextLabel={tConfirm('typeToConfirm', { text: org.slug })}
        onConfirm={async () => {
          await mutate('DELETE', base);
          router.replace(pages.instance(account.id, instance.id, 'organizations'));
        }}
      />
    </div>
  );
}

/** A role badge: the name, the key on hover. */
function RoleBadge({ roles, role }: { roles: RoleChoice[]; role: string }) {
  return (
    <Badge tone="indigo">
      <span title={role}>{roleName(roles, role)}</span>
    </Badge>
  );
}

function RoleSelect({
  value,
  roles,
  onChange,
  label,
  disabled,
}: {
  value: string;
  roles: RoleChoice[];
  onChange: (role: string) => void;
  label: string;
  disabled?: boolean;
}) {
  return (
    <Select
      aria-label={label}
      value={value}
      disabled={disabled}
      onChange={(e) => onChange(e.target.value)}
      className="h-8 min-w-36 text-sm"
      options={keysWith(roles, value)}
      optionLabel={(key) => roleName(roles, key)}
    />
  );
}

/** `permissionNames`: key → name, so the permissions column reads as names (keys on hover). */
function Members({ base, roles, permissionNames }: { base: string; roles: RoleChoice[]; permissionNames: Record<string, string> }) {
  const invalidate = useInvalidate();
  /** A membership changed: the members and the organization (its member count). */
  const membersChanged = () => Promise.all([invalidate(`${base}/memberships`), invalidate(base, { exact: true })]);
  const t = useTranslations('organizations.detail');
  const dates = useDates();
  const { canWrite } = useConsole();
  const members = useDashboard<InstanceResponse<'GET /organizations/{id}/memberships'>>(`${base}/memberships?limit=500`);
  const [removing, setRemoving] = useState<Membership | null>(null);
  const rowAction = useActions();
  const form = useFormError(['user_id', 'role']);
  const [userId, setUserId] = useState('');
  const [pickerKey, setPickerKey] = useState(0);
  const [role, setRole] = useState('org:member');

  function changeRole(m: Membership, next: string) {
    void rowAction.act('row', async () => {
      await mutate('PATCH', `${base}/memberships/${encodeURIComponent(m.public_user_data.user_id)}`, { role: next });
      await invalidate(`${base}/memberships`);
    });
  }

  const add = form.handleSubmit(async () => {
    await mutate('POST', `${base}/memberships`, { user_id: userId.trim(), role });
    setUserId('');
    setPickerKey((k) => k + 1);
    await membersChanged();
  });

  return (
    <Card>
      <CardHeader title={t('membersTitle')} description={t('membersDescription')} />
      {rowAction.alert && <div className="px-5 pt-4">{rowAction.alert}</div>}
      <CardTable
        data={members.data?.data}
        error={members.error}
        onRetry={members.reload}
        columns={3}
        rows={2}
        emptyTitle={t('noMembersTitle')}
        emptyDescription={t('noMembersDescription')}
        caption={t('membersTitle')}
        headings={[t('member'), t('role'), t('permissions'), t('joined')]}
        actions={canWrite && t('actions')}
        row={(m) => {
          const who = m.public_user_data.identifier;
          return (
            <Tr key={m.id}>
              <Td>
                <span className="flex min-w-0 flex-col">
                  <span className="truncate font-medium">
                    {[m.public_user_data.first_name, m.public_user_data.last_name].filter(Boolean).join(' ') || who}
                  </span>
                  <span className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{who}</span>
                </span>
              </Td>
              <Td>
                {canWrite ? (
                  <RoleSelect value={m.role} roles={roles} label={t('roleOf', { member: who })} onChange={(r) => changeRole(m, r)} />
                ) : (
                  <RoleBadge roles={roles} role={m.role} />
                )}
              </Td>
              <Td className="text-xs text-zinc-600 dark:text-zinc-400">
                <span title={m.permissions.join(', ') || undefined}>
                  {m.permissions.map((p) => permissionNames[p] ?? p).join(', ') || '—'}
                </span>
              </Td>
              <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(m.created_at)}</Td>
              {canWrite && (
                <ActionCell onClick={() => setRemoving(m)} aria-label={t('removeMember', { member: who })}>
                  {t('remove')}
                </ActionCell>
              )}
            </Tr>
          );
        }}
      />
      {canWrite && (
        <AddForm form={form} onSubmit={add} submitLabel={t('addMember')} disabled={!userId.trim()}>
          <Field label={t('userId')} error={form.fieldError('user_id')}>
            {(p) => <UserPicker key={pickerKey} control={p} value={userId} onChange={setUserId} />}
          </Field>
          <RoleField form={form} value={role} roles={roles} onChange={setRole} />
        </AddForm>
      )}
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title={t('removeTitle')}
        description={t('removeDescription', { member: removing?.public_user_data.identifier ?? '' })}
        confirmLabel={t('remove')}
        onConfirm={async () => {
          if (removing) await mutate('DELETE', `${base}/memberships/${encodeURIComponent(removing.public_user_data.user_id)}`);
          await membersChanged();
        }}
      />
    </Card>
  );
}

const STATUS_TONES = { pending: 'amber', accepted: 'green', revoked: 'neutral', expired: 'neutral' } as const;

function Invitations({ base, roles }: { base: string; roles: RoleChoice[] }) {
  const invalidate = useInvalidate();
  const t = useTranslations('organizations.detail');
  const dates = useDates();
  const { canWrite } = useConsole();
  const invitations = useDashboard<InstanceResponse<'GET /organizations/{id}/invitations'>>(`${base}/invitations?limit=500`);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const form = useFormError(['email_address', 'role']);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('org:member');

  const invite = form.handleSubmit(async () => {
    await mutate('POST', `${base}/invitations`, { email_address: email.trim(), role });
    setEmail('');
    await invalidate(`${base}/invitations`);
  });

  return (
    <Card>
      <CardHeader title={t('invitationsTitle')} description={t('invitationsDescription')} />
      <CardTable
        data={invitations.data?.data}
        error={invitations.error}
        onRetry={invitations.reload}
        columns={4}
        rows={2}
        emptyTitle={t('noInvitationsTitle')}
        emptyDescription={t('noInvitationsDescription')}
        caption={t('invitationsTitle')}
        headings={[t('email'), t('role'), t('status'), t('expires')]}
        actions={canWrite && t('actions')}
        row={(inv) => (
          <Tr key={inv.id}>
            <Td className="break-all">{inv.email_address}</Td>
            <Td>
              <RoleBadge roles={roles} role={inv.role} />
            </Td>
            <Td>
              <Badge tone={STATUS_TONES[inv.status]}>{t(`invitationStatus.${inv.status}`)}</Badge>
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(inv.expires_at)}</Td>
            {canWrite && (
              <ActionCell
                show={inv.status === 'pending'}
                onClick={() => setRevoking(inv)}
                aria-label={t('revokeInvitation', { email: inv.email_address })}
              >
                {t('revoke')}
              </ActionCell>
            )}
          </Tr>
        )}
      />
      {canWrite && (
        <AddForm form={form} onSubmit={invite} submitLabel={t('invite')} disabled={!email.trim()}>
          <Field label={t('email')} error={form.fieldError('email_address')}>
            {(p) => <Input {...p} type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="ann@example.com" />}
          </Field>
          <RoleField form={form} value={role} roles={roles} onChange={setRole} />
        </AddForm>
      )}
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={t('revokeTitle')}
        description={t('revokeDescription', { email: revoking?.email_address ?? '' })}
        confirmLabel={t('revoke')}
        onConfirm={async () => {
          if (revoking) await mutate('POST', `${base}/invitations/${encodeURIComponent(revoking.id)}/revoke`);
          await invalidate(`${base}/invitations`);
        }}
      />
    </Card>
  );
}

function Domains({ base }: { base: string }) {
  const invalidate = useInvalidate();
  const dates = useDates();
  const t = useTranslations('organizations.detail');
  const { canWrite } = useConsole();
  const domains = useDashboard<InstanceResponse<'GET /organizations/{id}/domains'>>(`${base}/domains?limit=500`);
  const [removing, setRemoving] = useState<Domain | null>(null);
  const rowAction = useActions();
  const form = useFormError(['name', 'enrollment_mode']);
  const [name, setName] = useState('');
  const [mode, setMode] = useState<EnrollmentMode>('manual_invitation');

  function update(d: Domain, patch: { enrollment_mode?: EnrollmentMode; verified?: boolean }) {
    void rowAction.act('row', async () => {
      await mutate('PATCH', `${base}/domains/${encodeURIComponent(d.id)}`, patch);
      await invalidate(`${base}/domains`);
    });
  }

  /** Looks the TXT record up now; found, the domain is verified (else the alert says it was not found, and the row keeps why). */
  function checkDns(d: Domain) {
    void rowAction.act('row', async () => {
      try {
        await mutate('POST', `${base}/domains/${encodeURIComponent(d.id)}/attempt_verification`, { strategy: 'dns_record' });
      } finally {
        // A failed check is kept on the domain (verification.last_checked_at and error): the row shows it.
        void invalidate(`${base}/domains`);
      }
    });
  }

  const add = form.handleSubmit(async () => {
    await mutate('POST', `${base}/domains`, { name: name.trim(), enrollment_mode: mode });
    setName('');
    await invalidate(`${base}/domains`);
  });

  return (
    <Card>
      <CardHeader title={t('domainsTitle')} description={t('domainsDescription')} />
      {rowAction.alert && <div className="px-5 pt-4">{rowAction.alert}</div>}
      <CardList
        data={domains.data?.data}
        error={domains.error}
        onRetry={domains.reload}
        columns={3}
        rows={1}
        emptyTitle={t('noDomainsTitle')}
        emptyDescription={t('noDomainsDescription')}
      >
        {(items) => (
          <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {items.map((d) => {
              const verified = d.verification.status === 'verified';
              return (
                <li key={d.id} className="flex flex-col gap-3 px-5 py-4">
                  <div className="flex flex-wrap items-center justify-between gap-3">
                    <span className="flex flex-wrap items-center gap-2">
                      <span className="font-medium">{d.name}</span>
                      <Badge tone={verified ? 'green' : 'amber'}>
                        {verified ? t('verifiedBy', { strategy: d.verification.strategy ?? '' }) : t('unverified')}
                      </Badge>
                    </span>
                    {canWrite ? (
                      <span className="flex flex-wrap items-center gap-2">
                        {/* Sized like its longest option: the select alone would take the whole row and push the buttons under it. */}
                        <span className="w-56 max-w-full">
                          <Select
                            aria-label={t('enrollmentOf', { domain: d.name })}
                            value={d.enrollment_mode}
                            onChange={(e) => update(d, { enrollment_mode: e.target.value as EnrollmentMode })}
                            className="h-8 text-sm"
                            options={ENROLLMENT_MODES}
                            optionLabel={(m) => t(`enrollment.${m}`)}
                          />
                        </span>
                        {!verified && (
                          <Button
                            variant="secondary"
                            size="sm"
                            onClick={() => checkDns(d)}
                            aria-label={t('checkDnsOf', { domain: d.name })}
                          >
                            {t('checkDns')}
                          </Button>
                        )}
                        {!verified && (
                          <Button
                            variant="ghost"
                            size="sm"
                            onClick={() => update(d, { verified: true })}
                            aria-label={t('markVerifiedOf', { domain: d.name })}
                          >
                            {t('markVerified')}
                          </Button>
                        )}
                        <Button variant="ghost" size="sm" onClick={() => setRemoving(d)} aria-label={t('removeDomain', { domain: d.name })}>
                          {t('remove')}
                        </Button>
                      </span>
                    ) : (
                      <Badge>{t(`enrollment.${d.enrollment_mode}`)}</Badge>
                    )}
                  </div>
                  {!verified && (
                    <div className="flex flex-col gap-1 text-xs text-zinc-600 dark:text-zinc-400">
                      <p>{t('txtHint')}</p>
                      <CopyField label={t('txtName')} value={d.txt_record.name} />
                      <CopyField label={t('txtValue')} value={d.txt_record.value} />
                      {d.verification.last_checked_at !== null && (
                        <p>{t('lastChecked', { time: dates.relative(d.verification.last_checked_at) })}</p>
                      )}
                      {d.verification.error && (
                        <p className="text-red-700 dark:text-red-300" data-testid="domain-check-error">
                          {t('checkFailed', { reason: d.verification.error })}
                        </p>
                      )}
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </CardList>
      {canWrite && (
        <AddForm form={form} onSubmit={add} submitLabel={t('addDomain')} disabled={!name.trim()}>
          <Field label={t('domain')} error={form.fieldError('name')}>
            {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} placeholder="example.com" spellCheck={false} />}
          </Field>
          <Field label={t('enrollmentMode')} error={form.fieldError('enrollment_mode')}>
            {(p) => (
              <Select
                {...p}
                value={mode}
                onChange={(e) => setMode(e.target.value as EnrollmentMode)}
                options={ENROLLMENT_MODES}
                optionLabel={(m) => t(`enrollment.${m}`)}
              />
            )}
          </Field>
        </AddForm>
      )}
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title={t('removeDomainTitle')}
        description={t('removeDomainDescription', { domain: removing?.name ?? '' })}
        confirmLabel={t('remove')}
        onConfirm={async () => {
          if (removing) await mutate('DELETE', `${base}/domains/${encodeURIComponent(removing.id)}`);
          await invalidate(`${base}/domains`);
        }}
      />
    </Card>
  );
}

/** The role picked for a new member or invitation. */
function RoleField({
  form,
  value,
  roles,
  onChange,
}: {
  form: ReturnType<typeof useFormError>;
  value: string;
  roles: RoleChoice[];
  onChange: (role: string) => void;
}) {
  const t = useTranslations('organizations.detail');
  return (
    <Field label={t('role')} error={form.fieldError('role')}>
      {(p) => (
        <Select
          {...p}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          options={keysWith(roles, value)}
          optionLabel={(key) => roleName(roles, key)}
        />
      )}
    </Field>
  );
}

/** The form at a card's foot adding a row (member, invitation, domain): its fields and submit button on one line. */
function AddForm({
  form,
  onSubmit,
  submitLabel,
  disabled,
  children,
}: {
  form: ReturnType<typeof useFormError>;
  onSubmit: (e: FormEvent) => void;
  submitLabel: string;
  disabled: boolean;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} noValidate className="border-t border-zinc-200 dark:border-zinc-800">
      <CardBody className="flex flex-col gap-3">
        {form.formError && <Alert tone="error">{form.formError}</Alert>}
        <div className="grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-end">
          {children}
          <Button type="submit" loading={form.busy} disabled={disabled}>
            {submitLabel}
          </Button>
        </div>
      </CardBody>
    </form>
  );
}
