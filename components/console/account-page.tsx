'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import {
  ActionCell,
  Alert,
  Badge,
  Button,
  Card,
  CardHeader,
  ConfirmDialog,
  CopyField,
  Field,
  FormDialog,
  Input,
  PageHeader,
  Select,
  Td,
  Tr,
  cn,
  focusRing,
} from '@/components/ui';
import { useDates } from '@/lib/console/format';
import { api, pages } from '@/lib/console/paths';
import type { Instance, Invitation, Member, Role } from '@/lib/console/types';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useErrorMessage } from '@/lib/use-error-message';
import { useConsole } from './console-context';
import { CardList, CardTable } from './states';
import { RenameCard } from './rename-card';
import { useFormError } from './use-form-error';
import type { DashboardResponse } from '@/lib/generated/dashboard';

const ROLES: Role[] = ['owner', 'admin', 'viewer'];

/** `/accounts/[accountId]`: the account's instances, operators and pending invitations. */
export function AccountPage() {
  const t = useTranslations('console.account');
  const { account } = useConsole();
  return (
    <div className="flex flex-col gap-8">
      <PageHeader title={account.name} description={t('description', { role: t(`roles.${account.role}`) })} />
      <InstancesCard />
      <MembersCard />
      {account.role !== 'viewer' && <InvitationsCard />}
      {account.role === 'owner' && <AccountNameCard />}
    </div>
  );
}

