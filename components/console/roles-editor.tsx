'use client';

import { useTranslations } from 'next-intl';
import { useEffect, useState, type FormEvent, type InputHTMLAttributes } from 'react';
import {
  ActionCell,
  Badge,
  Button,
  Card,
  CardHeader,
  Checkbox,
  ConfirmDialog,
  Field,
  FormDialog,
  Input,
  PageHeader,
  Td,
  Tr,
} from '@/components/ui';
import { orgApi, type OrgRole, type Permission } from '@/lib/console/organizations';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { CardTable } from './states';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';

/** `…/roles`: the instance's organization roles and the permissions they grant. */
export function RolesEditor() {
  const t = useTranslations('organizations.roles');
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const rolesPath = orgApi.roles(account.id, instance.id);
  const permissionsPath = orgApi.permissions(account.id, instance.id);
  const roles = useDashboard<InstanceResponse<'GET /roles'>>(`${rolesPath}?limit=500`);
  const invalidate = useInvalidate();
  const permissions = useDashboard<InstanceResponse<'GET /permissions'>>(`${permissionsPath}?limit=500`);
  const [editing, setEditing] = useState<OrgRole | 'new' | null>(null);
  const [creatingPermission, setCreatingPermission] = useState(false);
  const [deleting, setDeleting] = useState<{ kind: 'role' | 'permission'; id: string; key: string } | null>(null);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader title={t('title')} description={t('description', { name: instance.name })} />
      <Card>
        <CardHeader
          title={t('rolesTitle')}
          description={t('rolesDescription')}
          actions={canWrite && <Button onClick={() => setEditing('new')}>{t('createRole')}</Button>}
        />
        <CardTable
          data={roles.data?.data}
          error={roles.error}
          onRetry={roles.reload}
          columns={3}
          rows={2}
          caption={t('rolesTitle')}
          headings={[t('role'), t('permissions')]}
          actions={canWrite && t('actions')}
          row={(r) => (
            <Tr key={r.id}>
              <NameCell name={r.name} keyName={r.key} builtIn={r.is_system} />
              <Td>
                <span className="flex flex-wrap gap-1">
                  {r.permissions.length === 0
                    ? '—'
                    : r.permissions.map((p) => (
                        <Badge key={p} tone="indigo">
                          <span title={p}>{permissions.data?.data.find((known) => known.key === p)?.name ?? p}</span>
                        </Badge>
                      ))}
                </span>
              </Td>
              {canWrite && (
                <Td className="whitespace-nowrap text-right">
                  <Button variant="ghost" size="sm" onClick={() => setEditing(r)} aria-label={t('editRole', { role: r.key })}>
                    {t('edit')}
                  </Button>
                  {!r.is_system && (
                    <Button
                      variant="ghost"
                      size="sm"
                      onClick={() => setDeleting({ kind: 'role', id: r.id, key: r.key })}
                      aria-label={t('deleteRole', { role: r.key })}
                    >
                      {t('delete')}
                    </Button>
                  )}
                </Td>
              )}
            </Tr>
          )}
        />
      </Card>

      <Card>
        <CardHeader
          title={t('permissionsTitle')}
          description={t('permissionsDescription')}
          actions={
            canWrite && (
              <Button variant="secondary" onClick={() => setCreatingPermission(true)}>
                {t('createPermission')}
              </Button>
            )
          }
        />
        <CardTable
          data={permissions.data?.data}
          error={permissions.error}
          onRetry={permissions.reload}
          columns={2}
          rows={3}
          emptyTitle={t('noPermissions')}
          emptyDescription=""
          caption={t('permissionsTitle')}
          headings={[t('permission'), t('permissionDescription')]}
          actions={canWrite && t('actions')}
          row={(p) => (
            <Tr key={p.id}>
              <NameCell name={p.name} keyName={p.key} builtIn={p.type === 'system'} />
              <Td className="text-zinc-600 dark:text-zinc-400">{p.description || '—'}</Td>
              {canWrite && (
                <ActionCell
                  show={p.type === 'user'}
                  onClick={() => setDeleting({ kind: 'permission', id: p.id, key: p.key })}
                  aria-label={t('deletePermission', { permission: p.key })}
                >
                  {t('delete')}
                </ActionCell>
              )}
            </Tr>
          )}
        />
      </Card>

      <RoleDialog
        role={editing}
        permissions={permissions.data?.data ?? []}
        path={rolesPath}
        onClose={() => setEditing(null)}
        onSaved={() => void invalidate(rolesPath)}
      />
      <PermissionDialog
        open={creatingPermission}
        path={permissionsPath}
        onClose={() => setCreatingPermission(false)}
        onSaved={() => void invalidate(permissionsPath)}
      />
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        title={deleting?.kind === 'role' ? t('deleteRoleTitle') : t('deletePermissionTitle')}
        description={t('deleteDescription', { key: deleting?.key ?? '' })}
        confirmLabel={t('delete')}
        onConfirm={async () => {
          if (!deleting) return;
          await mutate('DELETE', `${deleting.kind === 'role' ? rolesPath : permissionsPath}/${encodeURIComponent(deleting.id)}`);
          void invalidate(rolesPath);
          void invalidate(permissionsPath);
        }}
      />
    </div>
  );
}

