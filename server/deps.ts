import type { Config } from './config';
import type { Db } from './db/client';
import type { Limiter } from './infra/limiter';
import type { Logger } from './infra/logger';
import type { Metrics } from './infra/metrics';
import type { CacheRegistry, TtlCache } from './infra/ttl-cache';
import type { CacheInvalidation } from './infra/invalidation';
import type { Cipher } from './crypto/cipher';
import type { instances } from './db/schema';
import type { Mailer } from './infra/mail-transport';
import type { DnsResolver } from './infra/ssrf';
import type { PasswordHasher } from './crypto/passwords';

export interface Clock {
  now(): number;
}

/** TXT lookups (organization domain verification); node:dns/promises by default, swapped in tests. */
export interface TxtResolver {
  resolveTxt(hostname: string): Promise<string[][]>;
}

/** A secret key as the key cache holds it (keys/secret-keys.ts resolves it). */
export interface ResolvedKey {
  keyId: string;
  digest: string;
  scopes: string[];
  revoked: boolean;
  instance: Pick<typeof instances.$inferSelect, 'id' | 'environment' | 'fapiUrl' | 'publishableKey' | 'accountId'>;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Everything domain code may touch, passed explicitly so tests can swap the clock
 * or the database. `db` may be a transaction.
 */
export interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
  logger: Logger;
  limiter: Limiter;
  metrics: Metrics;
  /** secret-key digest → key; revocation is seen within the TTL on every node. */
  keyCache: TtlCache<ResolvedKey | null>;
  /** Other hot-path caches (signing keys, JWKS), per runtime. */
  caches: CacheRegistry;
  /** Drops an entry of `caches` on every node (Redis pub/sub when REDIS_URL is set). */
  cacheInvalidation: CacheInvalidation;
  /** Encrypts secrets kept at rest with ENCRYPTION_KEY. */
  cipher: Cipher;
  /** Email transport: SMTP from SMTP_URL, or null to keep emails in the dev outbox. */
  mailer: Mailer | null;
  /** Host name resolution for outbound requests (webhooks), checked by the SSRF guard. */
  dns: DnsResolver;
  /**
   * Tests only: PEM CA certificates that outbound TLS trusts instead of the system's roots
   * (TLS servers on loopback with a test CA). Never set in production: no configuration or
   * environment variable reaches it.
   */
  testTrustedCas?: readonly string[];
  /** TXT lookups (organization domain verification). */
  txtResolver: TxtResolver;
  /** Password hashing and verification, off the event loop, with a bounded queue (503 past it). */
  passwords: PasswordHashing;
  /** Optional GeoIP lookup (IP → ISO country code): with it, risk-based MFA also counts a new country. */
  geoip?: GeoIpLookup;
}

/** Password hashing and verification off the event loop (users/password-pool.ts). */
export interface PasswordHashing {
  /** An argon2id digest of a new password at the configured cost. */
  hash(password: string): Promise<string>;
  verify(password: string, digest: string, hasher: PasswordHasher): Promise<boolean>;
  /** Whether a stored digest should be re-hashed at the configured cost after a successful check. */
  needsRehash(hasher: PasswordHasher, digest: string): boolean;
  /** A digest to verify against when the user is unknown, so that timing does not tell. */
  dummyDigest(): Promise<string>;
  close(): Promise<void>;
}

/** An IP address's ISO 3166-1 alpha-2 country, or null when unknown. */
export type GeoIpLookup = (ip: string) => string | null;
