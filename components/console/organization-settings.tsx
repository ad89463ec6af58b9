'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Card, CardBody, CardHeader, Checkbox, Field, Input, Select } from '@/components/ui';
import { orgApi } from '@/lib/console/organizations';
import { useDashboard } from '@/lib/console/use-dashboard';
import { useConsole } from './console-context';
import { useInstance } from './instance-context';
import { SettingsForm, useSettingsPatch } from './settings-form';
import type { InstanceResponse } from '@/lib/console/types';

const FIELDS = [
  'organizations_enabled',
  'organization_creation_enabled',
  'organization_default_role',
  'organization_creator_role',
  'organization_max_allowed_memberships',
] as const;

/** The instance's organization settings: on or off, who may create them, the roles new members and creators get, the member limit of new organizations. */
export function OrganizationSettings() {
  const t = useTranslations('console.organizationSettings');
  const { account, canWrite } = useConsole();
  const instance = useInstance();
  const roles = useDashboard<InstanceResponse<'GET /roles'>>(`${orgApi.roles(account.id, instance.id)}?limit=500`);
  const s = instance.settings;
  const [enabled, setEnabled] = useState(s.organizations_enabled);
  const [creation, setCreation] = useState(s.organization_creation_enabled);
  const [defaultRole, setDefaultRole] = useState(s.organization_default_role);
  const [creatorRole, setCreatorRole] = useState(s.organization_creator_role);
  const [limit, setLimit] = useState(String(s.organization_max_allowed_memberships));
  const [limitError, setLimitError] = useState<string | null>(null);
  const settings = useSettingsPatch(FIELDS);
  const { form } = settings;
  const keys = roles.data?.data.map((r) => r.key) ?? [];
  const withCurrent = (value: string) => (keys.includes(value) ? keys : [value, ...keys]);

  const checkLimit = () => {
    const ok = /^\d+$/.test(limit.trim()) && Number(limit) <= 100_000;
    setLimitError(ok ? null : t('limitInvalid'));
    return ok;
  };

  const save = () =>
    checkLimit() &&
    settings.save({
      organizations_enabled: enabled,
      organization_creation_enabled: creation,
      organization_default_role: defaultRole,
      organization_creator_role: creatorRole,
      organization_max_allowed_memberships: Number(limit),
    });

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <CardBody>
        <SettingsForm settings={settings} onSubmit={save} savedLabel={t('saved')} saveLabel={t('save')}>
          <div className="flex flex-col gap-2">
            <Checkbox label={t('enabled')} checked={enabled} disabled={!canWrite} onChange={(e) => setEnabled(e.target.checked)} />
            <Checkbox
              label={t('creation')}
              checked={creation}
              disabled={!canWrite || !enabled}
              onChange={(e) => setCreation(e.target.checked)}
            />
          </div>
          <div className="grid gap-4 sm:grid-cols-3">
            <Field label={t('defaultRole')} hint={t('defaultRoleHint')} error={form.fieldError('organization_default_role')}>
              {(p) => (
                <Select
                  {...p}
                  value={defaultRole}
                  disabled={!canWrite}
                  onChange={(e) => setDefaultRole(e.target.value)}
                  options={withCurrent(defaultRole)}
                />
              )}
            </Field>
            <Field label={t('creatorRole')} hint={t('creatorRoleHint')} error={form.fieldError('organization_creator_role')}>
              {(p) => (
                <Select
                  {...p}
                  value={creatorRole}
                  disabled={!canWrite}
                  onChange={(e) => setCreatorRole(e.target.value)}
                  options={withCurrent(creatorRole)}
                />
              )}
            </Field>
            <Field label={t('limit')} hint={t('limitHint')} error={limitError ?? form.fieldError('organization_max_allowed_memberships')}>
              {(p) => (
                <Input
                  {...p}
                  inputMode="numeric"
                  value={limit}
                  disabled={!canWrite}
                  onChange={(e) => {
                    setLimit(e.target.value);
                    if (limitError) setLimitError(null);
                  }}
                  onBlur={checkLimit}
                />
              )}
            </Field>
          </div>
        </SettingsForm>
      </CardBody>
    </Card>
  );
}
