import { KeyObject, sign as signRsa } from 'node:crypto';
import type { AuditContext } from '../http/actor';
import { and, eq, inArray, lt, or, gt } from 'drizzle-orm';
import { exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type CryptoKey, type JWK } from 'jose';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { signingKeys } from '../db/schema';
import { newId } from '../db/ids';
import { signingKeysLockSql } from './statements';

export const ALG = 'RS256';
/**
 * How long a retired key stays published: the longest lifetime of anything it may have
 * signed (session JWTs and JWT-template tokens up to an hour, OIDC tokens up to an hour) plus clock skew.
 */
export const RETIRED_KEY_RETENTION_MS = 65 * 60 * 1000;
const CACHE_TTL_MS = 5_000;
const SIGNER_CACHE = 'signer';
const JWKS_CACHE = 'jwks';

type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches'>;
export interface Signer {
  kid: string;
  key: CryptoKey;
}

/** CryptoKey → KeyObject, once per imported key (the signer and public-key caches keep the CryptoKey). */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();
export const keyObjectOf = (key: CryptoKey): KeyObject => {
  let k = keyObjects.get(key);
  if (!k) keyObjects.set(key, (k = KeyObject.from(key)));
  return k;
};

const base64urlJson = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A compact RS256 JWS of `header` and `payload` (JSON, keys in the order given): node:crypto's
 * one-shot sign, no WebCrypto job per token (issuing tokens is a hot path; the job's handoff to
 * the thread pool costs more than it saves on a core the event loop shares). The same bytes as
 * jose's SignJWT for the same header and payload.
 */
export function signRs256Jws(
  key: CryptoKey,
  header: { alg: typeof ALG; kid: string; typ: string },
  payload: Record<string, unknown>,
): string {
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  return `${signingInput}.${signRsa('sha256', Buffer.from(signingInput), keyObjectOf(key)).toString('base64url')}`;
}

async function generate(deps: D, instanceId: string, state: 'next' | 'current') {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  const id = newId('kid');
  const jwk = await exportJWK(publicKey);
  const now = deps.clock.now();
  return {
    id,
    instanceId,
    state,
    publicJwk: { kty: jwk.kty!, n: jwk.n!, e: jwk.e!, kid: id, alg: ALG, use: 'sig' },
    privateKey: deps.cipher.encrypt(await exportPKCS8(privateKey)),
    createdAt: now,
    activatedAt: state === 'current' ? now : null,
  };
}

/** Serialises key changes of one instance across nodes. */
const lockInstance = (db: D['db'], instanceId: string) => db.execute(signingKeysLockSql(instanceId));

/** Makes sure the instance has a current and a next key. */
async function ensureSigningKeys(deps: D, instanceId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await lockInstance(tx, instanceId);
    const rows = await tx
      .select({ state: signingKeys.state })
      .from(signingKeys)
      .where(and(eq(signingKeys.instanceId, instanceId), inArray(signingKeys.state, ['current', 'next'])));
    const d = { ...deps, db: tx };
    if (!rows.some((r) => r.state === 'current')) await tx.insert(signingKeys).values(await generate(d, instanceId, 'current'));
    if (!rows.some((r) => r.state === 'next')) await tx.insert(signingKeys).values(await generate(d, instanceId, 'next'));
  });
}

/**
 * Rotation: the published next key starts signing, the current one retires (still
 * published until its tokens have expired), and a new next key is published.
 */
export async function rotateSigningKeys(deps: D & Pick<Deps, 'cacheInvalidation'>, instanceId: string, auditCtx: AuditContext) {
  await ensureSigningKeys(deps, instanceId);
  const result = await deps.db.transaction(async (tx) => {
    await lockInstance(tx, instanceId);
    const now = deps.clock.now();
    const [retired] = await tx
      .update(signingKeys)
      .set({ state: 'retired', retiredAt: now, removeAfter: now + RETIRED_KEY_RETENTION_MS })
      .where(and(eq(signingKeys.instanceId, instanceId), eq(signingKeys.state, 'current')))
      .returning({ id: signingKeys.id });
    const [promoted] = await tx
      .update(signingKeys)
      .set({ state: 'current', activatedAt: now })
      .where(and(eq(signingKeys.instanceId, instanceId), eq(signingKeys.state, 'next')))
      .returning({ id: signingKeys.id });
    const next = await generate({ ...deps, db: tx }, instanceId, 'next');
    await tx.insert(signingKeys).values(next);
    await tx
      .delete(signingKeys)
      .where(and(eq(signingKeys.instanceId, instanceId), eq(signingKeys.state, 'retired'), lt(signingKeys.removeAfter, now)));
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        ...auditCtx,
        action: 'signing_key.rotated',
        target: promoted!.id,
        details: { retired: retired?.id ?? null, next: next.id },
      },
    );
    return { current: promoted!.id, next: next.id, retired: retired?.id ?? null };
  });
  // Every node signs with the new key and publishes it at once (not after its cache's TTL).
  deps.cacheInvalidation.invalidate(SIGNER_CACHE, instanceId);
  deps.cacheInvalidation.invalidate(JWKS_CACHE, instanceId);
  return result;
}

