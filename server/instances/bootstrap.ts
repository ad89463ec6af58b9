import { systemContext } from '../http/actor';
import { eq, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { accountMemberships, instances } from '../db/schema';
import { createSecretKey } from '../keys/secret-keys';
import { createInstance, defaultAccount } from './instances';
import { ensurePlatformInstance, issueSetupLink } from './platform';

/**
 * On an empty store, creates a "Development" test instance with a full-scope key and
 * returns what to print once. Returns null when instances already exist.
 */
export async function bootstrapEmptyStore(deps: Deps) {
  const [{ count } = { count: 0 }] = await deps.db
    .select({ count: sql<number>`count(*)::int` })
    .from(instances)
    .where(eq(instances.kind, 'customer'));
  if (Number(count) > 0) return null;
  const account = await defaultAccount(deps);
  const instance = await createInstance(deps, { accountId: account.id, name: 'Development', environment: 'test' });
  const key = await createSecretKey(deps, { instanceId: instance.id, scopes: '*', name: 'Development' }, systemContext('system'));
  return { instance, secret: key.secret };
}

/**
 * Makes sure the platform instance exists; while no operator has claimed the console,
 * issues a fresh one-time setup link (older unused ones stop working) and returns it.
 */
export async function bootstrapConsole(deps: Pick<Deps, 'db' | 'clock' | 'config'>): Promise<string | null> {
  await ensurePlatformInstance(deps);
  const [claimed] = await deps.db.select({ id: accountMemberships.id }).from(accountMemberships).limit(1);
  if (claimed) return null;
  return (await issueSetupLink(deps, 'system')).url;
}

export function setupBanner(url: string) {
  return [
    '',
    '  Claim the console: open this one-time setup link to create the first operator.',
    '',
    `  ${url}`,
    '',
    '  It works once. Lost it? Restart, or run: npm run cli -- setup-link',
    '',
  ].join('\n');
}

export function firstStartBanner(b: NonNullable<Awaited<ReturnType<typeof bootstrapEmptyStore>>>, consoleUrl: string) {
  return [
    '',
    '  Latchkey is set up with a "Development" test instance.',
    '',
    `  Instance:         ${b.instance.id}`,
    `  Publishable key:  ${b.instance.publishableKey}`,
    `  FAPI URL:         ${b.instance.fapiUrl}`,
    `  Secret key:       ${b.secret}`,
    '                    (shown once: store it now; only its SHA-256 digest is kept)',
    `  Console:          ${consoleUrl}`,
    '',
  ].join('\n');
}
