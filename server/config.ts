import { z } from 'zod';
import { parseCidr, type Cidr } from './infra/ip';

const optional = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const booleanFlag = z.enum(['0', '1', 'true', 'false', 'yes', 'no']).transform((v) => v === '1' || v === 'true' || v === 'yes');

function isSmtpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** `addr@host` or `Display Name <addr@host>`, on one line. */
/** An address, optionally with a display name: `Acme <no-reply@acme.com>` (EMAIL_FROM, an instance's branding.email_from). */
export const MAILBOX_RE = /^(?:[^<>\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/;

const configSchema = z.object({
  NODE_ENV: optional(z.enum(['development', 'production', 'test'])),
  PORT: optional(z.coerce.number().int().min(1).max(65535)).transform((v) => v ?? 3000),
  HOST: optional(z.string()).transform((v) => v ?? '0.0.0.0'),
  PUBLIC_URL: optional(z.url({ protocol: /^https?$/ })),
  DATA_DIR: optional(z.string()).transform((v) => v ?? './data'),
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')),
  /** Distinct statement texts a PostgreSQL connection keeps prepared besides the hot ones (server/db/statement-cache.ts); 0: only those. */
  DATABASE_PREPARED_STATEMENTS: optional(z.coerce.number().int().min(0).max(100_000)),
  /** PostgreSQL connections of each process: database operations that run at once (server/db/admission.ts). */
  DATABASE_POOL_SIZE: optional(z.coerce.number().int().min(1).max(1000)).transform((v) => v ?? 10),
  /** Database operations that may wait for a connection; past it, 503 database_busy at once. */
  DATABASE_QUEUE: optional(z.coerce.number().int().min(0).max(100_000)).transform((v) => v ?? 100),
  /** Seconds an operation waits for a connection before 503 database_busy. */
  DATABASE_QUEUE_TIMEOUT: optional(z.coerce.number().min(0.01).max(600)).transform((v) => v ?? 5),
  /** Seconds to open a connection before the request fails with 503 database_unavailable. */
  DATABASE_CONNECT_TIMEOUT: optional(z.coerce.number().min(1).max(600)).transform((v) => v ?? 5),
  REDIS_URL: optional(z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL')),
  ENCRYPTION_KEY: optional(
    z.string().refine((v) => /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, 'base64').length === 32, {
      message: 'must be 32 bytes as 64 hex characters or base64',
    }),
  ),
  LOG_LEVEL: optional(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])).transform((v) => v ?? 'info'),
  METRICS_TOKEN: optional(z.string().min(16, 'must be at least 16 characters')),
  TRUST_PROXY: optional(booleanFlag).transform((v) => v ?? false),
  /**
   * Under TRUST_PROXY, the hops of X-Forwarded-For that are your proxies (comma-separated
   * CIDRs); the client is the rightmost hop outside them. Default: loopback, private and
   * link-local ranges.
   */
  TRUSTED_PROXIES: optional(z.string().max(4096)).transform((v, ctx): Cidr[] | undefined => {
    if (v === undefined) return undefined;
    const blocks = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => ({ s, cidr: parseCidr(s) }));
    const bad = blocks.find((b) => !b.cidr);
    if (bad) ctx.addIssue({ code: 'custom', message: `${bad.s} is not an IPv4 or IPv6 address or CIDR block` });
    return blocks.map((b) => b.cidr!);
  }),
  BAPI_RATE_LIMIT: optional(z.coerce.number().int().min(1)),
  /** Requests per SCIM token per 10 s (default 600). */
  SCIM_RATE_LIMIT: optional(z.coerce.number().int().min(1)),
  /** Requests per 10 s to {fapi_url}/oauth2/token, per IP and per client (defaults 300 and 1000). */
  OAUTH_TOKEN_RATE_LIMIT: optional(z.coerce.number().int().min(1)),
  /** Seconds a device waits between polls of the token endpoint in the device flow (RFC 8628 interval; default 5). */
  OAUTH_DEVICE_POLL_INTERVAL: optional(z.coerce.number().int().min(1).max(60)),
  OAUTH_REGISTRATION_RATE_LIMIT: optional(z.coerce.number().int().min(1)),
  /** smtp://user:pass@host:587 or smtps://…:465; unset keeps every email in the dev outbox. */
  SMTP_URL: optional(
    z.string().refine(isSmtpUrl, { message: 'must be an smtp:// or smtps:// URL such as smtp://user:pass@smtp.example.com:587' }),
  ),
  EMAIL_FROM: optional(
    z.string().regex(MAILBOX_RE, { message: 'must be an address, optionally with a name: "Acme <no-reply@acme.com>"' }),
  ).transform((v) => v ?? 'Latchkey <no-reply@localhost>'),
  /**
   * Lets test instances reach loopback/private addresses on every outbound request to a URL a
   * customer gave (webhook receivers, an LTI platform's JWKS, a breached-password range API).
   * Never applies to live instances.
   */
  ALLOW_PRIVATE_TARGETS: optional(booleanFlag).transform((v) => v ?? false),
  /** The former name of ALLOW_PRIVATE_TARGETS, still honoured: either one turns the switch on. */
  ALLOW_PRIVATE_WEBHOOK_TARGETS: optional(booleanFlag).transform((v) => v ?? false),
  /** Whether `npm start` / `npm run api` also deliver webhooks (set 0 on nodes that should only serve; run `npm run worker` elsewhere). */
  WEBHOOK_WORKER: optional(booleanFlag).transform((v) => v ?? true),
  /** How long a webhook worker's claim on a message lasts: a dead worker's messages go out again from another after it. */
  WEBHOOK_LEASE_SECONDS: optional(z.coerce.number().int().min(5).max(3600)).transform((v) => v ?? 60),
  /** Password hashes/verifies that run at once (worker threads); default os.availableParallelism(). */
  PASSWORD_HASH_THREADS: optional(z.coerce.number().int().min(1).max(256)),
  /** Password jobs that may wait for a thread; past it, 503 with Retry-After. Default 16 per thread. */
  PASSWORD_HASH_QUEUE: optional(z.coerce.number().int().min(0).max(100_000)),
  /**
   * argon2id cost of new digests (OWASP's baseline by default: m=19 MiB, t=2, p=1). A stored
   * digest made at another cost is re-hashed to this one at the user's next sign-in.
   */
  PASSWORD_ARGON2_MEMORY_KIB: optional(
    z.coerce
      .number()
      .int()
      .min(8 * 1024)
      .max(1024 * 1024),
  ).transform((v) => v ?? 19 * 1024),
  PASSWORD_ARGON2_TIME: optional(z.coerce.number().int().min(1).max(10)).transform((v) => v ?? 2),
  PASSWORD_ARGON2_PARALLELISM: optional(z.coerce.number().int().min(1).max(16)).transform((v) => v ?? 1),
  /**
   * A MaxMind DB file (GeoLite2-Country or GeoIP2-Country .mmdb): with it, risk-based MFA also
   * steps up a sign-in from a country the user has not signed in from. Read once at start.
   */
  GEOIP_DATABASE: optional(z.string().min(1)),
  /**
   * The DNS servers TXT lookups (organization domain verification, the admin portal) ask:
   * comma-separated `host` or `host:port` (IPv6 in brackets: `[::1]:53`); default the system's resolver.
   */
  DNS_RESOLVER: optional(
    z
      .string()
      .max(512)
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .refine(
        (l) => l.length > 0 && l.every((s) => /^(\[[0-9a-fA-F:.]+\]|[0-9.]+|[0-9a-fA-F:]+)(:\d{1,5})?$/.test(s)),
        'must be IP addresses, each with an optional :port',
      ),
  ),
  /** HTTP worker processes for `npm start` / `npm run api` (node:cluster); default 1 per core with DATABASE_URL, 1 on the embedded store. */
  WEB_CONCURRENCY: optional(z.coerce.number().int().min(1).max(1024)),
  /** Seconds SIGTERM waits for in-flight requests before closing their connections. */
  SHUTDOWN_TIMEOUT: optional(z.coerce.number().min(0).max(600)).transform((v) => v ?? 10),
  /** Seconds an SMS provider's API has to answer a send; past it the send is retried (server/sms/delivery.ts). */
  SMS_PROVIDER_TIMEOUT: optional(z.coerce.number().min(0.1).max(60)).transform((v) => v ?? 10),
});

export type Config = Omit<z.output<typeof configSchema>, 'PUBLIC_URL'> & { PUBLIC_URL: string };

export class ConfigError extends Error {}

/** Reads and validates the environment once; a bad value names the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  const publicUrl = (cfg.PUBLIC_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, '');
  return { ...cfg, PUBLIC_URL: publicUrl, ALLOW_PRIVATE_TARGETS: cfg.ALLOW_PRIVATE_TARGETS || cfg.ALLOW_PRIVATE_WEBHOOK_TARGETS };
}
