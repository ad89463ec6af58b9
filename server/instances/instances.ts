import { asc, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { accounts, instances } from '../db/schema';
import { notFound } from '../http/errors';
import { newId } from '../http/ids';
import { instanceSettings, type InstanceSettings } from './settings';

export type Environment = 'test' | 'live';
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

/** The account CLI-created instances go to: the oldest, made on first use. */
export async function defaultAccount(deps: Pick<Deps, 'db' | 'clock'>) {
  const [first] = await deps.db.select().from(accounts).orderBy(asc(accounts.id)).limit(1);
  return first ?? createAccount(deps, 'Default');
}

export async function createInstance(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  input: { accountId: string; name: string; environment: Environment },
): Promise<Instance> {
  const id = newId('ins');
  const fapiUrl = `${deps.config.PUBLIC_URL}/fapi/${id}`;
  const [row] = await deps.db
    .insert(instances)
    .values({
      id,
      accountId: input.accountId,
      name: input.name,
      environment: input.environment,
      fapiUrl,
      publishableKey: publishableKeyFor(input.environment, fapiUrl),
      createdAt: deps.clock.now(),
    })
    .returning();
  return row!;
}

export async function getInstance(deps: Pick<Deps, 'db'>, id: string): Promise<Instance> {
  const [row] = await deps.db.select().from(instances).where(eq(instances.id, id));
  if (!row) throw notFound('instance');
  return row;
}

export const instanceView = (i: Instance) => ({
  instance_id: i.id,
  name: i.name,
  environment: i.environment,
  publishable_key: i.publishableKey,
  fapi_url: i.fapiUrl,
  created_at: i.createdAt,
});

export interface InstanceContext {
  id: string;
  environment: Environment;
  fapiUrl: string;
  publishableKey: string;
  settings: InstanceSettings;
}

/** The instance as hot paths need it (issuer, settings), cached for a few seconds. */
export async function instanceContext(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, id: string): Promise<InstanceContext> {
  const cache = deps.caches.get<InstanceContext>('instance', 5_000);
  const now = deps.clock.now();
  const hit = cache.get(id, now);
  if (hit) return hit;
  const row = await getInstance(deps, id);
  const ctx: InstanceContext = {
    id: row.id,
    environment: row.environment,
    fapiUrl: row.fapiUrl,
    publishableKey: row.publishableKey,
    settings: instanceSettings(row.settings),
  };
  cache.set(id, ctx, now);
  return ctx;
}
