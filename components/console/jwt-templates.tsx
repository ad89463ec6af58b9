'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Button, Card, CardHeader, Field, FormDialog, Input, Table, Td, Textarea, Thead, Tr } from '@/components/ui';
import { query } from '@/lib/console/paths';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import type { InstanceItem, InstanceResponse } from '@/lib/console/types';
import { useConsole } from './console-context';
import { useInstanceApi } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { DeleteDialog, EditDeleteCell } from './row-actions';
import { CardList } from './states';
import { useFormError } from './use-form-error';

type JwtTemplate = InstanceItem<'GET /jwt_templates'>;

/**
 * Named JWT templates (`…/jwt_templates`): what `session.getToken({ template })` mints for
 * another service. Listed, created, edited and deleted here; the claims are written like the
 * session token template above them.
 */
export function JwtTemplates() {
  const t = useTranslations('console.jwtTemplates');
  const { canWrite } = useConsole();
  const base = useInstanceApi('jwt_templates');
  const cursor = useCursorPages([]);
  const list = useDashboard<InstanceResponse<'GET /jwt_templates'>>(`${base}${query({ limit: 20, starting_after: cursor.current })}`);
  const invalidate = useInvalidate();
  const [editing, setEditing] = useState<JwtTemplate | 'new' | null>(null);
  const [deleting, setDeleting] = useState<JwtTemplate | null>(null);

  return (
    <Card className="overflow-hidden">
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={canWrite && <Button onClick={() => setEditing('new')}>{t('add')}</Button>}
      />
      <CardList
        data={list.data?.data}
        error={list.error}
        onRetry={list.reload}
        columns={4}
        rows={2}
        emptyTitle={t('emptyTitle')}
        emptyDescription={t('emptyDescription')}
      >
        {(items) => (
          <Table caption={t('title')}>
            <Thead columns={[t('name'), t('claims'), t('lifetime'), t('skew')]} actions={canWrite ? t('actions') : undefined} />
            <tbody>
              {items.map((tpl) => (
                <Tr key={tpl.id}>
                  <Td className="font-mono text-sm font-medium">{tpl.name}</Td>
                  <Td className="max-w-md truncate font-mono text-xs">{JSON.stringify(tpl.claims)}</Td>
                  <Td>{t('seconds', { n: tpl.lifetime })}</Td>
                  <Td>{t('seconds', { n: tpl.allowed_clock_skew })}</Td>
                  {canWrite && (
                    <EditDeleteCell
                      onEdit={() => setEditing(tpl)}
                      onDelete={() => setDeleting(tpl)}
                      editLabel={t('edit')}
                      deleteLabel={t('delete')}
                    />
                  )}
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardList>
      <Pager state={cursor} page={list.data} loading={list.loading} />
      {editing !== null && (
        <TemplateDialog
          template={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void invalidate(base);
          }}
        />
      )}
      <DeleteDialog
        item={deleting}
        path={base}
        onClose={() => setDeleting(null)}
        onDeleted={() => void invalidate(base)}
        title={t('deleteTitle')}
        description={t('deleteDescription', { name: deleting?.name ?? '' })}
        confirmLabel={t('delete')}
      />
    </Card>
  );
}

const FIELDS = ['name', 'claims', 'lifetime', 'allowed_clock_skew'] as const;

function parseClaims(text: string): Record<string, unknown> | null {
  if (!text.trim()) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Mounted on opening, so its state starts from `template` (null: a new one). */
function TemplateDialog({ template, onClose, onSaved }: { template: JwtTemplate | null; onClose(): void; onSaved(): void }) {
  const t = useTranslations('console.jwtTemplates');
  const base = useInstanceApi('jwt_templates');
  const form = useFormError([...FIELDS]);
  const [name, setName] = useState(template?.name ?? '');
  const [claims, setClaims] = useState(JSON.stringify(template?.claims ?? {}, null, 2));
  const [lifetime, setLifetime] = useState(String(template?.lifetime ?? 60));
  const [skew, setSkew] = useState(String(template?.allowed_clock_skew ?? 5));
  const [jsonError, setJsonError] = useState<string | null>(null);

  const submit = form.handleSubmit(async () => {
    const parsed = parseClaims(claims);
    if (!parsed) {
      setJsonError(t('invalidJson'));
      return;
    }
    const body = { name: name.trim(), claims: parsed, lifetime: Number(lifetime), allowed_clock_skew: Number(skew) };
    if (template) await mutate('PATCH', `${base}/${template.id}`, body);
    else await mutate('POST', base, body);
    onSaved();
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={template ? t('editTitle') : t('addTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={template ? t('save') : t('add')}
      busy={form.busy}
    >
      <Field label={t('name')} hint={t('nameHint')} error={form.fieldError('name')}>
        {(p) => (
          <Input
            {...p}
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoFocus
            required
            maxLength={64}
            pattern="[A-Za-z0-9_\-]+"
            placeholder="supabase"
          />
        )}
      </Field>
      <Field label={t('claims')} hint={t('claimsHint')} error={jsonError ?? form.fieldError('claims')}>
        {(p) => (
          <Textarea
            {...p}
            rows={8}
            value={claims}
            spellCheck={false}
            className="font-mono text-xs"
            onChange={(e) => {
              setClaims(e.target.value);
              if (jsonError) setJsonError(null);
            }}
            onBlur={() => setJsonError(parseClaims(claims) ? null : t('invalidJson'))}
          />
        )}
      </Field>
      <Field label={t('lifetime')} hint={t('lifetimeHint')} error={form.fieldError('lifetime')}>
        {(p) => <Input {...p} type="number" min={30} max={3600} value={lifetime} onChange={(e) => setLifetime(e.target.value)} required />}
      </Field>
      <Field label={t('skew')} hint={t('skewHint')} error={form.fieldError('allowed_clock_skew')}>
        {(p) => <Input {...p} type="number" min={0} max={30} value={skew} onChange={(e) => setSkew(e.target.value)} required />}
      </Field>
    </FormDialog>
  );
}
