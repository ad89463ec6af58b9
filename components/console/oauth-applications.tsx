'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
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
  SecretValue,
  ShownOnceDialog,
  Table,
  Td,
  Textarea,
  Thead,
  Tr,
} from '@/components/ui';
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
import type { OAuthApplication } from '@/lib/generated/dashboard';
import { InitialAccessTokens, LogoutDeliveriesDialog } from './oauth-registration';

/** The dashboard API's OAuth application (server/oauth/schemas.ts). */
type WithSecret = InstanceResponse<'POST /oauth_applications'>;

/** `…/oauth-applications`: the instance's OAuth applications (relying parties of its OpenID Provider). */
export function OAuthApplications() {
  const t = useTranslations('oauth.console');
  const { canWrite } = useConsole();
  const instance = useInstance();
  const base = useInstanceApi('oauth_applications');
  const cursor = useCursorPages([]);
  const list = useDashboard<InstanceResponse<'GET /oauth_applications'>>(`${base}${query({ limit: 20, starting_after: cursor.current })}`);
  const invalidate = useInvalidate();
  const [editing, setEditing] = useState<OAuthApplication | 'new' | null>(null);
  const [deleting, setDeleting] = useState<OAuthApplication | null>(null);
  const [rotating, setRotating] = useState<OAuthApplication | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [deliveriesOf, setDeliveriesOf] = useState<OAuthApplication | null>(null);

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={t('title')}
        description={t('description', { issuer: instance.fapi_url })}
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
              <Thead columns={[t('name'), t('clientId'), t('type'), t('redirectUris')]} actions={canWrite ? t('actions') : undefined} />
              <tbody>
                {items.map((a) => (
                  <Tr key={a.id}>
                    <Td className="font-medium">
                      <div className="flex flex-wrap items-center gap-2">
                        {a.name}
                        {a.registered_dynamically && <Badge tone="neutral">{t('registeredDynamically')}</Badge>}
                      </div>
                      {a.backchannel_logout_uri && (
                        <Button variant="ghost" size="sm" onClick={() => setDeliveriesOf(a)}>
                          {t('logoutDeliveries')}
                        </Button>
                      )}
                    </Td>
                    <Td className="font-mono text-xs">{a.client_id}</Td>
                    <Td>
                      <Badge tone={a.public ? 'amber' : 'indigo'}>{a.public ? t('public') : t('confidential')}</Badge>
                    </Td>
                    <Td className="break-all font-mono text-xs">{a.redirect_uris.join(' ')}</Td>
                    {canWrite && (
                      <EditDeleteCell
                        onEdit={() => setEditing(a)}
                        onDelete={() => setDeleting(a)}
                        editLabel={t('edit')}
                        deleteLabel={t('delete')}
                      >
                        {!a.public && (
                          <Button variant="secondary" size="sm" onClick={() => setRotating(a)}>
                            {t('rotate')}
                          </Button>
                        )}
                      </EditDeleteCell>
                    )}
                  </Tr>
                ))}
              </tbody>
            </Table>
          )}
        </CardList>
        <Pager state={cursor} page={list.data} loading={list.loading} />
      </Card>
      <InitialAccessTokens />
      <LogoutDeliveriesDialog app={deliveriesOf} onClose={() => setDeliveriesOf(null)} />
      {editing !== null && (
        <AppDialog
          app={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            if (saved.client_secret) setSecret(saved.client_secret);
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
      <ConfirmDialog
        open={rotating !== null}
        onClose={() => setRotating(null)}
        title={t('rotateTitle')}
        description={t('rotateDescription')}
        confirmLabel={t('rotate')}
        onConfirm={async () => {
          const rotated = await mutate<WithSecret>('POST', `${base}/${rotating!.id}/rotate_secret`);
          setSecret(rotated.client_secret);
        }}
      />
      <ShownOnceDialog
        value={secret}
        onClose={() => setSecret(null)}
        title={t('secretTitle')}
        warning={t('secretWarning')}
        doneLabel={t('done')}
      >
        {(value) => <SecretValue value={value} label={t('clientSecret')} />}
      </ShownOnceDialog>
    </div>
  );
}

/** The key set as typed: empty is none; text that is not JSON goes as typed, so the API's 422 names the field. */
function parseJwks(text: string): unknown {
  if (!text.trim()) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Mounted on opening, so its state starts from `app` (null: a new application). */
function AppDialog({ app, onClose, onSaved }: { app: OAuthApplication | null; onClose(): void; onSaved(a: WithSecret): void }) {
  const t = useTranslations('oauth.console');
  const base = useInstanceApi('oauth_applications');
  const form = useFormError(['name', 'redirect_uris', 'post_logout_redirect_uris', 'backchannel_logout_uri', 'scopes', 'jwks_uri', 'jwks']);
  const [name, setName] = useState(app?.name ?? '');
  const [redirects, setRedirects] = useState(app?.redirect_uris.join('\n') ?? '');
  const [logouts, setLogouts] = useState(app?.post_logout_redirect_uris.join('\n') ?? '');
  const [scopes, setScopes] = useState(app?.scopes.join(' ') ?? 'openid profile email');
  const [isPublic, setPublic] = useState(false);
  const [consent, setConsent] = useState(app?.consent_screen_enabled ?? true);
  const [deviceFlow, setDeviceFlow] = useState(app?.device_flow_enabled ?? false);
  const [jwksUri, setJwksUri] = useState(app?.jwks_uri ?? '');
  const [jwks, setJwks] = useState(app?.jwks ? JSON.stringify(app.jwks, null, 2) : '');
  const [backchannel, setBackchannel] = useState(app?.backchannel_logout_uri ?? '');

  const submit = form.handleSubmit(async () => {
    const body = {
      name: name.trim(),
      redirect_uris: lines(redirects),
      post_logout_redirect_uris: lines(logouts),
      scopes: scopes.split(/\s+/).filter(Boolean),
      consent_screen_enabled: consent,
      device_flow_enabled: deviceFlow,
      jwks_uri: jwksUri.trim() || null,
      jwks: parseJwks(jwks),
      backchannel_logout_uri: backchannel.trim() || null,
    };
    onSaved(
      app
        ? { ...(await mutate<OAuthApplication>('PATCH', `${base}/${app.id}`, body)), client_secret: null }
        : await mutate<WithSecret>('POST', base, { ...body, public: isPublic }),
    );
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={app ? t('editTitle') : t('addTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={app ? t('save') : t('add')}
      busy={form.busy}
    >
      <Field label={t('name')} error={form.fieldError('name')}>
        {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} autoFocus required maxLength={256} />}
      </Field>
      <Field label={t('redirectUris')} hint={t('redirectUrisHint')} error={form.fieldError('redirect_uris')}>
        {(p) => (
          <Textarea
            {...p}
            value={redirects}
            onChange={(e) => setRedirects(e.target.value)}
            rows={3}
            placeholder="https://app.example.com/callback"
          />
        )}
      </Field>
      <Field label={t('postLogoutRedirectUris')} error={form.fieldError('post_logout_redirect_uris')}>
        {(p) => <Textarea {...p} value={logouts} onChange={(e) => setLogouts(e.target.value)} rows={2} />}
      </Field>
      <Field label={t('backchannelLogoutUri')} hint={t('backchannelLogoutUriHint')} error={form.fieldError('backchannel_logout_uri')}>
        {(p) => (
          <Input
            {...p}
            value={backchannel}
            onChange={(e) => setBackchannel(e.target.value)}
            placeholder="https://app.example.com/backchannel-logout"
          />
        )}
      </Field>
      <Field label={t('scopes')} hint={t('scopesHint')} error={form.fieldError('scopes')}>
        {(p) => <Input {...p} value={scopes} onChange={(e) => setScopes(e.target.value)} />}
      </Field>
      {!app && <Checkbox label={t('publicLabel')} checked={isPublic} onChange={(e) => setPublic(e.target.checked)} />}
      <Checkbox label={t('consentLabel')} checked={consent} onChange={(e) => setConsent(e.target.checked)} />
      <Checkbox label={t('deviceFlowLabel')} checked={deviceFlow} onChange={(e) => setDeviceFlow(e.target.checked)} />
      <Field label={t('jwksUri')} hint={t('jwksUriHint')} error={form.fieldError('jwks_uri')}>
        {(p) => (
          <Input {...p} value={jwksUri} onChange={(e) => setJwksUri(e.target.value)} placeholder="https://app.example.com/jwks.json" />
        )}
      </Field>
      <Field label={t('jwks')} hint={t('jwksHint')} error={form.fieldError('jwks')}>
        {(p) => <Textarea {...p} value={jwks} onChange={(e) => setJwks(e.target.value)} rows={4} placeholder='{"keys":[…]}' />}
      </Field>
    </FormDialog>
  );
}