function InstancesCard() {
  const t = useTranslations('console.account');
  const tEnv = useTranslations('console.environment');
  const dates = useDates();
  const { account, instances, instancesError, reloadInstances, canWrite } = useConsole();
  const [creating, setCreating] = useState(false);

  return (
    <Card>
      <CardHeader
        title={t('instancesTitle')}
        description={t('instancesDescription')}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('createInstance')}</Button>}
      />
      <CardList
        data={instances}
        error={instancesError}
        onRetry={reloadInstances}
        columns={3}
        rows={2}
        emptyTitle={t('noInstancesTitle')}
        emptyDescription={t('noInstancesDescription')}
      >
        {(instances) => (
          <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {instances.map((instance) => (
              <li key={instance.id}>
                <Link
                  href={pages.instance(account.id, instance.id)}
                  className={cn(
                    'flex flex-wrap items-center gap-x-4 gap-y-1 px-5 py-3.5 hover:bg-zinc-50 dark:hover:bg-zinc-800/40',
                    focusRing,
                  )}
                >
                  <span className="min-w-0 flex-1 font-medium">{instance.name}</span>
                  <Badge tone={instance.environment === 'live' ? 'green' : 'amber'}>{tEnv(instance.environment)}</Badge>
                  <span className="hidden font-mono text-xs text-zinc-500 dark:text-zinc-400 sm:inline">{instance.id}</span>
                  <span className="text-xs text-zinc-500 dark:text-zinc-400">
                    {t('createdOn', { date: dates.date(instance.created_at) })}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </CardList>
      {creating && <CreateInstanceDialog onClose={() => setCreating(false)} onCreated={reloadInstances} />}
    </Card>
  );
}

function CreateInstanceDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const t = useTranslations('console.account');
  const tEnv = useTranslations('console.environment');
  const router = useRouter();
  const { account } = useConsole();
  const form = useFormError(['name', 'environment']);
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<'test' | 'live'>('test');

  const submit = form.handleSubmit(async () => {
    const created = await mutate<Instance>('POST', `${api.account(account.id)}/instances`, { name, environment });
    onCreated();
    onClose();
    router.push(pages.instance(account.id, created.id));
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('createInstanceTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('create')}
      busy={form.busy}
    >
      <Field label={t('instanceName')} error={form.fieldError('name')}>
        {(p) => <Input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
      </Field>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1.5 text-sm font-medium text-zinc-800 dark:text-zinc-200">{t('environment')}</legend>
        {(['test', 'live'] as const).map((env) => (
          <label
            key={env}
            className={cn(
              'flex cursor-pointer items-start gap-3 rounded-md p-3 ring-1 ring-inset',
              environment === env ? 'ring-indigo-500 bg-indigo-50/50 dark:bg-indigo-950/40' : 'ring-zinc-300 dark:ring-zinc-700',
            )}
          >
            <input
              type="radio"
              name="environment"
              value={env}
              checked={environment === env}
              onChange={() => setEnvironment(env)}
              className={cn('mt-0.5 accent-indigo-600', focusRing)}
            />
            <span className="flex flex-col">
              <span className="text-sm font-medium">{tEnv(env)}</span>
              <span className="text-xs text-zinc-600 dark:text-zinc-400">{t(`environmentHint.${env}`)}</span>
            </span>
          </label>
        ))}
      </fieldset>
    </FormDialog>
  );
}

function AccountNameCard() {
  const t = useTranslations('console.account');
  const { account, reloadMe } = useConsole();
  return (
    <RenameCard
      title={t('nameTitle')}
      description={t('nameDescription')}
      label={t('name')}
      name={account.name}
      path={api.account(account.id)}
      disabled={false}
      onSaved={reloadMe}
    />
  );
}

function MembersCard() {
  const t = useTranslations('console.account');
  const dates = useDates();
  const errorMessage = useErrorMessage();
  const { account, me, isOwner, reloadMe } = useConsole();
  const members = useDashboard<DashboardResponse<'GET /accounts/{accountId}/members'>>(`${api.account(account.id)}/members`);
  const invalidate = useInvalidate();
  const [removing, setRemoving] = useState<Member | null>(null);
  const [rowError, setRowError] = useState<{ id: string; error: unknown } | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);

  async function changeRole(member: Member, role: Role) {
    setBusyId(member.id);
    setRowError(null);
    try {
      await mutate('PATCH', `${api.account(account.id)}/members/${member.id}`, { role });
      void invalidate(`${api.account(account.id)}/members`);
      if (member.user_id === me.user.id) reloadMe();
    } catch (error) {
      setRowError({ id: member.id, error });
    } finally {
      setBusyId(null);
    }
  }

  const owners = members.data?.data.filter((m) => m.role === 'owner').length ?? 0;
  const removable = (m: Member) => m.role !== 'owner' || owners > 1;
  const memberName = (m: Member) => [m.first_name, m.last_name].filter(Boolean).join(' ') || m.email_address || m.user_id;

  return (
    <Card>
      <CardHeader title={t('membersTitle')} description={t('membersDescription')} />
      <CardTable
        data={members.data?.data}
        error={members.error}
        onRetry={members.reload}
        columns={4}
        rows={2}
        caption={t('membersTitle')}
        headings={[t('memberName'), t('memberEmail'), t('memberRole'), t('memberSince')]}
        actions={isOwner && t('actions')}
        row={(m) => (
          <Tr key={m.id}>
            <Td id={`member-name-${m.id}`} className="font-medium">
              {memberName(m)}
              {m.user_id === me.user.id && <span className="ml-2 text-xs font-normal text-zinc-500 dark:text-zinc-400">{t('you')}</span>}
            </Td>
            <Td className="text-zinc-600 dark:text-zinc-400">{m.email_address}</Td>
            <Td>
              {isOwner ? (
                <div className="flex flex-col gap-1">
                  <Select
                    aria-label={t('roleOf', { name: memberName(m) })}
                    value={m.role}
                    disabled={busyId === m.id}
                    onChange={(e) => changeRole(m, e.target.value as Role)}
                    className="h-8 w-32"
                    options={ROLES}
                    optionLabel={(r) => t(`roles.${r}`)}
                  />
                  {rowError?.id === m.id && (
                    <p role="alert" className="text-xs text-red-600 dark:text-red-400">
                      {errorMessage(rowError.error)}
                    </p>
                  )}
                </div>
              ) : (
                <Badge tone={m.role === 'owner' ? 'indigo' : 'neutral'}>{t(`roles.${m.role}`)}</Badge>
              )}
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(m.created_at)}</Td>
            {isOwner &&
              (removable(m) ? (
                <ActionCell onClick={() => setRemoving(m)} aria-describedby={`member-name-${m.id}`}>
                  {t('remove')}
                </ActionCell>
              ) : (
                <Td className="text-right text-xs text-zinc-600 dark:text-zinc-400">{t('lastOwner')}</Td>
              ))}
          </Tr>
        )}
      />
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title={t('removeTitle')}
        description={removing ? t('removeDescription', { name: memberName(removing) }) : ''}
        confirmLabel={t('remove')}
        onConfirm={async () => {
          if (!removing) return;
          await mutate('DELETE', `${api.account(account.id)}/members/${removing.id}`);
          void invalidate(`${api.account(account.id)}/members`);
          if (removing.user_id === me.user.id) reloadMe();
        }}
      />
    </Card>
  );
}

function InvitationsCard() {
  const t = useTranslations('console.account');
  const dates = useDates();
  const { account, isOwner } = useConsole();
  const invitations = useDashboard<DashboardResponse<'GET /accounts/{accountId}/invitations'>>(`${api.account(account.id)}/invitations`);
  const invalidate = useInvalidate();
  const form = useFormError(['email_address', 'role']);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [sent, setSent] = useState<{ email: string; url: string } | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const invitable = ROLES.filter((r) => isOwner || r !== 'owner');

  function invite(e: FormEvent) {
    e.preventDefault();
    setSent(null);
    void form.run(async () => {
      const { url } = await mutate<DashboardResponse<'POST /accounts/{accountId}/invitations'>>(
        'POST',
        `${api.account(account.id)}/invitations`,
        { email_address: email, role },
      );
      setSent({ email, url });
      setEmail('');
      void invalidate(`${api.account(account.id)}/invitations`);
    });
  }

  const pending = invitations.data?.data.filter((i) => i.status === 'pending');

  return (
    <Card>
      <CardHeader title={t('invitationsTitle')} description={t('invitationsDescription')} />
      <form onSubmit={invite} noValidate className="flex flex-col gap-3 border-b border-zinc-200 px-5 py-4 dark:border-zinc-800">
        {form.formError && <Alert tone="error">{form.formError}</Alert>}
        {sent && (
          <Alert tone="success">
            {t('invitationSent', { email: sent.email })} {t('invitationLinkHint')}
            <CopyField value={sent.url} label={t('invitationLink')} />
          </Alert>
        )}
        <div className="grid gap-3 sm:grid-cols-[1fr_10rem_auto] sm:items-start">
          <Field label={t('inviteEmail')} error={form.fieldError('email_address')}>
            {(p) => (
              <Input
                {...p}
                type="email"
                name="email_address"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                autoComplete="off"
              />
            )}
          </Field>
          <Field label={t('inviteRole')} error={form.fieldError('role')}>
            {(p) => (
              <Select
                {...p}
                name="role"
                value={role}
                onChange={(e) => setRole(e.target.value as Role)}
                options={invitable}
                optionLabel={(r) => t(`roles.${r}`)}
              />
            )}
          </Field>
          <Button type="submit" loading={form.busy} className="sm:mt-[1.625rem]">
            {t('invite')}
          </Button>
        </div>
      </form>
      <CardTable
        data={pending}
        error={invitations.error}
        onRetry={invitations.reload}
        columns={4}
        rows={1}
        emptyTitle={t('noInvitationsTitle')}
        emptyDescription={t('noInvitationsDescription')}
        caption={t('invitationsTitle')}
        headings={[t('memberEmail'), t('memberRole'), t('expires')]}
        actions={t('actions')}
        row={(inv) => (
          <Tr key={inv.id}>
            <Td id={`invitation-email-${inv.id}`} className="font-medium">
              {inv.email_address}
            </Td>
            <Td>
              <Badge>{t(`roles.${inv.role}`)}</Badge>
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.dateTime(inv.expires_at)}</Td>
            <ActionCell onClick={() => setRevoking(inv)} aria-describedby={`invitation-email-${inv.id}`}>
              {t('revoke')}
            </ActionCell>
          </Tr>
        )}
      />
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={t('revokeTitle')}
        description={revoking ? t('revokeDescription', { email: revoking.email_address }) : ''}
        confirmLabel={t('revoke')}
        onConfirm={async () => {
          if (!revoking) return;
          await mutate('POST', `${api.account(account.id)}/invitations/${revoking.id}/revoke`);
          void invalidate(`${api.account(account.id)}/invitations`);
        }}
      />
    </Card>
  );
}
