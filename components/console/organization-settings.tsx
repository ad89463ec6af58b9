'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Card, CardBody, CardHeader, Checkbox, Field, Input, Select } from '@/components/ui';
import { orgApi } from '@/lib/console/organizations';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { useSettingsPart } from './settings-draft';
import type { InstanceResponse } from '@/lib/console/types';

const FIELDS = [
  'organizations_enabled',
  'organization_creation_enabled',
  'organization_default_role',
  'organization_creator_role',
  'organization_max_allowed_memberships',
] as const;

const validLimit = (text: string) => /^\d+$/.test(text.trim()) && Number(text) <= 100_000;

/**
 * The instance's organization settings: on or off, who may create them, the roles new members and creators get, the member limit of
 * new organizations. A part of the page's draft (SettingsDraft): saved by the page's bar.
 */
export function OrganizationSettings() {
  const t = useTranslations('console.organizationSettings');
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const roles = useDashboard<InstanceResponse<'GET /roles'>>(`${orgApi.roles(account.id, instance.id)}?limit=500`);
  const s = instance.settings;
  const saved = {
    enabled: s.organizations_enabled,
    creation: s.organization_creation_enabled,
    defaultRole: s.organization_default_role,
    creatorRole: s.organization_creator_role,
    limit: String(s.organization_max_allowed_memberships),
  };
  const [draft, setDraft] = useState(saved);
  const [limitError, setLimitError] = useState<string | null>(null);
  const set = <K extends keyof typeof saved>(key: K, value: (typeof saved)[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const keys = roles.data?.data.map((r) => r.key) ?? [];
  const withCurrent = (value: string) => (keys.includes(value) ? keys : [value, ...keys]);

  const checkLimit = (text = draft.limit) => {
    setLimitError(validLimit(text) ? null : t('limitInvalid'));
    return validLimit(text);
  };
  const part = useSettingsPart('organizations', {
    draft,
    saved,
    setDraft: (d) => {
      setDraft(d);
      setLimitError(null);
    },
    body: (d) => ({
      organizations_enabled: d.enabled,
      organization_creation_enabled: d.creation,
      organization_default_role: d.defaultRole,
      organization_creator_role: d.creatorRole,
      organization_max_allowed_memberships: validLimit(d.limit) ? Number(d.limit) : d.limit,
    }),
    validate: (d) => checkLimit(d.limit),
    fields: FIELDS,
  });

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody className="flex flex-col gap-5">
        <div className="flex flex-col gap-2">
          <Checkbox label={t('enabled')} checked={draft.enabled} disabled={!canWrite} onChange={(e) => set('enabled', e.target.checked)} />
          <Checkbox
            label={t('creation')}
            checked={draft.creation}
            disabled={!canWrite || !draft.enabled}
            onChange={(e) => set('creation', e.target.checked)}
          />
        </div>
        <div className="grid gap-4 sm:grid-cols-3">
          <Field label={t('defaultRole')} hint={t('defaultRoleHint')} error={part.fieldError('organization_default_role')}>
            {(p) => (
              <Select
                {...p}
                value={draft.defaultRole}
                disabled={!canWrite}
                onChange={(e) => set('defaultRole', e.target.value)}
                options={withCurrent(draft.defaultRole)}
              />
            )}
          </Field>
          <Field label={t('creatorRole')} hint={t('creatorRoleHint')} error={part.fieldError('organization_creator_role')}>
            {(p) => (
              <Select
                {...p}
                value={draft.creatorRole}
                disabled={!canWrite}
                onChange={(e) => set('creatorRole', e.target.value)}
                options={withCurrent(draft.creatorRole)}
              />
            )}
          </Field>
          <Field label={t('limit')} hint={t('limitHint')} error={limitError ?? part.fieldError('organization_max_allowed_memberships')}>
            {(p) => (
              <Input
                {...p}
                inputMode="numeric"
                value={draft.limit}
                disabled={!canWrite}
                onChange={(e) => {
                  set('limit', e.target.value);
                  if (limitError) setLimitError(null);
                }}
                onBlur={() => checkLimit()}
              />
            )}
          </Field>
        </div>
      </CardBody>
    </Card>
  );
}
