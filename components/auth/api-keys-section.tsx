'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Field, Input } from '@/components/ui';
import type { ApiKey, CreatedApiKey } from '@/lib/console/api-keys';
import { useDates } from '@/lib/console/format';
import { useHosted } from './hosted-context';
import { CreateOwnSecretDialog, OwnSecretsSection } from './own-secrets-section';

const NS = 'apikeys.profile';
const LIST = { path: '/v1/me/api_keys', query: { limit: '100' } };

/** The hosted profile's API keys (`ak_`): the user's own keys for the customer's API — list, create (shown once), revoke. */
export function ApiKeysSection() {
  const t = useTranslations(NS);
  const dates = useDates();
  return (
    <OwnSecretsSection<ApiKey>
      ns={NS}
      list={LIST}
      revokePath={(id) => `/v1/me/api_keys/${id}/revoke`}
      columns={[
        {
          header: t('name'),
          className: 'font-medium',
          cell: (key) => (
            <>
              {key.name}
              {key.description && <span className="block text-xs font-normal text-zinc-500 dark:text-zinc-400">{key.description}</span>}
            </>
          ),
        },
        { header: t('expires'), className: 'whitespace-nowrap', cell: (key) => (key.expiration ? dates.date(key.expiration) : t('never')) },
        { header: t('lastUsed'), className: 'whitespace-nowrap', cell: (key) => dates.relative(key.last_used_at) },
      ]}
      createDialog={(done) => <CreateApiKeyDialog {...done} />}
    />
  );
}

function CreateApiKeyDialog(done: { onClose(): void; onCreated(): void }) {
  const t = useTranslations(NS);
  const { call } = useHosted();
  const [description, setDescription] = useState('');
  return (
    <CreateOwnSecretDialog
      ns={NS}
      fields={['name', 'description', 'expires_in_seconds']}
      nameMaxLength={256}
      expiryDays={[30, 90, 365]}
      create={async (input) => {
        const json = { ...input, ...(description.trim() ? { description: description.trim() } : {}) };
        return (await call<CreatedApiKey>('/v1/me/api_keys', { json })).secret;
      }}
      {...done}
    >
      {(errors) => (
        <Field label={t('descriptionLabel')} error={errors.description}>
          {(p) => <Input {...p} name="description" maxLength={1024} value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
      )}
    </CreateOwnSecretDialog>
  );
}
