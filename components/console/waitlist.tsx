'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import {
  Badge,
  Button,
  Card,
  Checkbox,
  ConfirmDialog,
  Field,
  FormDialog,
  Input,
  PageHeader,
  Select,
  Table,
  Td,
  Thead,
  Tr,
  cn,
} from '@/components/ui';
import { useDates } from '@/lib/console/format';
import { api, query } from '@/lib/console/paths';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { WAITLIST_STATUSES, canInvite, canReject, type WaitlistEntry, type WaitlistStatus } from '@/lib/console/waitlist';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { SearchBox } from './search-box';
import { CardList } from './states';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';

const PAGE_SIZE = 20;
const TONES: Record<WaitlistStatus, 'amber' | 'green' | 'red' | undefined> = {
  pending: undefined,
  invited: 'amber',
  completed: 'green',
  rejected: 'red',
};

/** `…/waitlist`: the instance's waitlist, filtered by status and address; add, invite (one or the selected), reject. */
export function WaitlistList() {
  const t = useTranslations('waitlist.console');
  const dates = useDates();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const base = `${api.instance(account.id, instance.id)}/waitlist_entries`;
  const [status, setStatus] = useState<WaitlistStatus | ''>('');
  const [search, setSearch] = useState('');
  const cursor = useCursorPages([status, search]);
  const entries = useDashboard<InstanceResponse<'GET /waitlist_entries'>>(
    `${base}${query({ status, query: search, limit: PAGE_SIZE, starting_after: cursor.current })}`,
  );
  const invalidate = useInvalidate();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [adding, setAdding] = useState(false);
  const [inviting, setInviting] = useState<string[] | null>(null);
  const [rejecting, setRejecting] = useState<WaitlistEntry | null>(null);

  const toggle = (id: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const afterWrite = () => {
    setSelected(new Set());
    void invalidate(base);
  };

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={instance.settings.sign_up_mode === 'waitlist' ? t('description') : t('descriptionOff')}
        actions={
          canWrite && (
            <div className="flex gap-2">
              <Button variant="secondary" onClick={() => setAdding(true)}>
                {t('add')}
              </Button>
              <Button disabled={selected.size === 0} onClick={() => setInviting([...selected])}>
                {t('inviteSelected', { count: selected.size })}
              </Button>
            </div>
          )
        }
      />
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <div className="flex-1">
          <SearchBox label={t('search')} placeholder={t('searchPlaceholder')} onSearch={setSearch} />
        </div>
        <Field label={t('statusFilter')}>
          {(p) => (
            <Select
              {...p}
              value={status}
              onChange={(e) => setStatus(e.target.value as WaitlistStatus | '')}
              options={['', ...WAITLIST_STATUSES] as const}
              optionLabel={(s) => (s ? t(`statuses.${s}`) : t('allStatuses'))}
            />
          )}
        </Field>
      </div>
      <Card>
        <CardList
          data={entries.data?.data}
          error={entries.error}
          onRetry={entries.reload}
          columns={5}
          rows={4}
          emptyTitle={t('emptyTitle')}
          emptyDescription={search || status ? t('noMatches') : t('emptyDescription')}
        >
          {(items) => (
            <Table caption={t('title')}>
              <Thead
                columns={[...(canWrite ? [t('select')] : []), t('email'), t('status'), t('joined'), t('invited')]}
                actions={canWrite && t('actions')}
              />
              <tbody aria-busy={entries.loading || undefined}>
                {items.map((entry) => (
                  <Tr key={entry.id} className={cn(entries.loading && 'opacity-60')}>
                    {canWrite && (
                      <Td className="w-10">
                        <Checkbox
                          label=""
                          aria-label={t('selectEntry', { email: entry.email_address })}
                          disabled={!canInvite(entry)}
                          checked={selected.has(entry.id)}
                          onChange={(e) => toggle(entry.id, e.target.checked)}
                        />
                      </Td>
                    )}
                    <Td id={`wle-${entry.id}`} className="font-medium">
                      {entry.email_address}
                      <span className="block font-mono text-xs text-zinc-500">{entry.id}</span>
                    </Td>
                    <Td>
                      <Badge tone={TONES[entry.status]}>{t(`statuses.${entry.status}`)}</Badge>
                    </Td>
                    <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(entry.created_at)}</Td>
                    <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">
                      {entry.invited_at ? dates.date(entry.invited_at) : '—'}
                    </Td>
                    {canWrite && (
                      <Td className="text-right whitespace-nowrap">
                        {canInvite(entry) && (
                          <Button variant="ghost" size="sm" aria-describedby={`wle-${entry.id}`} onClick={() => setInviting([entry.id])}>
                            {entry.status === 'invited' ? t('resend') : t('invite')}
                          </Button>
                        )}
                        {canReject(entry) && (
                          <Button variant="ghost" size="sm" aria-describedby={`wle-${entry.id}`} onClick={() => setRejecting(entry)}>
                            {t('reject')}
                          </Button>
                        )}
                      </Td>
                    )}
                  </Tr>
                ))}
              </tbody>
            </Table>
          )}
        </CardList>
        <Pager state={cursor} page={entries.data} loading={entries.loading} />
      </Card>
      <AddEntryDialog
        open={adding}
        path={base}
        onClose={() => setAdding(false)}
        onAdded={() => {
          setAdding(false);
          afterWrite();
        }}
      />
      <ConfirmDialog
        open={inviting !== null}
        onClose={() => setInviting(null)}
        title={t('inviteTitle', { count: inviting?.length ?? 0 })}
        description={t('inviteDescription', { count: inviting?.length ?? 0 })}
        confirmLabel={t('invite')}
        onConfirm={async () => {
          if (!inviting) return;
          await mutate('POST', `${base}/invite`, { ids: inviting });
          afterWrite();
        }}
      />
      <ConfirmDialog
        open={rejecting !== null}
        onClose={() => setRejecting(null)}
        title={t('rejectTitle')}
        description={rejecting ? t('rejectDescription', { email: rejecting.email_address }) : ''}
        confirmLabel={t('reject')}
        onConfirm={async () => {
          if (!rejecting) return;
          await mutate('POST', `${base}/${rejecting.id}/reject`, {});
          afterWrite();
        }}
      />
    </div>
  );
}

function AddEntryDialog({ open, path, onClose, onAdded }: { open: boolean; path: string; onClose: () => void; onAdded: () => void }) {
  const t = useTranslations('waitlist.console');
  const form = useFormError(['email_address']);
  const [email, setEmail] = useState('');

  function submit(e: FormEvent) {
    e.preventDefault();
    form.clear();
    void form.run(async () => {
      await mutate('POST', path, { email_address: email.trim() });
      setEmail('');
      onAdded();
    });
  }

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      title={t('addTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('addSubmit')}
      busy={form.busy}
    >
      <Field label={t('email')} error={form.fieldError('email_address')}>
        {(p) => (
          <Input {...p} name="email_address" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        )}
      </Field>
    </FormDialog>
  );
}
