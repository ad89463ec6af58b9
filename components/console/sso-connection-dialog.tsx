'use client';

import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { Checkbox, Field, FormDialog, Input, Select, Textarea } from '@/components/ui';
import { mutate, useDashboard } from '@/lib/console/use-dashboard';
import { useFormError } from './use-form-error';
import type { InstanceResponse } from '@/lib/console/types';
import type { SsoConnection } from '@/lib/generated/dashboard';

export type { SsoConnection };

const SOURCES = ['metadata_xml', 'metadata_url', 'manual'] as const;
/** idp_preset: the IdP whose attribute names are read first (server/db/schema/sso.ts SSO_IDP_PRESETS). */
const PRESETS = ['generic', 'okta', 'entra', 'adfs', 'google', 'onelogin', 'jumpcloud', 'shibboleth', 'keycloak', 'ping', 'auth0'] as const;
type Preset = (typeof PRESETS)[number];
const NAME_ID_FORMATS = ['unspecified', 'email_address', 'persistent', 'transient', 'none'] as const;
type NameIdFormat = (typeof NAME_ID_FORMATS)[number];
/** The organization id at the end of the organization's dashboard path (`…/organizations/<id>`). */
const organizationOf = (base: string) => decodeURIComponent(base.slice(base.lastIndexOf('/') + 1));
type Source = (typeof SOURCES)[number];
const FIELDS = [
  'name',
  'provider',
  'domains',
  'active',
  'idp_preset',
  'saml.name_id_format',
  'saml.idp_metadata_xml',
  'saml.idp_metadata_url',
  'saml.idp_entity_id',
  'saml.idp_sso_url',
  'saml.idp_certificates',
  'oidc.issuer',
  'oidc.client_id',
  'oidc.client_secret',
];

/**
 * Creates (no `connection`) or edits an organization's SSO connection: SAML from the IdP's
 * metadata (pasted or by URL) or its entity id, SSO URL and certificate, with IdP-initiated
 * sign-in and signed AuthnRequests as options; OIDC with issuer, client id and a write-only
 * secret. Domains are picked among the organization's verified ones.
 */
