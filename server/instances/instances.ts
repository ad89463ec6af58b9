import type { ParentLock } from '../db/row-locks';
import { and, asc, eq, isNull, notExists, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { accounts, instances, scimTokens, secretKeys } from '../db/schema';
import { audit } from '../audit/audit';
import { notFound, validationError } from '../http/errors';
import { SECRET_KEY_CACHE } from '../keys/secret-keys';
import { newId } from '../db/ids';
import type { ActorKind } from '../http/actor';
import { instanceSettings, instanceSettingsSchema, type InstanceSettings, type SettingsPatch } from './settings';
import { asDomainConflict, claimCustomDomain, forgetHosts, pathFapiUrl } from './custom-domain';

export type Environment = 'test' | 'live';
export type InstanceKind = 'customer' | 'platform';
export type Instance = typeof instances.$inferSelect;

/** `pk_<env>_` + base64url(`<fapi host and path>$`): the FAPI address travels in the key. */
export function publishableKeyFor(env: Environment, fapiUrl: string): string {
  const hostAndPath = fapiUrl.replace(/^https?:\/\//, '');
  return `pk_${env}_${Buffer.from(`${hostAndPath}$`).toString('base64url')}`;
}

/** The FAPI host and path encoded in a publishable key, or null when it is not one. */
export function fapiAddressOf(publishableKey: string): string | null {
  const m = /^pk_(test|live)_([A-Za-z0-9_-]+)$/.exec(publishableKey);
  if (!m) return null;
  const decoded = Buffer.from(m[2]!, 'base64url').toString('utf8');
  return decoded.endsWith('$') && decoded.length > 1 ? decoded.slice(0, -1) : null;
}

export async function createAccount(deps: Pick<Deps, 'db' | 'clock'>, name: string) {
  const [row] = await deps.db
    .insert(accounts)
    .values({ id: newId('acct'), name, createdAt: deps.clock.now() })
    .returning();
  return row!;
}

export async function renameAccount(deps: Pick<Deps, 'db'>, id: string, name: string) {
  const [row] = await deps.db.update(accounts).set({ name }).where(eq(accounts.id, id)).returning();
  if (!row) throw notFound('account');
  return row;
}

/** The account CLI-created instances go to: the oldest (never the platform instance's), made on first use. */
export async function defaultAccount(deps: Pick<Deps, 'db' | 'clock'>) {
  const platformOwned = deps.db
    .select({ id: instances.id })
    .from(instances)
    .where(and(eq(instances.accountId, accounts.id), eq(instances.kind, 'platform')));
  const [first] = await deps.db.select().from(accounts).where(notExists(platformOwned)).orderBy(asc(accounts.id)).limit(1);
  return first ?? createAccount(deps, 'Default');
}

export async function createInstance(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  input: { accountId: string; name: string; environment: Environment; kind?: InstanceKind; settings?: Record<string, unknown> },
): Promise<Instance> {
  const id = newId('ins');
  const fapiUrl = pathFapiUrl(deps.config, id);
  const [row] = await deps.db
    .insert(instances)
    .values({
      id,
      accountId: input.accountId,
      name: input.name,
      environment: input.environment,
      fapiUrl,
      publishableKey: publishableKeyFor(input.environment, fapiUrl),
      kind: input.kind ?? 'customer',
      settings: input.settings ?? {},
      createdAt: deps.clock.now(),
    })
    .returning();
  return row!;
}

/** A live instance (a deleted one is 404 NOT_FOUND, as an unknown one). */
export async function getInstance(deps: Pick<Deps, 'db'>, id: string, lock?: ParentLock): Promise<Instance> {
  const q = deps.db
    .select()
    .from(instances)
    .where(and(eq(instances.id, id), isNull(instances.deletedAt)));
  const [row] = lock ? await q.for(lock) : await q;
  if (!row) throw notFound('instance');
  return row;
}

export async function renameInstance(deps: Pick<Deps, 'db' | 'caches'>, id: string, name: string): Promise<Instance> {
  const [row] = await deps.db
    .update(instances)
    .set({ name })
    .where(and(eq(instances.id, id), isNull(instances.deletedAt)))
    .returning();
  if (!row) throw notFound('instance');
  return row;
}

/**
 * Deletes a customer instance as everyone sees it: every surface answers 404 for it, its
 * secret keys and SCIM tokens are revoked and its custom domain is freed, in the caller's
 * transaction. Its rows stay, with the audit trail. Other nodes stop serving it within
 * their caches' few seconds when an invalidation message is lost.
 */
export async function deleteInstance(deps: Pick<Deps, 'db' | 'clock' | 'caches' | 'cacheInvalidation'>, id: string): Promise<Instance> {
  const now = deps.clock.now();
  const live = and(eq(instances.id, id), isNull(instances.deletedAt), eq(instances.kind, 'customer'));
  // FOR UPDATE (the custom domain is a unique column), before anything else in the transaction (server/db/row-locks.ts).
  const [current] = await deps.db.select({ customDomain: instances.customDomain }).from(instances).where(live).for('update');
  if (!current) throw notFound('instance');
  const [row] = await deps.db.update(instances).set({ deletedAt: now, customDomain: null }).where(live).returning();
  const keys = await deps.db
    .update(secretKeys)
    .set({ revokedAt: sql`coalesce(${secretKeys.revokedAt}, ${now})` })
    .where(eq(secretKeys.instanceId, id))
    .returning({ digest: secretKeys.digest });
  await deps.db
    .update(scimTokens)
    .set({ revokedAt: now })
    .where(and(eq(scimTokens.instanceId, id), isNull(scimTokens.revokedAt)));
  for (const key of keys) deps.cacheInvalidation.invalidate(SECRET_KEY_CACHE, key.digest);
  deps.cacheInvalidation.invalidate(INSTANCE_CACHE, id);
  forgetHosts(deps, current.customDomain);
  return row!;
}

export const instanceView = (i: Instance) => ({
  instance_id: i.id,
  name: i.name,
  environment: i.environment,
  publishable_key: i.publishableKey,
  fapi_url: i.fapiUrl,
  custom_domain: i.customDomain,
  created_at: i.createdAt,
});

export interface InstanceContext {
  id: string;
  /** `platform`: the console's own instance (its client cookie differs, see sessions/clients.ts); absent means customer. */
  kind?: InstanceKind;
  environment: Environment;
  fapiUrl: string;
  publishableKey: string;
  /** Set when the fapi_url is `https://<custom_domain>` (server/instances/custom-domain.ts). */
  customDomain?: string | null;
  settings: InstanceSettings;
}

const INSTANCE_CACHE = 'instance';
const INSTANCE_CACHE_TTL_MS = 5_000;

/** The instance as hot paths need it (issuer, settings), cached for a few seconds. */
export async function instanceContext(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'> & Partial<Pick<Deps, 'logger'>>,
  id: string,
): Promise<InstanceContext> {
  const cache = deps.caches.get<InstanceContext>(INSTANCE_CACHE, INSTANCE_CACHE_TTL_MS);
  const now = deps.clock.now();
  const hit = cache.get(id, now);
  if (hit) return hit;
  const row = await getInstance(deps, id);
  const ctx: InstanceContext = {
    id: row.id,
    kind: row.kind,
    environment: row.environment,
    fapiUrl: row.fapiUrl,
    publishableKey: row.publishableKey,
    customDomain: row.customDomain,
    settings: instanceSettings(row.settings, (invalid) =>
      deps.logger?.warn(
        { instance_id: row.id, invalid_settings: invalid },
        'Stored instance settings failed validation: those fields use their defaults, the others are kept',
      ),
    ),
  };
  cache.set(id, ctx, now);
  return ctx;
}

/** The settings as the dashboard shows them: the stored settings with defaults, and the instance's custom domain. */
export const settingsView = (row: Instance) => ({ ...instanceSettings(row.settings), custom_domain: row.customDomain });

/**
 * Applies a settings change: the stored settings merged with the patch must still pass
 * the settings schema (e.g. an inactivity timeout not above the lifetime is not
 * required, but each value's bounds are). `custom_domain` moves the fapi_url and the
 * publishable key with it (custom-domain.ts), in the same transaction. Audited; the
 * cached instance is forgotten on this node (others see the change within the cache's
 * few seconds).
 */
export async function updateInstanceSettings(
  deps: Pick<Deps, 'db' | 'clock' | 'caches' | 'config'>,
  instanceId: string,
  /**
   * The change; or a function of the current settings, read under the row lock, answering the
   * change (null: nothing to change, nothing written) — for a change computed from what is
   * stored, such as adding to a list, that two concurrent callers must not overwrite.
   */
  patch:
    | SettingsPatch
    | Partial<Pick<InstanceSettings, 'attack_protection' | 'risk_based_mfa'>>
    | ((
        current: InstanceSettings,
      ) => (Omit<SettingsPatch, 'custom_domain'> & Partial<Pick<InstanceSettings, 'attack_protection' | 'risk_based_mfa'>>) | null),
  auditCtx: { actor: string; actorKind?: ActorKind; ip?: string | null; userAgent?: string | null },
  /** The audit action; protection settings have their own. */
  action = 'instance.settings_updated',
): Promise<ReturnType<typeof settingsView>> {
  const { custom_domain: domain } = typeof patch === 'function' ? {} : (patch as SettingsPatch);
  let changes: Record<string, unknown> = {};
  let previousDomain: string | null = null;
  const row = await deps.db
    .transaction(async (tx) => {
      // Settings are read, merged and written back under the row lock, so concurrent patches keep
      // each other's changes; a custom domain (a unique column) takes FOR UPDATE, first (server/db/row-locks.ts).
      const current = await getInstance({ db: tx }, instanceId, domain !== undefined ? 'update' : 'no key update');
      previousDomain = current.customDomain;
      const resolved = typeof patch === 'function' ? patch(instanceSettings(current.settings)) : patch;
      if (resolved === null) return current;
      const { custom_domain: _domain, ...settingsPatch } = resolved as SettingsPatch;
      changes = Object.fromEntries(Object.entries(settingsPatch).filter(([, v]) => v !== undefined));
      const next = { ...current.settings, ...changes };
      if (settingsPatch.branding) next.branding = { ...instanceSettings(current.settings).branding, ...settingsPatch.branding };
      const parsed = instanceSettingsSchema.safeParse(next);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw validationError(String(issue.path[0] ?? 'settings'), 'invalid', issue.message);
      }
      const columns: Partial<Instance> = { settings: next };
      if (domain !== undefined && domain !== current.customDomain) {
        const { customDomain, fapiUrl } = await claimCustomDomain({ db: tx, config: deps.config }, current, domain);
        Object.assign(columns, { customDomain, fapiUrl, publishableKey: publishableKeyFor(current.environment, fapiUrl) });
        changes.custom_domain = { from: current.customDomain, to: customDomain };
      }
      const [updated] = await tx.update(instances).set(columns).where(eq(instances.id, instanceId)).returning();
      await audit(
        { db: tx, clock: deps.clock },
        {
          instanceId,
          actor: auditCtx.actor,
          actorKind: auditCtx.actorKind,
          action,
          target: instanceId,
          ip: auditCtx.ip,
          userAgent: auditCtx.userAgent,
          details: { changes },
        },
      );
      return updated!;
    })
    .catch((err: unknown) => {
      throw asDomainConflict(err, domain ?? null);
    });
  deps.caches.get(INSTANCE_CACHE, INSTANCE_CACHE_TTL_MS).delete(instanceId);
  forgetHosts(deps, previousDomain, row.customDomain);
  return settingsView(row);
}
