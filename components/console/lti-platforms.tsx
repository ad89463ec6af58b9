'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Button, Card, Checkbox, Field, FormDialog, Input, PageHeader, Table, Td, Textarea, Thead, Tr } from '@/components/ui';
import { query } from '@/lib/console/paths';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useInvalidate } from '@/lib/query/use-resource';
import { useConsole } from './console-context';
import { useInstance, useInstanceApi } from './instance-context';
import { Pager, useCursorPages } from './pager';
import { CardList } from './states';
import { EditDeleteCell, DeleteDialog } from './row-actions';
import { useFormError } from './use-form-error';
import { lines } from '@/lib/console/lines';
import type { InstanceResponse } from '@/lib/console/types';
import type { LtiPlatform } from '@/lib/generated/dashboard';

/** The dashboard API's LTI platform registration (server/lti/schemas.ts). */

/** `…/lti-platforms`: the learning-management systems allowed to launch into this instance (LTI 1.3). */
export function LtiPlatforms() {
  const t = useTranslations('lti');
  const { canWrite } = useConsole();
  const instance = useInstance();
  const base = useInstanceApi('lti_platforms');
  const cursor = useCursorPages([]);
  const list = useDashboard<InstanceResponse<'GET /lti_platforms'>>(`${base}${query({ limit: 20, starting_after: cursor.current })}`);
  const invalidate = useInvalidate();
  const [editing, setEditing] = useState<LtiPlatform | 'new' | null>(null);
  const [deleting, setDeleting] = useState<LtiPlatform | null>(null);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description', { login: `${instance.fapi_url}/lti/login`, launch: `${instance.fapi_url}/lti/launch` })}
        actions={canWrite && <Button onClick={() => setEditing('new')}>{t('add')}</Button>}
      />
      <Card className="overflow-hidden">
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
              <Thead columns={[t('name'), t('issuer'), t('clientId'), t('deploymentIds')]} actions={canWrite ? t('actions') : undefined} />
              <tbody>
                {items.map((p) => (
                  <Tr key={p.id}>
                    <Td className="font-medium">{p.name}</Td>
                    <Td className="break-all font-mono text-xs">{p.issuer}</Td>
                    <Td className="font-mono text-xs">{p.client_id}</Td>
                    <Td className="break-all font-mono text-xs">{p.deployment_ids.join(' ')}</Td>
                    {canWrite && (
                      <EditDeleteCell
                        onEdit={() => setEditing(p)}
                        onDelete={() => setDeleting(p)}
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
      </Card>
      {editing !== null && (
        <PlatformDialog
          platform={editing === 'new' ? null : editing}
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
    </div>
  );
}

const FIELDS = ['name', 'issuer', 'client_id', 'authorization_endpoint', 'jwks_uri', 'deployment_ids', 'target_link_uris'] as const;
type Values = Record<(typeof FIELDS)[number], string>;
const EMPTY: Values = {
  name: '',
  issuer: '',
  client_id: '',
  authorization_endpoint: '',
  jwks_uri: '',
  deployment_ids: '',
  target_link_uris: '',
};

/** Mounted on opening, so its state starts from `platform` (null: a new registration). */
function PlatformDialog({ platform, onClose, onSaved }: { platform: LtiPlatform | null; onClose(): void; onSaved(): void }) {
  const t = useTranslations('lti');
  const base = useInstanceApi('lti_platforms');
  const form = useFormError([...FIELDS]);
  const [values, setValues] = useState<Values>(
    platform ? (Object.fromEntries(FIELDS.map((f) => [f, [platform[f]].flat().join('\n')])) as Values) : EMPTY,
  );
  const [orgs, setOrgs] = useState(platform?.organizations_from_contexts ?? false);
  const set = (k: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));

  const submit = form.handleSubmit(async () => {
    const body = {
      name: values.name.trim(),
      authorization_endpoint: values.authorization_endpoint.trim(),
      jwks_uri: values.jwks_uri.trim(),
      deployment_ids: lines(values.deployment_ids),
      target_link_uris: lines(values.target_link_uris),
      organizations_from_contexts: orgs,
    };
    if (platform) await mutate('PATCH', `${base}/${platform.id}`, body);
    else await mutate('POST', base, { ...body, issuer: values.issuer.trim(), client_id: values.client_id.trim() });
    onSaved();
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={platform ? t('editTitle') : t('addTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={platform ? t('save') : t('add')}
      busy={form.busy}
    >
      <Field label={t('name')} error={form.fieldError('name')}>
        {(p) => <Input {...p} value={values.name} onChange={set('name')} autoFocus required maxLength={256} />}
      </Field>
      <Field label={t('issuer')} hint={platform ? t('fixedHint') : t('issuerHint')} error={form.fieldError('issuer')}>
        {(p) => (
          <Input
            {...p}
            value={values.issuer}
            onChange={set('issuer')}
            disabled={!!platform}
            required
            placeholder="https://canvas.instructure.com"
          />
        )}
      </Field>
      <Field label={t('clientId')} hint={platform ? t('fixedHint') : undefined} error={form.fieldError('client_id')}>
        {(p) => <Input {...p} value={values.client_id} onChange={set('client_id')} disabled={!!platform} required maxLength={255} />}
      </Field>
      <Field label={t('authorizationEndpoint')} error={form.fieldError('authorization_endpoint')}>
        {(p) => <Input {...p} value={values.authorization_endpoint} onChange={set('authorization_endpoint')} required />}
      </Field>
      <Field label={t('jwksUri')} error={form.fieldError('jwks_uri')}>
        {(p) => <Input {...p} value={values.jwks_uri} onChange={set('jwks_uri')} required />}
      </Field>
      <Field label={t('deploymentIds')} hint={t('linesHint')} error={form.fieldError('deployment_ids')}>
        {(p) => <Textarea {...p} value={values.deployment_ids} onChange={set('deployment_ids')} rows={2} />}
      </Field>
      <Field label={t('targetLinkUris')} hint={t('targetLinkUrisHint')} error={form.fieldError('target_link_uris')}>
        {(p) => (
          <Textarea
            {...p}
            value={values.target_link_uris}
            onChange={set('target_link_uris')}
            rows={2}
            placeholder="https://app.example.com/lti"
          />
        )}
      </Field>
      <Checkbox label={t('organizationsLabel')} checked={orgs} onChange={(e) => setOrgs(e.target.checked)} />
    </FormDialog>
  );
}
