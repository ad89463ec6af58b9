import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { instances, setupTokens } from '../db/schema';
import { AppError } from '../http/errors';
import { newId } from '../db/ids';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import { createAccount, createInstance, instanceContext, type Instance, type InstanceContext } from './instances';

/**
 * The platform instance: a built-in instance whose users are the console's operators.
 * The console signs in through its ordinary FAPI (`/fapi/<platform_id>/v1/client/…`),
 * so operators get passwords, email codes and MFA like any end user. It belongs to its
 * own "Platform" account, which no operator is a member of, so it is never listed among
 * customer instances. Its web client cookie is `__console_client` at `Path=/`
 * (sessions/clients.ts), which the dashboard API reads.
 *
 * Nobody signs up to it on the FAPI (`sign_up_mode: restricted` with an empty
 * allowlist): the first operator comes from the one-time setup link, the next ones from
 * invitations.
 */
const PLATFORM_SETTINGS = { sign_up_mode: 'restricted', allowlist: [] } as const;

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

/** The platform instance; should two nodes' first starts race to create one, every node picks the oldest. */
export async function findPlatformInstance(deps: Pick<Deps, 'db'>): Promise<Instance | null> {
  const [row] = await deps.db.select().from(instances).where(eq(instances.kind, 'platform')).orderBy(asc(instances.id)).limit(1);
  return row ?? null;
}

/** The platform instance, created (with its account) when missing. */
export async function ensurePlatformInstance(deps: D): Promise<{ instance: Instance; created: boolean }> {
  const found = await findPlatformInstance(deps);
  if (found) return { instance: found, created: false };
  const account = await createAccount(deps, 'Platform');
  const instance = await createInstance(deps, {
    accountId: account.id,
    name: 'Console',
    environment: 'live',
    kind: 'platform',
    settings: { ...PLATFORM_SETTINGS },
  });
  return { instance, created: true };
}

/** The platform instance as hot paths see it (cached); 401 when the console is not set up. */
export async function platformContext(deps: Pick<Deps, 'db' | 'clock' | 'caches'>): Promise<InstanceContext> {
  const cache = deps.caches.get<string>('platform_instance_id', 60_000);
  const now = deps.clock.now();
  let id = cache.get('id', now);
  if (!id) {
    const found = await findPlatformInstance(deps);
    if (!found) throw new AppError('UNAUTHENTICATED', { message: 'The console is not set up yet.' });
    id = found.id;
    cache.set('id', id, now);
  }
  return instanceContext(deps, id);
}

const SETUP_TOKEN_PREFIX = 'setup_';
const SETUP_TOKEN_RE = /^setup_[A-Za-z0-9_-]{43}$/;

const setupUrl = (publicUrl: string, token: string) => `${publicUrl}/setup?token=${encodeURIComponent(token)}`;

/**
 * A new one-time setup link. Older unused links stop working: one link is valid at a
 * time, until it is used. The token is stored only as its SHA-256.
 */
export async function issueSetupLink(deps: D, actor: string): Promise<{ url: string; token: string }> {
  const token = generateSecret(SETUP_TOKEN_PREFIX);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx
      .update(setupTokens)
      .set({ revokedAt: now })
      .where(and(isNull(setupTokens.usedAt), isNull(setupTokens.revokedAt)));
    const id = newId('setup');
    await tx.insert(setupTokens).values({ id, digest: sha256Hex(token), createdAt: now });
    await audit({ db: tx, clock: deps.clock }, { instanceId: null, actor, action: 'console.setup_link_issued', target: id });
  });
  return { url: setupUrl(deps.config.PUBLIC_URL, token), token };
}

/**
 * Consumes a setup token inside the caller's transaction: one conditional UPDATE, so of
 * two racing uses exactly one wins. 403 FORBIDDEN (reason `setup_token_invalid`) for a
 * missing, unknown, used or replaced token.
 */
export async function consumeSetupToken(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<string> {
  const refused = new AppError('FORBIDDEN', {
    message: 'This setup link is invalid or was already used. Print a new one with `npm run cli -- setup-link`.',
    meta: { reason: 'setup_token_invalid' },
  });
  if (!SETUP_TOKEN_RE.test(token)) throw refused;
  const [row] = await deps.db
    .update(setupTokens)
    .set({ usedAt: deps.clock.now() })
    .where(and(eq(setupTokens.digest, sha256Hex(token)), isNull(setupTokens.usedAt), isNull(setupTokens.revokedAt)))
    .returning({ id: setupTokens.id });
  if (!row) throw refused;
  return row.id;
}
