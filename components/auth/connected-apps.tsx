'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { AsyncContent, Button, Card, CardHeader, ConfirmDialog, EmptyState } from '@/components/ui';
import { useFapiError } from '@/lib/fapi/use-fapi-error';
import { useHosted } from './hosted-context';
import { SectionError, useList } from './hosted-list';
import type { FapiItem } from '@/lib/generated/fapi';

type OAuthGrant = FapiItem<'GET /v1/me/oauth_grants'>;

/** The profile's "Connected apps": the OAuth consents the user gave, each revocable (GET/DELETE /v1/me/oauth_grants). */
export function ConnectedAppsSection() {
  const t = useTranslations('oauth.profile');
  const { call } = useHosted();
  const describe = useFapiError();
  const { list, setList, error } = useList<OAuthGrant>('/v1/me/oauth_grants');
  const [revoking, setRevoking] = useState<OAuthGrant | null>(null);

  async function revoke() {
    if (!revoking) return;
    await call(`/v1/me/oauth_grants/${revoking.id}`, { method: 'DELETE' });
    setList((l) => l?.filter((g) => g.id !== revoking.id) ?? null);
  }

  return (
    <Card>
      <CardHeader title={t('title')} description={t('description')} />
      <AsyncContent data={list} error={error && <SectionError message={error} />} loading={null} empty={<EmptyState title={t('empty')} />}>
        {(grants) => (
          <ul aria-label={t('title')} className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {grants.map((g) => (
              <li key={g.id} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
                <div className="min-w-0 text-sm">
                  <p className="font-medium">{g.application.name}</p>
                  <p className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{t('scopes', { scopes: g.scopes.join(' ') })}</p>
                </div>
                <Button
                  variant="secondary"
                  size="sm"
                  aria-label={t('revokeLabel', { app: g.application.name })}
                  onClick={() => setRevoking(g)}
                >
                  {t('revoke')}
                </Button>
              </li>
            ))}
          </ul>
        )}
      </AsyncContent>
      <ConfirmDialog
        open={revoking !== null}
        title={t('revokeTitle')}
        description={t('revokeBody', { app: revoking?.application.name ?? '' })}
        confirmLabel={t('revoke')}
        describeError={(e) => describe(e).message}
        onConfirm={revoke}
        onClose={() => setRevoking(null)}
      />
    </Card>
  );
}
