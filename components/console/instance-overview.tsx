'use client';

import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import {
  ActionCell,
  Badge,
  Button,
  Card,
  CardBody,
  CardHeader,
  Checkbox,
  ConfirmDialog,
  Field,
  FormDialog,
  Input,
  PageHeader,
  SecretValue,
  ShownOnceDialog,
  Td,
  Tr,
  ValueField,
} from '@/components/ui';
import { useDates } from '@/lib/console/format';
import { api } from '@/lib/console/paths';
import { SCOPE_RESOURCES } from '@/lib/console/scopes';
import type { CreatedKey, InstanceResponse, SecretKey } from '@/lib/console/types';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { AllOrSome, toggled } from './all-or-some';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { InstanceMetrics } from './instance-metrics';
import { Quickstart } from './quickstart';
import { CardTable } from './states';
import { useFormError } from './use-form-error';

/** `…/instances/[instanceId]`: keys and URLs to integrate with, and the instance's secret keys. */
export function InstanceOverview() {
  const t = useTranslations('console.overview');
  const tEnv = useTranslations('console.environment');
  const instance = useInstance();
  // A secret key created on this page fills the quickstart's environment block (it is shown once).
  const [newSecret, setNewSecret] = useState<string | null>(null);
  return (
    <div className="flex flex-col gap-8">
      <PageHeader
        title={
          <span className="flex flex-wrap items-center gap-3">
            {instance.name}
            <Badge tone={instance.environment === 'live' ? 'green' : 'amber'}>{tEnv(instance.environment)}</Badge>
          </span>
        }
        description={t('description')}
      />
      <Quickstart secretKey={newSecret} />
      <Card>
        <CardHeader title={t('apiTitle')} description={t('apiDescription')} />
        <CardBody className="flex flex-col gap-4">
          <ValueField value={instance.publishable_key} label={t('publishableKey')} />
          <ValueField value={instance.fapi_url} label={t('fapiUrl')} />
          <ValueField value={instance.id} label={t('instanceId')} />
          <div className="flex flex-wrap gap-x-6 gap-y-2 pt-1 text-sm">
            <a
              href={`${instance.fapi_url}/sign-in`}
              target="_blank"
              rel="noreferrer"
              className="font-medium text-indigo-600 hover:underline dark:text-indigo-400"
            >
              {t('hostedSignIn')} ↗
            </a>
            <a
              href={`${instance.fapi_url}/sign-up`}
              target="_blank"
              rel="noreferrer"
              className="font-medium text-indigo-600 hover:underline dark:text-indigo-400"
            >
              {t('hostedSignUp')} ↗
            </a>
          </div>
        </CardBody>
      </Card>
      <InstanceMetrics />
      <SecretKeys onCreated={setNewSecret} />
    </div>
  );
}

