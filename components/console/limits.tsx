'use client';

import { useFormatter, useTranslations } from 'next-intl';
import { useEffect, useState, type FormEvent } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  Checkbox,
  Field,
  FormDialog,
  Input,
  PageHeader,
  Select,
  Table,
  Td,
  Thead,
  Tr,
} from '@/components/ui';
import { query } from '@/lib/console/paths';
import { ACL_SURFACES, BUDGET_NAMES, type NetworkAcl, type RateLimitPolicy } from '@/lib/console/limits';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { CardList } from './states';
import { DeleteDialog } from './row-actions';
import { toggled } from './all-or-some';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';

/** `…/limits`: the instance's rate-limit budgets and its network ACL. */
export function Limits() {
  const t = useTranslations('limits');
  const instance = useInstance();
  return (
    <div className="flex flex-col gap-6">
      <PageHeader title={t('title')} description={t('description', { name: instance.name })} />
      <RateLimits />
      <NetworkAcls />
    </div>
  );
}

function RateLimits() {
  const t = useTranslations('limits');
  const format = useFormatter();
  // A window as people say it: 3600 → "1 hour", 10 → "10 seconds".
  const windowLabel = (seconds: number) => {
    const [unit, size] =
      seconds % 3600 === 0 ? (['hour', 3600] as const) : seconds % 60 === 0 ? (['minute', 60] as const) : (['second', 1] as const);
    return format.number(seconds / size, { style: 'unit', unit, unitDisplay: 'long' });
  };
  const { canWrite } = useConsole();
  const path = `${useInstanceApi()}/rate_limit_policy`;
  const policy = useDashboard<RateLimitPolicy>(path);
  const invalidate = useInvalidate();
  const form = useFormError(BUDGET_NAMES);
  const [values, setValues] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (policy.data) setValues(Object.fromEntries(BUDGET_NAMES.map((n) => [n, String(policy.data!.budgets[n].limit)])));
  }, [policy.data]);

  function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    void form.run(async () => {
      const body = Object.fromEntries(BUDGET_NAMES.map((n) => [n, values[n]?.trim() === '' ? null : Number(values[n])]));
      await mutate<RateLimitPolicy>('PATCH', path, body);
      void invalidate(path);
      setSaved(true);
    });
  }

  return (
    <Card>
      <CardHeader title={t('rateLimits')} description={t('rateLimitsDescription')} />
      <CardBody>
        {Boolean(policy.error) && <Alert tone="error">{t('loadFailed')}</Alert>}
        {policy.data && (
          <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
            {form.formError && <Alert tone="error">{form.formError}</Alert>}
            {saved && <Alert tone="success">{t('saved')}</Alert>}
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
              {BUDGET_NAMES.map((name) => {
                const b = policy.data!.budgets[name];
                return (
                  <Field
                    key={name}
                    label={t(`budgets.${name}`)}
                    hint={t('budgetHint', { window: windowLabel(b.window_seconds), default: b.default, min: b.min, max: b.max })}
                    error={form.fieldError(name)}
                  >
                    {(p) => (
                      <Input
                        {...p}
                        name={name}
                        type="number"
                        min={b.min}
                        max={b.max}
                        step={1}
                        disabled={!canWrite}
                        value={values[name] ?? ''}
                        onChange={(e) => setValues((v) => ({ ...v, [name]: e.target.value }))}
                      />
                    )}
                  </Field>
                );
              })}
            </div>
            {canWrite && (
              <div className="flex justify-end gap-2">
                <Button
                  type="button"
                  variant="secondary"
                  onClick={() => setValues(Object.fromEntries(BUDGET_NAMES.map((n) => [n, String(policy.data!.budgets[n].default)])))}
                >
                  {t('restoreDefaults')}
                </Button>
                <Button type="submit" loading={form.busy}>
                  {t('save')}
                </Button>
              </div>
            )}
          </form>
        )}
      </CardBody>
    </Card>
  );
}

