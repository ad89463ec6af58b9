import { sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { instances } from '../db/schema';
import { createSecretKey } from '../keys/secret-keys';
import { createInstance, defaultAccount } from './instances';

/**
 * On an empty store, creates a "Development" test instance with a full-scope key and
 * returns what to print once. Returns null when instances already exist.
 */
export async function bootstrapEmptyStore(deps: Deps) {
  const [{ count } = { count: 0 }] = await deps.db.select({ count: sql<number>`count(*)::int` }).from(instances);
  if (Number(count) > 0) return null;
  const account = await defaultAccount(deps);
  const instance = await createInstance(deps, { accountId: account.id, name: 'Development', environment: 'test' });
  const key = await createSecretKey(deps, { instanceId: instance.id, scopes: '*', name: 'Development', actor: 'system' });
  return { instance, secret: key.secret };
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
