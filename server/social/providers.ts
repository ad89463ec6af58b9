import { and, asc, count, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { externalAccounts, OAUTH2_KINDS, socialProviders, type SocialProviderKind } from '../db/schema';
import { newId } from '../db/ids';
import { uniqueViolation } from '../db/errors';
import type { AuditContext } from '../http/actor';
import { AppError, notFound, validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { REASONS } from './reasons';
import type { z } from 'zod';
import type { createProviderBody, updateProviderBody } from './schemas';
import { strategyOf } from '../auth/social-transfer';
import { generateSecret } from '../crypto/secrets';

/**
 * Social sign-in providers of an instance: presets (Google, Microsoft, GitHub, Apple, Facebook, LinkedIn, Discord, GitLab,
 * Slack) and any
 * OIDC issuer. The client secret is encrypted with ENCRYPTION_KEY and never leaves the
 * server; changes are audited with their actor (never with the secret).
 */
export type ProviderRow = typeof socialProviders.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'cipher'>;

const MAX_PROVIDERS_PER_INSTANCE = 20;

interface Preset {
  displayName: string;
  issuer: string | null;
  scopes: string[];
  endpoints: Record<string, string>;
}

const PRESETS: Record<Exclude<SocialProviderKind, 'oidc'>, Preset> = {
  google: { displayName: 'Google', issuer: 'https://accounts.google.com', scopes: ['openid', 'email', 'profile'], endpoints: {} },
  // Microsoft's issuer names the tenant (the multi-tenant `common` document names `{tenantid}`): give tenant_id or issuer.
  microsoft: { displayName: 'Microsoft', issuer: null, scopes: ['openid', 'email', 'profile'], endpoints: {} },
  github: {
    displayName: 'GitHub',
    issuer: null,
    scopes: ['read:user', 'user:email'],
    endpoints: {
      authorization_endpoint: 'https://github.com/login/oauth/authorize',
      token_endpoint: 'https://github.com/login/oauth/access_token',
      api_base_url: 'https://api.github.com',
    },
  },
  // Sign in with Apple: OpenID Connect whose answer is posted back (response_mode form_post, as Apple requires when
  // asking for the email); the client secret is the ES256 JWT the operator signs with their Apple key.
  apple: { displayName: 'Apple', issuer: 'https://appleid.apple.com', scopes: ['openid', 'email', 'name'], endpoints: {} },
  // Facebook Login and Discord are OAuth 2.0: the person is read from their API, like GitHub.
  facebook: {
    displayName: 'Facebook',
    issuer: null,
    scopes: ['email', 'public_profile'],
    endpoints: {
      authorization_endpoint: 'https://www.facebook.com/v21.0/dialog/oauth',
      token_endpoint: 'https://graph.facebook.com/v21.0/oauth/access_token',
      api_base_url: 'https://graph.facebook.com/v21.0',
    },
  },
  discord: {
    displayName: 'Discord',
    issuer: null,
    scopes: ['identify', 'email'],
    endpoints: {
      authorization_endpoint: 'https://discord.com/oauth2/authorize',
      token_endpoint: 'https://discord.com/api/oauth2/token',
      api_base_url: 'https://discord.com/api',
    },
  },
  // OpenID Connect providers: their issuer's discovery document names the rest.
  linkedin: { displayName: 'LinkedIn', issuer: 'https://www.linkedin.com/oauth', scopes: ['openid', 'email', 'profile'], endpoints: {} },
  gitlab: { displayName: 'GitLab', issuer: 'https://gitlab.com', scopes: ['openid', 'email', 'profile'], endpoints: {} },
  slack: { displayName: 'Slack', issuer: 'https://slack.com', scopes: ['openid', 'email', 'profile'], endpoints: {} },
  // Latchkey's own stand-in on test instances (mock.ts): no client, no issuer, nothing fetched.
  mock: { displayName: 'Mock provider', issuer: null, scopes: ['openid', 'email', 'profile'], endpoints: {} },
};

/** Where the provider sends the browser back: one callback per instance, on its fapi_url. */
export const callbackUrl = (instance: Pick<InstanceContext, 'fapiUrl'>) => `${instance.fapiUrl}/v1/oauth_callback`;

const providerView = (instance: Pick<InstanceContext, 'fapiUrl'>, r: ProviderRow) => ({
  object: 'social_provider' as const,
  id: r.id,
  name: r.name,
  strategy: strategyOf(r.name),
  kind: r.kind,
  display_name: r.displayName,
  client_id: r.clientId,
  client_secret_set: true,
  issuer: r.issuer,
  endpoints: r.endpoints,
  scopes: r.scopes,
  enabled: r.enabled,
  callback_url: callbackUrl(instance),
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/** The configuration as the audit log keeps it: no secret. */
const auditDetails = (r: ProviderRow) => ({
  name: r.name,
  kind: r.kind,
  client_id: r.clientId,
  issuer: r.issuer,
  endpoints: r.endpoints,
  scopes: r.scopes,
  enabled: r.enabled,
});

function issuerOf(kind: SocialProviderKind, issuer: string | undefined | null, tenantId: string | undefined): string | null {
  if (kind === 'mock') return null;
  if (issuer) return issuer.replace(/\/+$/, '');
  if (kind === 'microsoft' && tenantId) return `https://login.microsoftonline.com/${tenantId}/v2.0`;
  return kind === 'oidc' || OAUTH2_KINDS.includes(kind) ? null : PRESETS[kind].issuer;
}

function checkComplete(kind: SocialProviderKind, issuer: string | null, endpoints: Record<string, string>) {
  if (kind === 'mock') return;
  if (OAUTH2_KINDS.includes(kind)) {
    if (!endpoints.authorization_endpoint || !endpoints.token_endpoint || !endpoints.api_base_url) {
      throw validationError(
        'endpoints',
        'required',
        `${PRESETS[kind as 'github'].displayName} needs authorization_endpoint, token_endpoint and api_base_url.`,
      );
    }
    return;
  }
  if (!issuer)
    throw validationError(
      'issuer',
      'required',
      kind === 'microsoft' ? 'issuer or tenant_id is required for Microsoft.' : 'issuer is required.',
    );
}

export async function listProviders(deps: Pick<Deps, 'db'>, instance: Pick<InstanceContext, 'id' | 'fapiUrl'>) {
  const rows = await deps.db
    .select()
    .from(socialProviders)
    .where(eq(socialProviders.instanceId, instance.id))
    .orderBy(asc(socialProviders.id));
  return { object: 'list' as const, data: rows.map((r) => providerView(instance, r)), has_more: false };
}

async function loadProvider(deps: Pick<Deps, 'db'>, instanceId: string, id: string): Promise<ProviderRow> {
  const [row] = await deps.db
    .select()
    .from(socialProviders)
    .where(and(eq(socialProviders.id, id), eq(socialProviders.instanceId, instanceId)));
  if (!row) throw notFound('social provider');
  return row;
}

export async function getProvider(deps: Pick<Deps, 'db'>, instance: Pick<InstanceContext, 'id' | 'fapiUrl'>, id: string) {
  return providerView(instance, await loadProvider(deps, instance.id, id));
}

/** An enabled provider by its strategy name, or null. */
export async function findEnabledProvider(deps: Pick<Deps, 'db'>, instanceId: string, name: string): Promise<ProviderRow | null> {
  const [row] = await deps.db
    .select()
    .from(socialProviders)
    .where(and(eq(socialProviders.instanceId, instanceId), eq(socialProviders.name, name), eq(socialProviders.enabled, true)));
  return row ?? null;
}

/**
 * Drops the links to a provider's accounts: a provider deleted (its name may come back for
 * another issuer) or moved to another issuer. Users keep their accounts and link again by
 * verified email.
 */
async function forgetLinks(db: Pick<Deps, 'db'>['db'], instanceId: string, name: string) {
  await db.delete(externalAccounts).where(and(eq(externalAccounts.instanceId, instanceId), eq(externalAccounts.provider, name)));
}

const taken = () => validationError('name', 'taken', 'This instance already has a social provider of that name.');

/** The mock provider answers for anyone: never on a production instance. */
export function checkMockAllowed(instance: Pick<InstanceContext, 'environment'>) {
  if (instance.environment !== 'test') {
    throw new AppError('FORBIDDEN', {
      message: 'The mock provider is for test (development) instances only; add a real provider to a production instance.',
      meta: { reason: REASONS.mock_provider_test_only, param: 'kind' },
    });
  }
}

/** The client of a new provider: required of every real one; the mock provider has none (a random secret fills the column). */
function clientOf(input: z.output<typeof createProviderBody>) {
  if (input.kind === 'mock') return { clientId: input.client_id ?? 'mock', secret: input.client_secret ?? generateSecret('mock_') };
  if (!input.client_id) throw validationError('client_id', 'required', 'client_id is required.');
  if (!input.client_secret) throw validationError('client_secret', 'required', 'client_secret is required.');
  return { clientId: input.client_id, secret: input.client_secret };
}

export async function createProvider(
  deps: D,
  instance: Pick<InstanceContext, 'id' | 'fapiUrl' | 'environment'>,
  input: z.output<typeof createProviderBody>,
  auditCtx: AuditContext,
) {
  if (input.kind === 'mock') checkMockAllowed(instance);
  const client = clientOf(input);
  const preset = input.kind === 'oidc' ? null : PRESETS[input.kind];
  const name = input.name ?? (preset ? input.kind : undefined);
  if (!name) throw validationError('name', 'required', 'name is required for an OIDC provider.');
  const issuer = issuerOf(input.kind, input.issuer, input.tenant_id);
  const endpoints = { ...(preset?.endpoints ?? {}), ...(input.endpoints ?? {}) } as Record<string, string>;
  checkComplete(input.kind, issuer, endpoints);
  const scopes = input.scopes ?? preset?.scopes ?? ['openid', 'email', 'profile'];
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [{ n }] = (await tx.select({ n: count() }).from(socialProviders).where(eq(socialProviders.instanceId, instance.id))) as [
      { n: number },
    ];
    if (n >= MAX_PROVIDERS_PER_INSTANCE) {
      throw new AppError('CONFLICT', {
        message: `An instance has at most ${MAX_PROVIDERS_PER_INSTANCE} social providers.`,
        meta: { reason: REASONS.too_many_providers },
      });
    }
    const [row] = await tx
      .insert(socialProviders)
      .values({
        id: newId('socp'),
        instanceId: instance.id,
        name,
        kind: input.kind,
        displayName: input.display_name ?? preset?.displayName ?? name,
        clientId: client.clientId,
        clientSecretEncrypted: deps.cipher.encrypt(client.secret),
        issuer,
        endpoints,
        scopes,
        enabled: input.enabled ?? true,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .catch((err: unknown) => {
        throw uniqueViolation(err) ? taken() : err;
      });
    await audit(
      { db: tx, clock: deps.clock },
      { instanceId: instance.id, ...actorOf(auditCtx), action: 'social_provider.created', target: row!.id, details: auditDetails(row!) },
    );
    return providerView(instance, row!);
  });
}

const actorOf = (ctx: AuditContext) => ({ actor: ctx.actor, actorKind: ctx.actorKind, ip: ctx.ip, userAgent: ctx.userAgent });

export async function updateProvider(
  deps: D,
  instance: Pick<InstanceContext, 'id' | 'fapiUrl'>,
  id: string,
  input: z.output<typeof updateProviderBody>,
  auditCtx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const current = await loadProvider({ db: tx }, instance.id, id);
    const issuer =
      input.issuer !== undefined || input.tenant_id !== undefined ? issuerOf(current.kind, input.issuer, input.tenant_id) : current.issuer;
    const endpoints = input.endpoints ? ({ ...current.endpoints, ...input.endpoints } as Record<string, string>) : current.endpoints;
    checkComplete(current.kind, issuer, endpoints);
    const [row] = await tx
      .update(socialProviders)
      .set({
        ...(input.client_id !== undefined ? { clientId: input.client_id } : {}),
        ...(input.client_secret !== undefined ? { clientSecretEncrypted: deps.cipher.encrypt(input.client_secret) } : {}),
        ...(input.display_name !== undefined ? { displayName: input.display_name } : {}),
        ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        issuer,
        endpoints,
        updatedAt: deps.clock.now(),
      })
      .where(eq(socialProviders.id, current.id))
      .returning();
    // Another issuer (or GitHub host) has other subjects: the old links must not sign anyone in.
    const moved = row!.issuer !== current.issuer || row!.endpoints.api_base_url !== current.endpoints.api_base_url;
    if (moved) await forgetLinks(tx, instance.id, current.name);
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        ...actorOf(auditCtx),
        action: 'social_provider.updated',
        target: row!.id,
        details: { ...auditDetails(row!), client_secret_changed: input.client_secret !== undefined },
      },
    );
    return providerView(instance, row!);
  });
}

export async function deleteProvider(deps: D, instance: Pick<InstanceContext, 'id' | 'fapiUrl'>, id: string, auditCtx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    const current = await loadProvider({ db: tx }, instance.id, id);
    await tx.delete(socialProviders).where(eq(socialProviders.id, current.id));
    await forgetLinks(tx, instance.id, current.name);
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        ...actorOf(auditCtx),
        action: 'social_provider.deleted',
        target: current.id,
        details: auditDetails(current),
      },
    );
    return { object: 'social_provider' as const, id: current.id, deleted: true as const };
  });
}
