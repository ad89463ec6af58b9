import { and, eq, ne, sql } from 'drizzle-orm';
import { domainOf } from '../organizations/sso-domains';
import type { Deps } from '../deps';
import { newId } from '../db/ids';
import { organizationDomains, ssoConnections } from '../db/schema';
import { emitEvent } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import { guardedRequest, outboundNetwork } from '../http/outbound';
import { TargetRefused } from '../infra/ssrf';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { instanceContext } from '../instances/instances';
import { loadOrganization } from '../organizations/organization-view';
import { assertRole, ensureBuiltIns } from '../organizations/roles';
import { targetPolicy } from '../http/outbound';
import { forgetSsoDomains } from '../organizations/sso-domains';
import { spUrls } from './saml';
import { assertReadableCertificate, certificateDetails, parseIdpMetadata } from './idp-metadata';
import { generateSpSigningKey } from './sp-signing';
import type { CreateConnectionInput, UpdateConnectionInput } from './schemas';

export type ConnectionRow = typeof ssoConnections.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'caches' | 'cacheInvalidation' | 'cipher' | 'config' | 'dns' | 'testTrustedCas'>;

export const DEFAULT_OIDC_SCOPES = 'openid email profile';
export const oidcRedirectUri = (fapiUrl: string, connectionId: string) => `${fapiUrl}/sso/oidc/${connectionId}/callback`;