function SecretKeys({ onCreated }: { onCreated: (secret: string) => void }) {
  const t = useTranslations('console.keys');
  const dates = useDates();
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const base = `${api.instance(account.id, instance.id)}/keys`;
  const keys = useDashboard<InstanceResponse<'GET /keys'>>(base);
  const invalidate = useInvalidate();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<SecretKey | null>(null);
  const active = keys.data?.data.filter((k) => k.revoked_at === null);

  return (
    <Card>
      <CardHeader
        title={t('title')}
        description={t('description')}
        actions={canWrite && <Button onClick={() => setCreating(true)}>{t('create')}</Button>}
      />
      <CardTable
        data={active}
        error={keys.error}
        onRetry={keys.reload}
        columns={5}
        rows={2}
        emptyTitle={t('emptyTitle')}
        emptyDescription={t('emptyDescription')}
        caption={t('title')}
        headings={[t('name'), t('key'), t('scopes'), t('created'), t('lastUsed')]}
        actions={canWrite && t('actions')}
        row={(key) => (
          <Tr key={key.id}>
            <Td id={`key-name-${key.id}`} className="font-medium">
              {key.name || t('unnamed')}
            </Td>
            <Td className="font-mono text-xs whitespace-nowrap">{key.hint}</Td>
            <Td>
              {key.scopes.includes('*') ? (
                <Badge tone="indigo">{t('allScopes')}</Badge>
              ) : (
                <span className="flex max-w-xs flex-wrap gap-1">
                  {key.scopes.slice(0, 4).map((s) => (
                    <Badge key={s}>{s}</Badge>
                  ))}
                  {key.scopes.length > 4 && <Badge>{t('moreScopes', { count: key.scopes.length - 4 })}</Badge>}
                </span>
              )}
            </Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.date(key.created_at)}</Td>
            <Td className="whitespace-nowrap text-zinc-600 dark:text-zinc-400">{dates.relative(key.last_used_at)}</Td>
            {canWrite && (
              <ActionCell onClick={() => setRevoking(key)} aria-describedby={`key-name-${key.id}`}>
                {t('revoke')}
              </ActionCell>
            )}
          </Tr>
        )}
      />
      {creating && (
        <CreateKeyDialog
          path={base}
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            onCreated(key.secret);
            void invalidate(base);
          }}
        />
      )}
      <ShownOnceDialog
        value={created}
        onClose={() => setCreated(null)}
        title={t('createdTitle')}
        warning={t('createdWarning')}
        doneLabel={t('done')}
      >
        {(key) => <SecretValue value={key.secret} label={t('secret')} />}
      </ShownOnceDialog>
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={t('revokeTitle')}
        description={revoking ? t('revokeDescription', { name: revoking.name || revoking.hint }) : ''}
        confirmLabel={t('revoke')}
        onConfirm={async () => {
          if (!revoking) return;
          await mutate('POST', `${base}/${revoking.id}/revoke`);
          void invalidate(base);
        }}
      />
    </Card>
  );
}

function CreateKeyDialog({ path, onClose, onCreated }: { path: string; onClose: () => void; onCreated: (key: CreatedKey) => void }) {
  const t = useTranslations('console.keys');
  const form = useFormError(['name', 'scopes']);
  const [name, setName] = useState('');
  const [all, setAll] = useState(true);
  const [scopes, setScopes] = useState<Set<string>>(new Set());
  const [scopeError, setScopeError] = useState<string | null>(null);

  function submit(e: FormEvent) {
    e.preventDefault();
    form.clear();
    setScopeError(null);
    if (!all && scopes.size === 0) {
      setScopeError(t('scopesRequired'));
      return;
    }
    void form.run(async () =>
      onCreated(
        await mutate<CreatedKey>('POST', path, { ...(name.trim() ? { name: name.trim() } : {}), scopes: all ? '*' : [...scopes].sort() }),
      ),
    );
  }

  return (
    <FormDialog
      open
      onClose={onClose}
      title={t('createTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={t('createSubmit')}
      busy={form.busy}
    >
      <Field label={t('name')} hint={t('nameHint')} error={form.fieldError('name')}>
        {(p) => <Input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
      </Field>
      <AllOrSome
        legend={t('scopes')}
        name="scope-mode"
        all={all}
        onAll={setAll}
        allLabel={t('allScopesOption')}
        someLabel={t('someScopesOption')}
        error={scopeError ?? form.fieldError('scopes')}
      >
        <div className="max-h-64 overflow-y-auto rounded-md p-3 ring-1 ring-inset ring-zinc-200 dark:ring-zinc-800">
          <table className="w-full text-sm">
            <thead>
              <tr className="text-left text-xs text-zinc-500 dark:text-zinc-400">
                {[t('resource'), t('read'), t('write')].map((heading) => (
                  <th key={heading} scope="col" className="pb-1 font-medium">
                    {heading}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {SCOPE_RESOURCES.map((resource) => (
                <tr key={resource}>
                  <td className="py-1 pr-2 font-mono text-xs">{resource}</td>
                  {(['read', 'write'] as const).map((action) => {
                    const scope = `${resource}:${action}`;
                    return (
                      <td key={action} className="py-1">
                        <Checkbox
                          label=""
                          aria-label={scope}
                          checked={scopes.has(scope)}
                          onChange={(e) => setScopes((current) => toggled(current, scope, e.target.checked))}
                        />
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </AllOrSome>
    </FormDialog>
  );
}