/** A role's or permission's first cell: its name (with a "Built-in" badge) over its key. */
function NameCell({ name, keyName, builtIn }: { name: string; keyName: string; builtIn: boolean }) {
  const t = useTranslations('organizations.roles');
  return (
    <Td>
      <span className="flex flex-col">
        <span className="flex items-center gap-2 whitespace-nowrap font-medium">
          {name}
          {builtIn && <Badge>{t('builtIn')}</Badge>}
        </span>
        <span className="font-mono text-xs text-zinc-500 dark:text-zinc-400">{keyName}</span>
      </span>
    </Td>
  );
}

type Described = { key: string; name: string; description: string };
/** A new role or permission: its key starts with the org: prefix. */
const BLANK: Described = { key: 'org:', name: '', description: '' };

/** `org:` and the name in lower case, runs of anything else as one `_`: "Billing Admin" → `org:billing_admin`. */
const keyFromName = (name: string) =>
  `org:${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}`;

/**
 * The name, key and description fields of a role or a permission (`keyHint`, `keyProps`: what differs
 * between the two). With `deriveKey`, the key follows the name until the operator edits it.
 */
function KeyNameDescription({
  form,
  values,
  onChange,
  keyHint,
  keyProps,
  deriveKey = false,
}: {
  form: ReturnType<typeof useFormError>;
  values: Described;
  onChange: (values: Described) => void;
  keyHint: string;
  keyProps: InputHTMLAttributes<HTMLInputElement>;
  deriveKey?: boolean;
}) {
  const t = useTranslations('organizations.roles');
  const set = (field: keyof Described) => (e: { target: { value: string } }) => {
    const next = { ...values, [field]: e.target.value };
    if (field === 'name' && deriveKey && (values.key === BLANK.key || values.key === keyFromName(values.name)))
      next.key = keyFromName(next.name);
    onChange(next);
  };
  return (
    <>
      <Field label={t('name')} error={form.fieldError('name')}>
        {(p) => <Input {...p} value={values.name} onChange={set('name')} />}
      </Field>
      <Field label={t('key')} hint={keyHint} error={form.fieldError('key')}>
        {(p) => <Input {...p} value={values.key} onChange={set('key')} spellCheck={false} {...keyProps} />}
      </Field>
      <Field label={t('permissionDescription')} error={form.fieldError('description')}>
        {(p) => <Input {...p} value={values.description} onChange={set('description')} />}
      </Field>
    </>
  );
}

function RoleDialog({
  role,
  permissions,
  path,
  onClose,
  onSaved,
}: {
  role: OrgRole | 'new' | null;
  permissions: Permission[];
  path: string;
  onClose: () => void;
  onSaved: () => void;
}) {
  const t = useTranslations('organizations.roles');
  const form = useFormError(['key', 'name', 'description', 'permissions']);
  const [values, setValues] = useState(BLANK);
  const [granted, setGranted] = useState<string[]>([]);
  const isNew = role === 'new';

  // Fill the form each time the dialog opens (for a new role or the one to edit).
  useEffect(() => {
    if (role === null) return;
    form.clear();
    setValues(role === 'new' ? BLANK : { key: role.key, name: role.name, description: role.description });
    setGranted(role === 'new' ? [] : role.permissions);
  }, [role]);

  function submit(e: FormEvent) {
    e.preventDefault();
    if (role === null) return;
    void form.run(async () => {
      const { key, name, description } = values;
      if (role === 'new') await mutate('POST', path, { key: key.trim(), name, description, permissions: granted });
      else await mutate('PATCH', `${path}/${encodeURIComponent(role.id)}`, { name, description, permissions: granted });
      onSaved();
      onClose();
    });
  }

  return (
    <FormDialog
      open={role !== null}
      onClose={onClose}
      title={isNew ? t('createRoleTitle') : t('editRoleTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('save')}
      busy={form.busy}
    >
      <KeyNameDescription
        form={form}
        values={values}
        onChange={setValues}
        keyHint={t('roleKeyHint')}
        keyProps={{ readOnly: !isNew }}
        deriveKey={isNew}
      />
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1.5 text-sm font-medium text-zinc-800 dark:text-zinc-200">{t('permissions')}</legend>
        {permissions.map((p) => (
          <Checkbox
            key={p.id}
            label={`${p.name} (${p.key})`}
            checked={granted.includes(p.key)}
            onChange={(e) => setGranted((g) => (e.target.checked ? [...g, p.key] : g.filter((k) => k !== p.key)))}
          />
        ))}
        {form.fieldError('permissions') && <p className="text-xs font-medium text-red-600">{form.fieldError('permissions')}</p>}
      </fieldset>
    </FormDialog>
  );
}

function PermissionDialog({ open, path, onClose, onSaved }: { open: boolean; path: string; onClose: () => void; onSaved: () => void }) {
  const t = useTranslations('organizations.roles');
  const form = useFormError(['key', 'name', 'description']);
  const [values, setValues] = useState(BLANK);

  const submit = form.handleSubmit(async () => {
    const { key, name, description } = values;
    await mutate('POST', path, { key: key.trim(), name, ...(description ? { description } : {}) });
    setValues(BLANK);
    onSaved();
    onClose();
  });

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      title={t('createPermissionTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('createPermission')}
      busy={form.busy}
    >
      <KeyNameDescription
        form={form}
        values={values}
        onChange={setValues}
        keyHint={t('permissionKeyHint')}
        keyProps={{ autoFocus: true }}
      />
    </FormDialog>
  );
}