/** The connection as every surface and event shows it: never the client secret. */
function connectionView(c: ConnectionRow, fapiUrl: string, now: number) {
  const sp = spUrls(fapiUrl, c.id);
  return {
    object: 'sso_connection' as const,
    id: c.id,
    organization_id: c.organizationId,
    name: c.name,
    provider: c.provider,
    domains: c.domains,
    active: c.active,
    attribute_mapping: c.attributeMapping,
    role_mapping: c.roleMapping,
    default_role: c.defaultRole,
    idp_enforces_mfa: c.idpEnforcesMfa,
    idp_preset: c.idpPreset,
    saml:
      c.provider === 'saml'
        ? {
            idp_entity_id: c.idpEntityId,
            idp_sso_url: c.idpSsoUrl,
            idp_sso_binding: c.idpSsoBinding,
            idp_certificates: c.idpCertificates,
            idp_certificate_details: certificateDetails(c.idpCertificates, now),
            name_id_format: c.nameIdFormat,
            idp_metadata_url: c.idpMetadataUrl,
            allow_idp_initiated: c.allowIdpInitiated,
            sign_authn_requests: c.signAuthnRequests,
            sp_signing_certificate: c.signAuthnRequests ? c.spSigningCertificate : null,
            sp_entity_id: sp.entityId,
            sp_acs_url: sp.acsUrl,
            sp_metadata_url: sp.metadataUrl,
          }
        : null,
    oidc:
      c.provider === 'oidc'
        ? {
            issuer: c.oidcIssuer,
            client_id: c.oidcClientId,
            client_secret_set: c.oidcClientSecretEncrypted !== null,
            scopes: c.oidcScopes ?? DEFAULT_OIDC_SCOPES,
            redirect_uri: oidcRedirectUri(fapiUrl, c.id),
          }
        : null,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

const METADATA_MAX_BYTES = 256 * 1024;

/** Fetches an IdP metadata document through the SSRF guard. */
async function fetchMetadata(deps: D, instanceId: string, url: string): Promise<string> {
  const instance = await instanceContext(deps, instanceId);
  try {
    const res = await guardedRequest({
      url,
      method: 'GET',
      headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' },
      body: '',
      timeoutMs: 10_000,
      maxResponseBytes: METADATA_MAX_BYTES,
      policy: targetPolicy(deps.config, instance.environment),
      ...outboundNetwork(deps),
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    return res.body;
  } catch (err) {
    const why = err instanceof TargetRefused ? err.message : `it could not be fetched (${(err as Error).message})`;
    throw validationError('saml.idp_metadata_url', 'metadata_unreachable', `The IdP metadata URL was refused: ${why}`);
  }
}

/**
 * SAML columns from the input: explicit fields, overridden by what a metadata document says.
 * Turning request signing on makes the connection's SP key the first time (`current`: the
 * stored row on update).
 */
async function samlColumns(
  deps: D,
  instanceId: string,
  input: NonNullable<CreateConnectionInput['saml']>,
  sp: { entityId: string },
  current?: ConnectionRow,
) {
  const out: Partial<ConnectionRow> = {};
  if (input.sign_authn_requests !== undefined) out.signAuthnRequests = input.sign_authn_requests;
  if (input.sign_authn_requests && !current?.spSigningKeyEncrypted) {
    const made = await generateSpSigningKey(sp.entityId, deps.clock.now());
    out.spSigningKeyEncrypted = deps.cipher.encrypt(made.privateKeyPem);
    out.spSigningCertificate = made.certificatePem;
  }
  if (input.idp_entity_id !== undefined) out.idpEntityId = input.idp_entity_id;
  if (input.idp_sso_url !== undefined) out.idpSsoUrl = input.idp_sso_url;
  if (input.idp_certificates !== undefined) {
    input.idp_certificates.forEach((c, n) => assertReadableCertificate(c, 'saml.idp_certificates', n));
    out.idpCertificates = input.idp_certificates;
  }
  if (input.idp_sso_binding !== undefined) out.idpSsoBinding = input.idp_sso_binding;
  if (input.name_id_format !== undefined) out.nameIdFormat = input.name_id_format;
  if (input.allow_idp_initiated !== undefined) out.allowIdpInitiated = input.allow_idp_initiated;
  if (input.idp_metadata_url !== undefined) out.idpMetadataUrl = input.idp_metadata_url;
  const xml =
    input.idp_metadata_xml ?? (input.idp_metadata_url ? await fetchMetadata(deps, instanceId, input.idp_metadata_url) : undefined);
  if (xml !== undefined) {
    const md = parseIdpMetadata(xml, input.idp_entity_id);
    Object.assign(out, { idpEntityId: md.entityId, idpSsoUrl: md.ssoUrl, idpSsoBinding: md.ssoBinding, idpCertificates: md.certificates });
  }
  return out;
}

/** A SAML connection can only be active with an entity id, an SSO URL and a certificate; an OIDC one with a client. */
function assertUsable(
  row: Pick<ConnectionRow, 'provider' | 'active' | 'idpEntityId' | 'idpSsoUrl' | 'idpCertificates' | 'oidcIssuer' | 'oidcClientId'>,
) {
  if (!row.active) return;
  if (row.provider === 'saml' && (!row.idpEntityId || !row.idpSsoUrl || row.idpCertificates.length === 0)) {
    throw validationError(
      'active',
      'invalid_value',
      'An active SAML connection needs the IdP entity id, SSO URL and signing certificate (or its metadata).',
    );
  }
  if (row.provider === 'oidc' && (!row.oidcIssuer || !row.oidcClientId)) {
    throw validationError('active', 'invalid_value', 'An active OIDC connection needs the issuer and client id.');
  }
}

/** Every domain must be a verified domain of the organization and belong to no other connection of the instance. */
async function assertDomains(deps: Pick<Deps, 'db'>, instanceId: string, organizationId: string, domains: string[], exceptId?: string) {
  const verified = await deps.db
    .select({ name: organizationDomains.name })
    .from(organizationDomains)
    .where(and(eq(organizationDomains.organizationId, organizationId), eq(organizationDomains.verificationStatus, 'verified')));
  const names = new Set(verified.map((d) => d.name));
  const missing = domains.find((d) => !names.has(d));
  if (missing) throw validationError('domains', 'domain_not_verified', `${missing} is not a verified domain of this organization.`);
  const others = await deps.db
    .select({ id: ssoConnections.id, domains: ssoConnections.domains })
    .from(ssoConnections)
    .where(and(eq(ssoConnections.instanceId, instanceId), exceptId ? ne(ssoConnections.id, exceptId) : undefined));
  const taken = domains.find((d) => others.some((o) => o.domains.includes(d)));
  if (taken) {
    throw new AppError('CONFLICT', {
      message: `${taken} already belongs to another SSO connection.`,
      meta: { reason: 'domain_taken', param: 'domains' },
    });
  }
}

async function assertRoles(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  defaultRole: string | null | undefined,
  mapping: Record<string, string> | undefined,
) {
  if (!defaultRole && !mapping) return;
  await ensureBuiltIns(deps, instanceId);
  if (defaultRole) await assertRole(deps.db, instanceId, defaultRole, 'default_role');
  for (const role of new Set(Object.values(mapping ?? {}))) await assertRole(deps.db, instanceId, role, 'role_mapping');
}

const dedupe = (domains: string[]) => [...new Set(domains)];

/** Creates a connection; ssoConnection.created. The client secret is encrypted and never shown. */
export async function createConnection(deps: D, instanceId: string, input: CreateConnectionInput) {
  const instance = await instanceContext(deps, instanceId);
  const org = await loadOrganization(deps.db, instanceId, input.organization_id).catch(() => {
    throw validationError('organization_id', 'not_found', 'No organization was found with that organization_id.');
  });
  const domains = dedupe(input.domains);
  await assertDomains(deps, instanceId, org.id, domains);
  await assertRoles(deps, instanceId, input.default_role, input.role_mapping);
  const id = newId('ssoc');
  const saml = input.provider === 'saml' ? await samlColumns(deps, instanceId, input.saml ?? {}, spUrls(instance.fapiUrl, id)) : {};
  const now = deps.clock.now();
  const row: ConnectionRow = {
    id,
    instanceId,
    organizationId: org.id,
    name: input.name,
    provider: input.provider,
    domains,
    active: input.active ?? false,
    attributeMapping: input.attribute_mapping ?? {},
    roleMapping: input.role_mapping ?? {},
    defaultRole: input.default_role ?? null,
    idpEnforcesMfa: input.idp_enforces_mfa ?? false,
    idpEntityId: null,
    idpSsoUrl: null,
    idpSsoBinding: 'redirect',
    nameIdFormat: 'unspecified',
    idpPreset: input.idp_preset ?? 'generic',
    idpCertificates: [],
    idpMetadataUrl: null,
    allowIdpInitiated: false,
    signAuthnRequests: false,
    spSigningKeyEncrypted: null,
    spSigningCertificate: null,
    oidcIssuer: input.oidc?.issuer ?? null,
    oidcClientId: input.oidc?.client_id ?? null,
    oidcClientSecretEncrypted: input.oidc?.client_secret ? deps.cipher.encrypt(input.oidc.client_secret) : null,
    oidcScopes: input.oidc?.scopes ?? null,
    ...saml,
    createdAt: now,
    updatedAt: now,
  };
  assertUsable(row);
  const [created] = await deps.db.insert(ssoConnections).values(row).returning();
  forgetSsoDomains(deps, instanceId);
  const view = connectionView(created!, instance.fapiUrl, deps.clock.now());
  await emitEvent(deps, instanceId, 'ssoConnection.created', view);
  return view;
}

export async function loadConnection(deps: Pick<Deps, 'db'>, instanceId: string, id: string, organizationId?: string, lock = false) {
  const q = deps.db
    .select()
    .from(ssoConnections)
    .where(
      and(
        eq(ssoConnections.id, id),
        eq(ssoConnections.instanceId, instanceId),
        organizationId ? eq(ssoConnections.organizationId, organizationId) : undefined,
      ),
    );
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw notFound('SSO connection');
  return row;
}

export async function getConnection(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, instanceId: string, id: string, organizationId?: string) {
  const instance = await instanceContext(deps, instanceId);
  return connectionView(await loadConnection(deps, instanceId, id, organizationId), instance.fapiUrl, deps.clock.now());
}

/** Connections of the instance (or of one organization), newest first (cursor envelope). */
export async function listConnections(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  q: { organization_id?: string; limit: number; starting_after?: string },
) {
  const instance = await instanceContext(deps, instanceId);
  const orgId = q.organization_id ? (await loadOrganization(deps.db, instanceId, q.organization_id)).id : undefined;
  const where = [eq(ssoConnections.instanceId, instanceId), orgId ? eq(ssoConnections.organizationId, orgId) : undefined];
  return cursorList(q, newestFirst(ssoConnections.id), tableRows(deps.db, ssoConnections, ...where), (r) =>
    connectionView(r, instance.fapiUrl, deps.clock.now()),
  );
}

/** Updates a connection; ssoConnection.updated. A new client secret replaces the old one. */
export async function updateConnection(deps: D, instanceId: string, id: string, input: UpdateConnectionInput, organizationId?: string) {
  const instance = await instanceContext(deps, instanceId);
  const current = await loadConnection(deps, instanceId, id, organizationId);
  if (current.provider === 'saml' && input.oidc) throw validationError('oidc', 'invalid_value', 'This is a SAML connection.');
  if (current.provider === 'oidc' && input.saml) throw validationError('saml', 'invalid_value', 'This is an OIDC connection.');
  const domains = input.domains ? dedupe(input.domains) : undefined;
  if (domains) await assertDomains(deps, instanceId, current.organizationId, domains, current.id);
  await assertRoles(deps, instanceId, input.default_role, input.role_mapping);
  const saml = input.saml ? await samlColumns(deps, instanceId, input.saml, spUrls(instance.fapiUrl, current.id), current) : {};
  const changes: Partial<ConnectionRow> = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(domains ? { domains } : {}),
    ...(input.active !== undefined ? { active: input.active } : {}),
    ...(input.attribute_mapping ? { attributeMapping: input.attribute_mapping } : {}),
    ...(input.role_mapping ? { roleMapping: input.role_mapping } : {}),
    ...(input.default_role !== undefined ? { defaultRole: input.default_role } : {}),
    ...(input.idp_enforces_mfa !== undefined ? { idpEnforcesMfa: input.idp_enforces_mfa } : {}),
    ...(input.idp_preset !== undefined ? { idpPreset: input.idp_preset } : {}),
    ...saml,
    ...(input.oidc?.issuer !== undefined ? { oidcIssuer: input.oidc.issuer } : {}),
    ...(input.oidc?.client_id !== undefined ? { oidcClientId: input.oidc.client_id } : {}),
    ...(input.oidc?.client_secret !== undefined ? { oidcClientSecretEncrypted: deps.cipher.encrypt(input.oidc.client_secret) } : {}),
    ...(input.oidc?.scopes !== undefined ? { oidcScopes: input.oidc.scopes } : {}),
  };
  assertUsable({ ...current, ...changes });
  const [row] = await deps.db
    .update(ssoConnections)
    .set({ ...changes, updatedAt: deps.clock.now() })
    .where(eq(ssoConnections.id, current.id))
    .returning();
  forgetSsoDomains(deps, instanceId);
  const view = connectionView(row!, instance.fapiUrl, deps.clock.now());
  await emitEvent(deps, instanceId, 'ssoConnection.updated', view);
  return view;
}

/** Deletes a connection and the SSO identities linked through it (users stay); ssoConnection.deleted. */
export async function deleteConnection(
  deps: Pick<Deps, 'db' | 'clock' | 'caches' | 'cacheInvalidation'>,
  instanceId: string,
  id: string,
  organizationId?: string,
) {
  const instance = await instanceContext(deps, instanceId);
  const current = await loadConnection(deps, instanceId, id, organizationId);
  await deps.db.delete(ssoConnections).where(eq(ssoConnections.id, current.id));
  forgetSsoDomains(deps, instanceId);
  const view = { ...connectionView(current, instance.fapiUrl, deps.clock.now()), deleted: true as const };
  await emitEvent(deps, instanceId, 'ssoConnection.deleted', view);
  return view;
}

/** The active connection of an email address's domain, or null. */
export async function activeConnectionForEmail(deps: Pick<Deps, 'db'>, instanceId: string, email: string): Promise<ConnectionRow | null> {
  const domain = domainOf(email);
  if (!domain) return null;
  const [row] = await deps.db
    .select()
    .from(ssoConnections)
    .where(
      and(
        eq(ssoConnections.instanceId, instanceId),
        eq(ssoConnections.active, true),
        sql`${ssoConnections.domains} @> ${JSON.stringify([domain])}::jsonb`,
      ),
    )
    .limit(1);
  return row ?? null;
}
