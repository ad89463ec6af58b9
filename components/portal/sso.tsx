'use client';

import { useTranslations } from 'next-intl';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Checkbox, Field, Input, Select, Textarea, ValueField } from '@/components/ui';
import { ErrorLine, Section } from './portal';
import { usePortalCall, usePortalError, usePortalInvalidate, usePortalResource } from './portal-context';
import { usePortalDomains } from './domains';

const IDPS = ['okta', 'entra', 'google', 'onelogin', 'jumpcloud', 'saml', 'oidc'] as const;
type Idp = (typeof IDPS)[number];
/** The other SAML providers with a preset of their own (idp_preset: attribute names read first); generic is any other. */
const OTHER_SAML_PRESETS = ['adfs', 'shibboleth', 'keycloak', 'ping', 'auth0', 'generic'] as const;
type OtherSamlPreset = (typeof OTHER_SAML_PRESETS)[number];
const NAME_ID_FORMATS = ['unspecified', 'email_address', 'persistent', 'transient', 'none'] as const;
type NameIdFormat = (typeof NAME_ID_FORMATS)[number];
/** The preset a pick sets: the named IdPs their own, another SAML provider the one chosen, OIDC generic. */
const presetOf = (idp: Idp, other: OtherSamlPreset) => (idp === 'saml' ? other : idp === 'oidc' ? 'generic' : idp);

type Connection = {
  id: string;
  name: string;
  provider: 'saml' | 'oidc';
  domains: string[];
  active: boolean;
  idp_preset: string;
  saml: {
    name_id_format: NameIdFormat;
    idp_entity_id: string | null;
    idp_sso_url: string | null;
    idp_certificates: string[];
    sp_entity_id: string;
    sp_acs_url: string;
    sp_metadata_url: string;
  } | null;
  oidc: { issuer: string | null; client_id: string | null; client_secret_set: boolean; redirect_uri: string } | null;
};

export type ConnectionTest = {
  id: string;
  connection_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string | null;
  message: string | null;
  result: {
    subject?: string;
    email?: string | null;
    first_name?: string | null;
    last_name?: string | null;
    groups?: string[];
    mapping?: { email_domain: string | null; domain_allowed: boolean; role: string | null; mapped_groups: string[] };
    detail?: string;
  } | null;
  url?: string;
};

/** SSO setup: pick the IdP, copy our values into it, give its metadata, test, activate. */
export function PortalSso() {
  const t = useTranslations('portal.sso');
  const connections = usePortalResource<{ data: Connection[] }>('/sso_connections').data?.data ?? null;
  const invalidate = usePortalInvalidate();
  const changed = useCallback(() => invalidate('/sso_connections'), [invalidate]);
  const { domains } = usePortalDomains();
  const verified = (domains ?? []).filter((d) => d.verification.status === 'verified').map((d) => d.name);
  return (
    <Section title={t('title')} intro={t('intro')}>
      {connections?.map((c) => (
        <ConnectionCard key={c.id} connection={c} onChange={changed} />
      ))}
      {connections?.length === 0 &&
        (verified.length === 0 ? (
          <Alert tone="warning">{t('needDomain')}</Alert>
        ) : (
          <NewConnection domains={verified} onCreated={changed} />
        ))}
    </Section>
  );
}

