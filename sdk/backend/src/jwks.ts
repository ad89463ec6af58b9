import { JwksUnavailableError, TokenUnknownKeyError } from './errors.js';
import { withDefaults } from './options.js';

export interface Jwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  n?: string;
  e?: string;
}

/**
 * An optional cache shared between processes or isolates (Redis, KV, …): it holds the key
 * set's JSON text. Failures of the hook are ignored: the in-memory copy still works.
 */
export interface SharedJwksCache {
  get(key: string): Promise<string | null | undefined> | string | null | undefined;
  set(key: string, value: string, ttlSeconds: number): Promise<unknown> | unknown;
}

export interface JwksCacheOptions {
  /** The key set's URL: `<issuer>/.well-known/jwks.json`. */
  jwksUrl: string;
  fetch?: typeof fetch;
  /** How long a fetched key set is fresh (default 10 minutes). */
  ttlMs?: number;
  /** At most one refetch for an unknown `kid` per this much time (default 30 s). */
  cooldownMs?: number;
  /** How long past its freshness a key set is still served when refetching fails (default 24 h). */
  maxStaleMs?: number;
  /** Time limit of one fetch (default 5 s). */
  timeoutMs?: number;
  sharedCache?: SharedJwksCache;
  now?: () => number;
}

/** A public key ready to check RS256 signatures. */
export interface VerifyKey {
  verify(signed: Uint8Array<ArrayBuffer>, signature: Uint8Array<ArrayBuffer>): boolean | Promise<boolean>;
}

interface Entry {
  keys: Map<string, VerifyKey>;
  fetchedAt: number;
}

const RS256 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

/**
 * The instance's public keys, fetched once and kept in memory. A `kid` it does not know
 * triggers one refetch at most every `cooldownMs`; when the key set is past its freshness and
 * a refetch fails, the stale copy is served up to `maxStaleMs` (stale-if-error). Concurrent
 * callers share one fetch.
 */
export class JwksCache {
  private entry: Entry | null = null;
  private lastKidRefetch = -Infinity;
  private lastFailure = -Infinity;
  private inflight: Promise<Entry> | null = null;
  readonly fetchCount = { value: 0 };
  private readonly o: Required<Omit<JwksCacheOptions, 'sharedCache'>> & { sharedCache?: SharedJwksCache };

  constructor(opts: JwksCacheOptions) {
    this.o = withDefaults(
      {
        fetch: (...a: Parameters<typeof fetch>) => globalThis.fetch(...a),
        ttlMs: 10 * 60_000,
        cooldownMs: 30_000,
        maxStaleMs: 24 * 3600_000,
        timeoutMs: 5_000,
        now: Date.now,
      },
      opts,
    );
  }

  /** The key for `kid` when the cached key set is fresh and has it, without waiting: the hot path. */
  peek(kid: string | undefined): VerifyKey | undefined {
    const e = this.entry;
    if (!e || kid === undefined || this.o.now() - e.fetchedAt >= this.o.ttlMs) return undefined;
    return e.keys.get(kid);
  }

  /** The key for `kid`, fetching or refreshing the key set as the rules above allow. */
  async getKey(kid: string | undefined): Promise<VerifyKey> {
    let entry = this.entry;
    if (!entry) entry = await this.load(true);
    else if (this.o.now() - entry.fetchedAt >= this.o.ttlMs) entry = await this.refreshOrStale(entry);
    const key = kid === undefined ? undefined : entry.keys.get(kid);
    if (key) return key;
    // An unknown kid: perhaps a key rotated in since the last fetch. One refetch per cooldown,
    // so a flood of tokens with made-up kids cannot turn into a flood of fetches.
    if (kid !== undefined && this.o.now() - this.lastKidRefetch >= this.o.cooldownMs) {
      this.lastKidRefetch = this.o.now();
      entry = await this.refreshOrStale(entry, true);
      const fresh = entry.keys.get(kid);
      if (fresh) return fresh;
    }
    throw new TokenUnknownKeyError(kid);
  }

