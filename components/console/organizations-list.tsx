'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Alert, Button, Card, Dialog, EmptyState, Field, Input, PageHeader, Table, Td, Th, Tr, cn, focusRing } from '@/components/ui';
import { useDates } from '@/lib/console/format';
import { orgApi, orgPages, type Organization } from '@/lib/console/organizations';
import { query } from '@/lib/console/paths';
import type { CursorPage } from '@/lib/console/types';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { InlineError, TableSkeleton } from './states';
import { useFormError } from './use-form-error';

const PAGE_SIZE = 20;

/** `…/organizations`: search, page through and create an instance's organizations. */
export function OrganizationsList() {
  const t = useTranslations('organizations.list');
  const dates = useDates();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const searchId = useId();
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const [creating, setCreating] = useState(false);
  const cursor = useCursorPages([q]);

  useEffect(() => {
    const timer = setTimeout(() => setQ(search.trim()), 300);
    return () => clearTimeout(timer);
  }, [search]);

  const orgs = useDashboard<CursorPage<Organization>>(
    `${orgApi.organizations(account.id, instance.id)}${query({ query: q, limit: PAGE_SIZE, starting_after: cursor.current })}`,
  );

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description', { name: instance.name })}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('create')}</Button>}
      />
      <form role="search" onSubmit={(e) => { e.preventDefault(); setQ(search.trim()); }} className="max-w-md">
        <label htmlFor={searchId} className="sr-only">
          {t('search')}
        </label>
        <Input id={searchId} type="search" placeholder={t('searchPlaceholder')} value={search} onChange={(e) => setSearch(e.target.value)} />
      </form>
      <Card>
        {orgs.error ? (
          <InlineError error={orgs.error} onRetry={orgs.reload} />
        ) : !orgs.data ? (
          <TableSkeleton columns={3} rows={4} />
        ) : orgs.data.data.length === 0 ? (
          <EmptyState title={q ? t('noMatchesTitle') : t('emptyTitle')} description={q ? t('noMatchesDescription', { query: q }) : t('emptyDescription')} />
        ) : (
          <Table caption={t('title')}>
            <thead>
              <tr>
                <Th>{t('organization')}</Th>
                <Th>{t('members')}</Th>
                <Th>{t('created')}</Th>
              </tr>
            </thead>
            <tbody aria-busy={orgs.loading || undefined}>
              {orgs.data.data.map((org) => (
                <Tr key={org.id} className={cn(orgs.loading && 'opacity-60')}>
                  <Td>
                    <Link href={orgPages.organization(account.id, instance.id, org.id)} className={cn('flex min-w-0 flex-col rounded-md', focusRing)}>
                      <span className="truncate font-medium text-zinc-900 hover:underline dark:text-zinc-100">{org.name}</span>
                      <span className="truncate font-mono text-xs text-zinc-500">{org.slug}</span>
                    </Link>
                  </Td>
                  <Td className="text-zinc-600 dark:text-zinc-400">
                    {org.max_allowed_memberships > 0 ? t('membersOf', { count: org.members_count, max: org.max_allowed_memberships }) : org.members_count}
                  </Td>
                  <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(org.created_at)}</Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
        <Pager state={cursor} page={orgs.data} loading={orgs.loading} />
      </Card>
      <CreateOrganizationDialog open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}

function CreateOrganizationDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useTranslations('organizations.list');
  const tCommon = useTranslations('common');
  const router = useRouter();
  const { account } = useConsole();
  const instance = useInstance();
  const form = useFormError(['name', 'slug', 'max_allowed_memberships']);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    form.clear();
    try {
      const created = await mutate<Organization>('POST', orgApi.organizations(account.id, instance.id), { name, ...(slug.trim() ? { slug: slug.trim() } : {}) });
      setName('');
      setSlug('');
      onClose();
      router.push(orgPages.organization(account.id, instance.id, created.id));
    } catch (err) {
      form.setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onClose={onClose} title={t('createTitle')}>
      <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
        {form.formError && <Alert tone="error">{form.formError}</Alert>}
        <Field label={t('name')} error={form.fieldError('name')}>
          {(p) => <Input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
        <Field label={t('slug')} hint={t('slugHint')} error={form.fieldError('slug')}>
          {(p) => <Input {...p} name="slug" value={slug} onChange={(e) => setSlug(e.target.value)} spellCheck={false} />}
        </Field>
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            {tCommon('cancel')}
          </Button>
          <Button type="submit" loading={busy}>
            {t('create')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