function NetworkAcls() {
  const t = useTranslations('limits');
  const { canWrite } = useConsole();
  const base = `${useInstanceApi()}/network_acls`;
  const cursor = useCursorPages([]);
  const list = useDashboard<InstanceResponse<'GET /network_acls'>>(`${base}${query({ limit: 20, starting_after: cursor.current })}`);
  const invalidate = useInvalidate();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<NetworkAcl | null>(null);

  return (
    <Card className="overflow-hidden">
      <CardHeader
        title={t('acls')}
        description={t('aclsDescription')}
        actions={canWrite && <Button onClick={() => setAdding(true)}>{t('addRule')}</Button>}
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
          <Table caption={t('acls')}>
            <Thead columns={[t('action'), t('cidr'), t('surfaces'), t('descriptionLabel'), '']} />
            <tbody>
              {items.map((rule) => (
                <Tr key={rule.id}>
                  <Td>
                    <Badge tone={rule.action === 'deny' ? 'red' : 'green'}>{t(`actions.${rule.action}`)}</Badge>
                  </Td>
                  <Td className="font-mono text-xs">{rule.cidr}</Td>
                  <Td>{rule.surfaces.map((s) => t(`surfaceNames.${s}`)).join(', ')}</Td>
                  <Td className="text-sm text-zinc-600 dark:text-zinc-400">{rule.description}</Td>
                  <Td className="text-right">
                    {canWrite && (
                      <Button variant="secondary" size="sm" onClick={() => setDeleting(rule)}>
                        {t('delete')}
                      </Button>
                    )}
                  </Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </CardList>
      <Pager state={cursor} page={list.data} loading={list.loading} />
      {adding && (
        <RuleDialog
          path={base}
          onClose={() => setAdding(false)}
          onSaved={() => {
            setAdding(false);
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
        description={t('deleteDescription', { cidr: deleting?.cidr ?? '' })}
        confirmLabel={t('delete')}
      />
    </Card>
  );
}

/** Mounted on opening, so every rule starts from the defaults. */
function RuleDialog({ path, onClose, onSaved }: { path: string; onClose: () => void; onSaved: () => void }) {
  const t = useTranslations('limits');
  const form = useFormError(['action', 'cidr', 'surfaces', 'description']);
  const [action, setAction] = useState<'allow' | 'deny'>('deny');
  const [cidr, setCidr] = useState('');
  const [surfaces, setSurfaces] = useState<Set<string>>(new Set(ACL_SURFACES));
  const [description, setDescription] = useState('');

  const submit = form.handleSubmit(async () => {
    await mutate<NetworkAcl>('POST', path, { action, cidr: cidr.trim(), surfaces: [...surfaces], description: description.trim() });
    onSaved();
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('addRule')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('addRule')}
      busy={form.busy}
    >
      <Field label={t('action')} hint={t('actionHint')} error={form.fieldError('action')}>
        {(p) => (
          <Select {...p} name="action" value={action} onChange={(e) => setAction(e.target.value as 'allow' | 'deny')}>
            <option value="deny">{t('actions.deny')}</option>
            <option value="allow">{t('actions.allow')}</option>
          </Select>
        )}
      </Field>
      <Field label={t('cidr')} hint={t('cidrHint')} error={form.fieldError('cidr')}>
        {(p) => (
          <Input
            {...p}
            name="cidr"
            value={cidr}
            onChange={(e) => setCidr(e.target.value)}
            placeholder="203.0.113.0/24"
            autoFocus
            required
          />
        )}
      </Field>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1.5 text-sm font-medium">{t('surfaces')}</legend>
        {ACL_SURFACES.map((s) => (
          <Checkbox
            key={s}
            label={t(`surfaceNames.${s}`)}
            checked={surfaces.has(s)}
            onChange={(e) => setSurfaces((current) => toggled(current, s, e.target.checked))}
          />
        ))}
        {form.fieldError('surfaces') && (
          <p role="alert" className="text-sm text-red-600 dark:text-red-400">
            {form.fieldError('surfaces')}
          </p>
        )}
      </fieldset>
      <Field label={t('descriptionLabel')} error={form.fieldError('description')}>
        {(p) => <Input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={512} />}
      </Field>
    </FormDialog>
  );
}