function NewConnection({ domains, onCreated }: { domains: string[]; onCreated: () => Promise<void> }) {
  const t = useTranslations('portal.sso');
  const { call } = usePortalCall();
  const describe = usePortalError();
  const [idp, setIdp] = useState<Idp | null>(null);
  const [other, setOther] = useState<OtherSamlPreset>('generic');
  const [name, setName] = useState('');
  const [picked, setPicked] = useState<string[]>(domains);
  const [oidc, setOidc] = useState({ issuer: '', client_id: '', client_secret: '' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function create(e: FormEvent) {
    e.preventDefault();
    if (!idp) return;
    setBusy(true);
    setError(null);
    try {
      const provider = idp === 'oidc' ? 'oidc' : 'saml';
      await call('/sso_connections', {
        json: {
          provider,
          name: name || (idp === 'saml' && other !== 'generic' ? t(`presets.${other}`) : t(`idp.${idp}`)),
          domains: picked,
          idp_preset: presetOf(idp, other),
          ...(provider === 'oidc'
            ? {
                oidc: {
                  issuer: oidc.issuer.trim(),
                  client_id: oidc.client_id.trim(),
                  ...(oidc.client_secret ? { client_secret: oidc.client_secret } : {}),
                },
              }
            : {}),
        },
      });
      await onCreated();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={create} className="flex flex-col gap-4">
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-2 text-sm font-medium">{t('pick')}</legend>
        <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
          {IDPS.map((key) => (
            <label
              key={key}
              className="flex cursor-pointer items-center gap-2 rounded-md p-3 text-sm ring-1 ring-zinc-200 has-[:checked]:ring-2 has-[:checked]:ring-indigo-600 dark:ring-zinc-800"
            >
              <input type="radio" name="idp" value={key} checked={idp === key} onChange={() => setIdp(key)} className="accent-indigo-600" />
              {t(`idp.${key}`)}
            </label>
          ))}
        </div>
      </fieldset>
      {idp === 'saml' && (
        <Field label={t('samlVendor')} hint={t('presetHint')}>
          {(p) => (
            <Select
              {...p}
              value={other}
              options={OTHER_SAML_PRESETS}
              optionLabel={(v) => t(`presets.${v}`)}
              onChange={(e) => setOther(e.target.value as OtherSamlPreset)}
            />
          )}
        </Field>
      )}
      {idp && (
        <>
          <Field label={t('name')}>
            {(p) => <Input {...p} value={name} placeholder={t(`idp.${idp}`)} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <fieldset className="flex flex-col gap-1">
            <legend className="mb-1 text-sm font-medium">{t('domains')}</legend>
            {domains.map((d) => (
              <Checkbox
                key={d}
                label={d}
                checked={picked.includes(d)}
                onChange={(e) => setPicked(e.target.checked ? [...picked, d] : picked.filter((x) => x !== d))}
              />
            ))}
          </fieldset>
          {idp === 'oidc' && (
            <>
              <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('instructions.oidc')}</p>
              <Field label={t('issuer')}>
                {(p) => (
                  <Input {...p} type="url" value={oidc.issuer} onChange={(e) => setOidc({ ...oidc, issuer: e.target.value })} required />
                )}
              </Field>
              <Field label={t('clientId')}>
                {(p) => <Input {...p} value={oidc.client_id} onChange={(e) => setOidc({ ...oidc, client_id: e.target.value })} required />}
              </Field>
              <Field label={t('clientSecret')}>
                {(p) => (
                  <Input
                    {...p}
                    type="password"
                    autoComplete="off"
                    value={oidc.client_secret}
                    onChange={(e) => setOidc({ ...oidc, client_secret: e.target.value })}
                  />
                )}
              </Field>
            </>
          )}
          <Button type="submit" loading={busy} disabled={picked.length === 0}>
            {t('create')}
          </Button>
        </>
      )}
      <ErrorLine message={error} />
    </form>
  );
}

/** The IdP whose steps a connection shows: its preset's when the portal has them, else any SAML or OIDC provider's. */
function idpOf(c: Connection): Idp {
  return (IDPS as readonly string[]).includes(c.idp_preset) && c.idp_preset !== 'saml' && c.idp_preset !== 'oidc'
    ? (c.idp_preset as Idp)
    : c.provider;
}

function ConnectionCard({ connection: c, onChange }: { connection: Connection; onChange: () => Promise<void> }) {
  const t = useTranslations('portal.sso');
  const { call } = usePortalCall();
  const describe = usePortalError();
  const idp = idpOf(c);
  const [test, setTest] = useState<ConnectionTest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  // While a test waits for the other tab, ask for its outcome.
  useEffect(() => {
    if (test?.status !== 'pending') return;
    const timer = setInterval(() => {
      call<ConnectionTest>(`/sso_connections/${c.id}/tests/${test.id}`).then(
        (next) => next.status !== 'pending' && setTest(next),
        () => undefined,
      );
    }, 1500);
    return () => clearInterval(timer);
  }, [test, c.id, call]);

  async function startTest() {
    setError(null);
    // Opened on the click (no popup blocker), sent to the IdP once the test is recorded.
    const tab = window.open('', '_blank');
    try {
      const started = await call<ConnectionTest>(`/sso_connections/${c.id}/tests`, { method: 'POST' });
      setTest(started);
      // Failed before reaching the IdP (an OIDC issuer whose discovery fails): the reason is shown here, no tab.
      if (started.status !== 'pending' || !started.url) {
        tab?.close();
        return;
      }
      if (tab) {
        tab.opener = null;
        tab.location.href = started.url!;
      } else window.location.assign(started.url!);
    } catch (err) {
      tab?.close();
      setError(describe(err));
    }
  }
  async function act(path: string, method = 'POST') {
    setError(null);
    try {
      await call(`/sso_connections/${c.id}${path}`, { method });
      await onChange();
    } catch (err) {
      setError(describe(err));
    }
  }
  const configured =
    c.provider === 'saml' ? !!(c.saml?.idp_entity_id && c.saml.idp_sso_url && c.saml.idp_certificates.length) : !!c.oidc?.client_id;
  return (
    <div className="flex flex-col gap-5" aria-label={c.name} role="group">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="font-medium">{c.name}</span>
        <Badge tone={c.active ? 'green' : 'amber'}>{c.active ? t('active') : t('inactive')}</Badge>
      </div>
      {c.active && <Alert tone="success">{t('activated', { domains: c.domains.join(', '), name: c.name })}</Alert>}
      <div className="flex flex-col gap-3">
        <h3 className="text-sm font-semibold">{t('spValues', { idp: t(`idp.${idp}`) })}</h3>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{t(`instructions.${idp}`)}</p>
        {c.saml && (
          <>
            <ValueField label={t('acsUrl')} value={c.saml.sp_acs_url} wrap />
            <ValueField label={t('entityId')} value={c.saml.sp_entity_id} wrap />
            <ValueField label={t('metadataUrl')} value={c.saml.sp_metadata_url} wrap />
          </>
        )}
        {c.oidc && <ValueField label={t('redirectUri')} value={c.oidc.redirect_uri} wrap />}
      </div>
      <IdpSettings
        connection={c}
        onSaved={async () => {
          setSaved(true);
          setTest(null);
          await onChange();
        }}
      />
      {saved && !test && <Alert tone="info">{t('saved')}</Alert>}
      {configured && (
        <div className="flex flex-col gap-3">
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('testIntro')}</p>
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" onClick={startTest} loading={test?.status === 'pending'}>
              {t('test')}
            </Button>
            {!c.active && (
              <Button onClick={() => act('/activate')} disabled={test?.status !== 'succeeded'} title={t('activateHint')}>
                {t('activate')}
              </Button>
            )}
            {c.active && (
              <Button variant="secondary" onClick={() => act('/deactivate')}>
                {t('deactivate')}
              </Button>
            )}
          </div>
          {test?.status === 'pending' && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t('testing')}</p>}
          {test && test.status !== 'pending' && <TestResultView test={test} />}
        </div>
      )}
      <ErrorLine message={error} />
      <div>
        <Button variant="ghost" onClick={() => act('', 'DELETE')}>
          {t('remove')}
        </Button>
      </div>
    </div>
  );
}

function IdpSettings({ connection: c, onSaved }: { connection: Connection; onSaved: () => Promise<void> }) {
  const t = useTranslations('portal.sso');
  const { call } = usePortalCall();
  const describe = usePortalError();
  const [xml, setXml] = useState('');
  const [url, setUrl] = useState('');
  const [entityId, setEntityId] = useState('');
  const [ssoUrl, setSsoUrl] = useState('');
  const [cert, setCert] = useState('');
  const [issuer, setIssuer] = useState(c.oidc?.issuer ?? '');
  const [clientId, setClientId] = useState(c.oidc?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [nameIdFormat, setNameIdFormat] = useState<NameIdFormat>(c.saml?.name_id_format ?? 'unspecified');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body =
        c.provider === 'saml'
          ? {
              saml: {
                name_id_format: nameIdFormat,
                ...(xml.trim()
                  ? { idp_metadata_xml: xml.trim() }
                  : url.trim()
                    ? { idp_metadata_url: url.trim() }
                    : entityId.trim() || ssoUrl.trim() || cert.trim()
                      ? { idp_entity_id: entityId.trim(), idp_sso_url: ssoUrl.trim(), idp_certificates: [cert.trim()] }
                      : {}),
              },
            }
          : { oidc: { issuer: issuer.trim(), client_id: clientId.trim(), ...(secret ? { client_secret: secret } : {}) } };
      await call(`/sso_connections/${c.id}`, { method: 'PATCH', json: body });
      setXml('');
      await onSaved();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  }
  async function upload(file: File | undefined) {
    if (file) setXml(await file.text());
  }
  return (
    <form onSubmit={save} className="flex flex-col gap-3">
      <h3 className="text-sm font-semibold">{t('idpSettings')}</h3>
      {c.provider === 'saml' ? (
        <>
          {c.saml?.idp_entity_id && <p className="font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">{c.saml.idp_entity_id}</p>}
          <Field label={t('metadataXml')}>{(p) => <Textarea {...p} rows={4} value={xml} onChange={(e) => setXml(e.target.value)} />}</Field>
          <Field label={t('metadataFile')}>
            {(p) => (
              <input
                {...p}
                type="file"
                accept=".xml,application/xml,text/xml"
                className="text-sm"
                onChange={(e) => void upload(e.target.files?.[0])}
              />
            )}
          </Field>
          <Field label={t('metadataUrl2')}>{(p) => <Input {...p} type="url" value={url} onChange={(e) => setUrl(e.target.value)} />}</Field>
          <details>
            <summary className="cursor-pointer text-sm font-medium">{t('manual')}</summary>
            <div className="mt-3 flex flex-col gap-3">
              <Field label={t('idpEntityId')}>
                {(p) => <Input {...p} value={entityId} onChange={(e) => setEntityId(e.target.value)} />}
              </Field>
              <Field label={t('idpSsoUrl')}>
                {(p) => <Input {...p} type="url" value={ssoUrl} onChange={(e) => setSsoUrl(e.target.value)} />}
              </Field>
              <Field label={t('idpCertificate')}>
                {(p) => <Textarea {...p} rows={4} value={cert} onChange={(e) => setCert(e.target.value)} />}
              </Field>
            </div>
          </details>
          <Field label={t('nameIdFormat')} hint={t('nameIdFormatHint')}>
            {(p) => (
              <Select
                {...p}
                value={nameIdFormat}
                options={NAME_ID_FORMATS}
                optionLabel={(v) => t(`nameIdFormats.${v}`)}
                onChange={(e) => setNameIdFormat(e.target.value as NameIdFormat)}
              />
            )}
          </Field>
        </>
      ) : (
        <>
          <Field label={t('issuer')}>
            {(p) => <Input {...p} type="url" value={issuer} onChange={(e) => setIssuer(e.target.value)} required />}
          </Field>
          <Field label={t('clientId')}>
            {(p) => <Input {...p} value={clientId} onChange={(e) => setClientId(e.target.value)} required />}
          </Field>
          <Field label={t('clientSecret')}>
            {(p) => <Input {...p} type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />}
          </Field>
        </>
      )}
      <div>
        <Button type="submit" variant="secondary" loading={busy}>
          {t('save')}
        </Button>
      </div>
      <ErrorLine message={error} />
    </form>
  );
}

/** What the IdP sent and how it maps, or the exact reason the test failed. */
export function TestResultView({ test }: { test: ConnectionTest }) {
  const t = useTranslations('portal.sso');
  if (test.status === 'pending') return <p className="text-sm">{t('result.pending')}</p>;
  const r = test.result;
  const detail = r?.detail === 'unsigned' || r?.detail === 'certificate_mismatch' ? r.detail : null;
  const reasonKey = detail ?? test.reason ?? 'generic';
  const reasonText = t.has(`reasons.${reasonKey}` as 'reasons.generic')
    ? t(`reasons.${reasonKey}` as 'reasons.generic', { reason: test.reason ?? '' })
    : t('reasons.generic', { reason: test.reason ?? '' });
  return (
    <div className="flex flex-col gap-3" role="region" aria-label={t('result.title')}>
      <Alert
        tone={test.status === 'succeeded' ? 'success' : 'error'}
        title={test.status === 'succeeded' ? t('result.succeeded') : t('result.failed')}
      >
        {test.status === 'failed' && (
          <>
            <p>{reasonText}</p>
            {test.message && <p className="mt-1 text-xs break-words">{test.message}</p>}
            <p className="mt-1 font-mono text-xs" data-reason={test.reason ?? ''}>
              {test.reason}
            </p>
          </>
        )}
      </Alert>
      {r?.subject !== undefined && (
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-zinc-600 dark:text-zinc-400">{t('result.nameId')}</dt>
          <dd className="font-mono break-all">{r.subject}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t('result.email')}</dt>
          <dd className="break-all">{r.email ?? t('result.none')}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t('result.firstName')}</dt>
          <dd>{r.first_name ?? t('result.none')}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t('result.lastName')}</dt>
          <dd>{r.last_name ?? t('result.none')}</dd>
          <dt className="text-zinc-600 dark:text-zinc-400">{t('result.groups')}</dt>
          <dd>{r.groups?.length ? r.groups.join(', ') : t('result.none')}</dd>
        </dl>
      )}
      {r?.mapping && (
        <div className="text-sm">
          <p className="font-medium">{t('result.mapping')}</p>
          <ul className="mt-1 list-disc pl-5">
            {r.mapping.email_domain && (
              <li>
                {r.mapping.domain_allowed
                  ? t('result.domainOk', { domain: r.mapping.email_domain })
                  : t('result.domainNo', { domain: r.mapping.email_domain })}
              </li>
            )}
            {r.mapping.role && <li>{t('result.role', { role: r.mapping.role })}</li>}
          </ul>
        </div>
      )}
    </div>
  );
}