  /** A fresh key set, or the stale one when fetching fails (or failed less than a cooldown ago) and it is within its bound. */
  private async refreshOrStale(entry: Entry, force = false): Promise<Entry> {
    const usable = () => this.o.now() - entry.fetchedAt < this.o.ttlMs + this.o.maxStaleMs;
    if (!force && this.o.now() - this.lastFailure < this.o.cooldownMs) {
      if (usable()) return entry;
      throw new JwksUnavailableError();
    }
    try {
      return await this.load(false);
    } catch (e) {
      this.lastFailure = this.o.now();
      if (usable()) return entry;
      throw e;
    }
  }

  private load(useShared: boolean): Promise<Entry> {
    this.inflight ??= this.fetchKeys(useShared).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async fetchKeys(useShared: boolean): Promise<Entry> {
    const shared = this.o.sharedCache;
    const cacheKey = `latchkey:jwks:${this.o.jwksUrl}`;
    if (useShared && shared) {
      const text = await Promise.resolve(shared.get(cacheKey)).catch(() => null);
      if (text) {
        try {
          return (this.entry = { keys: await importKeys(JSON.parse(text)), fetchedAt: this.o.now() });
        } catch {
          /* a bad shared copy: fetch instead */
        }
      }
    }
    this.fetchCount.value++;
    let text: string;
    try {
      const res = await this.o.fetch(this.o.jwksUrl, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      if (!res.ok) throw new Error(`JWKS endpoint answered ${res.status}`);
      text = await res.text();
    } catch (e) {
      throw new JwksUnavailableError(e);
    }
    let keys: Map<string, VerifyKey>;
    try {
      keys = await importKeys(JSON.parse(text));
    } catch (e) {
      throw new JwksUnavailableError(e);
    }
    if (shared) await Promise.resolve(shared.set(cacheKey, text, Math.ceil(this.o.ttlMs / 1000))).catch(() => undefined);
    return (this.entry = { keys, fetchedAt: this.o.now() });
  }
}

interface NodeCrypto {
  createPublicKey(o: { key: object; format: 'jwk' }): unknown;
  verify(alg: string, data: Uint8Array, key: unknown, signature: Uint8Array): boolean;
}

/**
 * Where the runtime offers node:crypto without an import (`process.getBuiltinModule`: Node
 * 20.16+, Bun, Deno), keys are KeyObjects verified synchronously, which is about twice as
 * fast as WebCrypto's asynchronous verify; elsewhere (edge runtimes, browsers) WebCrypto.
 */
function nodeCrypto(): NodeCrypto | null {
  const p = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return (p?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined) ?? null;
  } catch {
    return null;
  }
}

async function importKey(jwk: Jwk, native: NodeCrypto | null): Promise<VerifyKey> {
  const publicJwk = { kty: 'RSA', n: jwk.n, e: jwk.e };
  if (native) {
    const key = native.createPublicKey({ key: publicJwk, format: 'jwk' });
    return { verify: (signed, signature) => native.verify('sha256', signed, key, signature) };
  }
  const key = await crypto.subtle.importKey('jwk', { ...publicJwk, alg: 'RS256', ext: true }, RS256, false, ['verify']);
  return { verify: (signed, signature) => crypto.subtle.verify(RS256, key, signature, signed) };
}

async function importKeys(body: unknown, native = nodeCrypto()): Promise<Map<string, VerifyKey>> {
  const list = (body as { keys?: unknown }).keys;
  if (!Array.isArray(list)) throw new Error('not a JWK set');
  const keys = new Map<string, VerifyKey>();
  for (const jwk of list as Jwk[]) {
    if (jwk.kty !== 'RSA' || !jwk.kid || typeof jwk.n !== 'string' || (jwk.alg && jwk.alg !== 'RS256') || (jwk.use && jwk.use !== 'sig'))
      continue;
    keys.set(jwk.kid, await importKey(jwk, native));
  }
  return keys;
}

/** Exposed for tests: import a key set with WebCrypto only, as on an edge runtime. */
export const importKeysWebCrypto = (body: unknown) => importKeys(body, null);
