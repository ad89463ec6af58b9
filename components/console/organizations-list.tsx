'use client';

import { UserPicker } from './user-picker';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Button, Card, Field, FormDialog, Input, PageHeader, Td, Tr, cn, focusRing } from '@/components/ui';
import { useDates } from '@/lib/console/format';
import { orgApi, orgPages, type Organization } from '@/lib/console/organizations';
import { query } from '@/lib/console/paths';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { SearchBox } from './search-box';
import { CardTable } from './states';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';

const PAGE_SIZE = 20;

/** `…/organizations`: search, page through and create an instance's organizations. */
export function OrganizationsList() {
  const t = useTranslations('organizations.list');
  const dates = useDates();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const [q, setQ] = useState('');
  const [creating, setCreating] = useState(false);
  const cursor = useCursorPages([q]);

  const orgs = useDashboard<InstanceResponse<'GET /organizations'>>(
    `${orgApi.organizations(account.id, instance.id)}${query({ query: q, limit: PAGE_SIZE, starting_after: cursor.current })}`,
  );

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description', { name: instance.name })}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('create')}</Button>}
      />
      <SearchBox label={t('search')} placeholder={t('searchPlaceholder')} onSearch={setQ} />
      <Card>
        <CardTable
          data={orgs.data?.data}
          error={orgs.error}
          onRetry={orgs.reload}
          columns={3}
          rows={4}
          emptyTitle={q ? t('noMatchesTitle') : t('emptyTitle')}
          emptyDescription={q ? t('noMatchesDescription', { query: q }) : t('emptyDescription')}
          caption={t('title')}
          headings={[t('organization'), t('members'), t('created')]}
          busy={orgs.loading}
          row={(org) => (
            <Tr key={org.id} className={cn(orgs.loading && 'opacity-60')}>
              <Td>
                <Link
                  href={orgPages.organization(account.id, instance.id, org.id)}
                  className={cn('flex min-w-0 flex-col rounded-md', focusRing)}
                >
                  <span className="truncate font-medium text-zinc-900 hover:underline dark:text-zinc-100">{org.name}</span>
                  <span className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">{org.slug}</span>
                </Link>
              </Td>
              <Td className="text-zinc-600 dark:text-zinc-400">
                {org.max_allowed_memberships > 0
                  ? t('membersOf', { count: org.members_count, max: org.max_allowed_memberships })
                  : org.members_count}
              </Td>
              <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(org.created_at)}</Td>
            </Tr>
          )}
        />
        <Pager state={cursor} page={orgs.data} loading={orgs.loading} />
      </Card>
      <CreateOrganizationDialog open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}

function CreateOrganizationDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useTranslations('organizations.list');
  const router = useRouter();
  const { account } = useConsole();
  const instance = useInstance();
  const form = useFormError(['name', 'slug', 'created_by', 'max_allowed_memberships']);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [admin, setAdmin] = useState('');

  const submit = form.handleSubmit(async () => {
    const created = await mutate<Organization>('POST', orgApi.organizations(account.id, instance.id), {
      name,
      ...(slug.trim() ? { slug: slug.trim() } : {}),
      ...(admin ? { created_by: admin } : {}),
    });
    setName('');
    setSlug('');
    setAdmin('');
    onClose();
    router.push(orgPages.organization(account.id, instance.id, created.id));
  });

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      title={t('createTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('create')}
      busy={form.busy}
    >
      <Field label={t('name')} error={form.fieldError('name')}>
        {(p) => <Input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
      </Field>
      <Field label={t('slug')} hint={t('slugHint')} error={form.fieldError('slug')}>
        {(p) => <Input {...p} name="slug" value={slug} onChange={(e) => setSlug(e.target.value)} spellCheck={false} />}
      </Field>
      <Field label={t('firstAdmin')} hint={t('firstAdminHint')} error={form.fieldError('created_by')}>
        {(p) => <UserPicker control={p} value={admin} onChange={setAdmin} />}
      </Field>
    </FormDialog>
  );
}