export function SsoConnectionDialog({
  base,
  connection,
  onClose,
  onSaved,
}: {
  base: string;
  connection: SsoConnection | null;
  onClose: () => void;
  onSaved: () => void;
}) {
  const t = useTranslations('sso.form');
  const form = useFormError(FIELDS);
  const domains = useDashboard<InstanceResponse<'GET /organizations/{id}/domains'>>(`${base}/domains?limit=100`);
  const verified = domains.data?.data.filter((d) => d.verification.status === 'verified').map((d) => d.name) ?? [];
  const [provider, setProvider] = useState<'saml' | 'oidc'>(connection?.provider ?? 'saml');
  const [name, setName] = useState(connection?.name ?? '');
  const [picked, setPicked] = useState<string[]>(connection?.domains ?? []);
  const [active, setActive] = useState(connection?.active ?? true);
  const [preset, setPreset] = useState<Preset>(connection?.idp_preset ?? 'generic');
  const [nameIdFormat, setNameIdFormat] = useState<NameIdFormat>(connection?.saml?.name_id_format ?? 'unspecified');
  const [source, setSource] = useState<Source>(connection ? 'manual' : 'metadata_xml');
  const [xml, setXml] = useState('');
  const [metadataUrl, setMetadataUrl] = useState(connection?.saml?.idp_metadata_url ?? '');
  const [entityId, setEntityId] = useState(connection?.saml?.idp_entity_id ?? '');
  const [ssoUrl, setSsoUrl] = useState(connection?.saml?.idp_sso_url ?? '');
  const [certificate, setCertificate] = useState('');
  const [idpInitiated, setIdpInitiated] = useState(connection?.saml?.allow_idp_initiated ?? false);
  const [signRequests, setSignRequests] = useState(connection?.saml?.sign_authn_requests ?? false);
  const [issuer, setIssuer] = useState(connection?.oidc?.issuer ?? '');
  const [clientId, setClientId] = useState(connection?.oidc?.client_id ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [local, setLocal] = useState<Record<string, string>>({});
  const error = (f: string) => local[f] || form.fieldError(f);
  const required = (f: string, v: string) => () => setLocal((l) => ({ ...l, [f]: v.trim() ? '' : t('required') }));

  function samlBody() {
    const body: Record<string, unknown> = {
      allow_idp_initiated: idpInitiated,
      sign_authn_requests: signRequests,
      name_id_format: nameIdFormat,
    };
    if (source === 'metadata_xml' && xml.trim()) body.idp_metadata_xml = xml;
    if (source === 'metadata_url' && metadataUrl.trim()) body.idp_metadata_url = metadataUrl.trim();
    if (source === 'manual') {
      if (entityId.trim()) body.idp_entity_id = entityId.trim();
      if (ssoUrl.trim()) body.idp_sso_url = ssoUrl.trim();
      if (certificate.trim()) body.idp_certificates = [certificate.trim()];
    }
    return body;
  }

  const submit = form.handleSubmit(async () => {
    const problems: Record<string, string> = {};
    if (!name.trim()) problems.name = t('required');
    if (picked.length === 0) problems.domains = t('pickDomain');
    setLocal(problems);
    if (Object.keys(problems).length > 0) return;
    const oidc = { issuer: issuer.trim(), client_id: clientId.trim(), ...(clientSecret ? { client_secret: clientSecret } : {}) };
    const body = {
      name: name.trim(),
      domains: picked,
      active,
      idp_preset: preset,
      ...(provider === 'saml' ? { saml: samlBody() } : { oidc }),
    };
    await mutate(
      connection ? 'PATCH' : 'POST',
      connection ? `${base}/sso_connections/${encodeURIComponent(connection.id)}` : `${base}/sso_connections`,
      connection ? body : { ...body, provider, organization_id: organizationOf(base) },
    );
    onSaved();
  });

  return (
    <FormDialog
      open
      onClose={onClose}
      title={connection ? t('editTitle') : t('createTitle')}
      onSubmit={submit}
      error={form.formError}
      submitLabel={connection ? t('save') : t('create')}
      busy={form.busy}
    >
      <Field label={t('name')} error={error('name')}>
        {(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} onBlur={required('name', name)} autoFocus />}
      </Field>
      {!connection && (
        <Field label={t('provider')}>
          {(p) => (
            <Select
              {...p}
              value={provider}
              onChange={(e) => setProvider(e.target.value as 'saml' | 'oidc')}
              options={['saml', 'oidc'] as const}
              optionLabel={(v) => t(`providers.${v}`)}
            />
          )}
        </Field>
      )}
      <Field label={t('idpPreset')} hint={t('idpPresetHint')} error={error('idp_preset')}>
        {(p) => (
          <Select
            {...p}
            value={preset}
            onChange={(e) => setPreset(e.target.value as Preset)}
            options={PRESETS}
            optionLabel={(v) => t(`presets.${v}`)}
          />
        )}
      </Field>
      <fieldset className="flex flex-col gap-2" aria-invalid={error('domains') ? true : undefined}>
        <legend className="mb-1 text-sm font-medium">{t('domains')}</legend>
        {verified.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('noVerifiedDomain')}</p>
        ) : (
          verified.map((d) => (
            <Checkbox
              key={d}
              label={d}
              checked={picked.includes(d)}
              onChange={(e) => setPicked((list) => (e.target.checked ? [...list, d] : list.filter((x) => x !== d)))}
            />
          ))
        )}
        {error('domains') && (
          <p role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
            {error('domains')}
          </p>
        )}
      </fieldset>
      {provider === 'saml' ? (
        <>
          <Field label={t('source')}>
            {(p) => (
              <Select
                {...p}
                value={source}
                onChange={(e) => setSource(e.target.value as Source)}
                options={SOURCES}
                optionLabel={(v) => t(`sources.${v}`)}
              />
            )}
          </Field>
          {source === 'metadata_xml' && (
            <Field label={t('metadataXml')} hint={connection ? t('keepHint') : undefined} error={error('saml.idp_metadata_xml')}>
              {(p) => (
                <Textarea
                  {...p}
                  rows={5}
                  value={xml}
                  onChange={(e) => setXml(e.target.value)}
                  spellCheck={false}
                  placeholder="<EntityDescriptor …>"
                />
              )}
            </Field>
          )}
          {source === 'metadata_url' && (
            <Field label={t('metadataUrl')} error={error('saml.idp_metadata_url')}>
              {(p) => (
                <Input
                  {...p}
                  type="url"
                  value={metadataUrl}
                  onChange={(e) => setMetadataUrl(e.target.value)}
                  placeholder="https://idp.example.com/metadata.xml"
                />
              )}
            </Field>
          )}
          {source === 'manual' && (
            <>
              <Field label={t('entityId')} error={error('saml.idp_entity_id')}>
                {(p) => <Input {...p} value={entityId} onChange={(e) => setEntityId(e.target.value)} spellCheck={false} />}
              </Field>
              <Field label={t('ssoUrl')} error={error('saml.idp_sso_url')}>
                {(p) => <Input {...p} type="url" value={ssoUrl} onChange={(e) => setSsoUrl(e.target.value)} />}
              </Field>
              <Field label={t('certificate')} hint={connection ? t('keepHint') : undefined} error={error('saml.idp_certificates')}>
                {(p) => (
                  <Textarea
                    {...p}
                    rows={4}
                    value={certificate}
                    onChange={(e) => setCertificate(e.target.value)}
                    spellCheck={false}
                    placeholder="-----BEGIN CERTIFICATE-----"
                  />
                )}
              </Field>
            </>
          )}
          <Field label={t('nameIdFormat')} hint={t('nameIdFormatHint')} error={error('saml.name_id_format')}>
            {(p) => (
              <Select
                {...p}
                value={nameIdFormat}
                onChange={(e) => setNameIdFormat(e.target.value as NameIdFormat)}
                options={NAME_ID_FORMATS}
                optionLabel={(v) => t(`nameIdFormats.${v}`)}
              />
            )}
          </Field>
          <Checkbox label={t('idpInitiated')} checked={idpInitiated} onChange={(e) => setIdpInitiated(e.target.checked)} />
          <Checkbox label={t('signRequests')} checked={signRequests} onChange={(e) => setSignRequests(e.target.checked)} />
        </>
      ) : (
        <>
          <Field label={t('issuer')} error={error('oidc.issuer')}>
            {(p) => (
              <Input
                {...p}
                type="url"
                value={issuer}
                onChange={(e) => setIssuer(e.target.value)}
                onBlur={required('oidc.issuer', issuer)}
                placeholder="https://login.example.com"
              />
            )}
          </Field>
          <Field label={t('clientId')} error={error('oidc.client_id')}>
            {(p) => (
              <Input
                {...p}
                value={clientId}
                onChange={(e) => setClientId(e.target.value)}
                onBlur={required('oidc.client_id', clientId)}
                spellCheck={false}
              />
            )}
          </Field>
          <Field
            label={t('clientSecret')}
            hint={connection?.oidc?.client_secret_set ? t('secretSet') : t('secretHint')}
            error={error('oidc.client_secret')}
          >
            {(p) => (
              <Input {...p} type="password" autoComplete="off" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} />
            )}
          </Field>
        </>
      )}
      <Checkbox label={t('active')} checked={active} onChange={(e) => setActive(e.target.checked)} />
    </FormDialog>
  );
}