/** The instance's published public keys: next, current, and retired ones not yet removed. */
export async function publishedKeys(deps: D, instanceId: string): Promise<JWK[]> {
  const cache = deps.caches.get<JWK[]>(JWKS_CACHE, CACHE_TTL_MS);
  const now = deps.clock.now();
  const hit = cache.get(instanceId, now);
  if (hit) return hit;
  let rows = await selectPublished(deps, instanceId, now);
  if (!rows.some((r) => r.state === 'current')) {
    await ensureSigningKeys(deps, instanceId);
    rows = await selectPublished(deps, instanceId, now);
  }
  const order = { current: 0, next: 1, retired: 2 } as const;
  const keys = rows.sort((a, b) => order[a.state] - order[b.state]).map((r) => r.publicJwk as JWK);
  cache.set(instanceId, keys, now);
  return keys;
}

function selectPublished(deps: D, instanceId: string, now: number) {
  return deps.db
    .select({ state: signingKeys.state, publicJwk: signingKeys.publicJwk })
    .from(signingKeys)
    .where(
      and(eq(signingKeys.instanceId, instanceId), or(inArray(signingKeys.state, ['current', 'next']), gt(signingKeys.removeAfter, now))),
    );
}

export async function publicKeyFor(deps: D, instanceId: string, kid: string): Promise<CryptoKey | null> {
  const jwk = (await publishedKeys(deps, instanceId)).find((k) => k.kid === kid);
  if (!jwk) return null;
  const cache = deps.caches.get<CryptoKey>('public-key', 60 * 60 * 1000);
  const now = deps.clock.now();
  let key = cache.get(kid, now);
  if (!key) cache.set(kid, (key = (await importJWK(jwk, ALG)) as CryptoKey), now);
  return key;
}

/** Loads in flight, per runtime and instance: a burst at cache expiry decrypts the key once. */
const signerLoads = new WeakMap<object, Map<string, Promise<Signer>>>();

/** The key that signs now, decrypted once and cached for a few seconds. */
export async function currentSigner(deps: D, instanceId: string): Promise<Signer> {
  const cache = deps.caches.get<Signer>(SIGNER_CACHE, CACHE_TTL_MS);
  const hit = cache.get(instanceId, deps.clock.now());
  if (hit) return hit;
  let loads = signerLoads.get(deps.caches);
  if (!loads) signerLoads.set(deps.caches, (loads = new Map()));
  let load = loads.get(instanceId);
  if (!load) {
    load = loadSigner(deps, instanceId).finally(() => loads.delete(instanceId));
    loads.set(instanceId, load);
  }
  return load;
}

async function loadSigner(deps: D, instanceId: string): Promise<Signer> {
  const now = deps.clock.now();
  let [row] = await selectCurrent(deps, instanceId);
  if (!row) {
    await ensureSigningKeys(deps, instanceId);
    [row] = await selectCurrent(deps, instanceId);
  }
  const signer = { kid: row!.id, key: await importPKCS8(deps.cipher.decrypt(row!.privateKey), ALG) };
  deps.caches.get<Signer>(SIGNER_CACHE, CACHE_TTL_MS).set(instanceId, signer, now);
  return signer;
}

const selectCurrent = (deps: D, instanceId: string) =>
  deps.db
    .select({ id: signingKeys.id, privateKey: signingKeys.privateKey })
    .from(signingKeys)
    .where(and(eq(signingKeys.instanceId, instanceId), eq(signingKeys.state, 'current')));
