/** Hashers whose digests can be imported, so teams can migrate users in with their passwords. */
export const PASSWORD_HASHERS = ['argon2id', 'argon2i', 'bcrypt', 'scrypt', 'pbkdf2_sha256'] as const;
export type PasswordHasher = (typeof PASSWORD_HASHERS)[number];

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

// m, t and p in any order (checked below): the `argon2` package itself writes `m=…,p=…,t=…`.
const argon2Format = (variant: string) =>
  new RegExp(String.raw`^\$${variant}\$v=\d+\$((?:[mtp]=\d+,){2}[mtp]=\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$`);

/**
 * Accepted digest formats:
 * - argon2id / argon2i: the PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`)
 * - bcrypt: `$2a$`, `$2b$` or `$2y$` modular crypt
 * - scrypt: Werkzeug's `scrypt:N:r:p$salt$hexdigest` (64-byte key)
 * - pbkdf2_sha256: Django's `pbkdf2_sha256$iterations$salt$base64digest`
 */
/** The shape of an imported digest, by hasher (its cost parameters are checked apart). */
export const DIGEST_FORMATS: Record<PasswordHasher, RegExp> = {
  argon2id: argon2Format('argon2id'),
  argon2i: argon2Format('argon2i'),
  bcrypt: /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/,
  scrypt: /^scrypt:(\d+):(\d+):(\d+)\$([^$]+)\$([0-9a-f]+)$/,
  pbkdf2_sha256: /^pbkdf2_sha256\$(\d+)\$([^$]+)\$([A-Za-z0-9+/=]+)$/,
};

const isPowerOfTwo = (n: number) => n >= 2 && Number.isInteger(Math.log2(n));

/**
 * Upper bounds on an imported digest's cost, about that of the argon2 package's defaults (m=64 MiB,
 * t=3, p=4; ours are now PASSWORD_ARGON2_*, OWASP's baseline by default): every sign-in of such a user pays it, and users whose digests cost much more could
 * be told apart by timing. On a 2-core machine our own verify took 0.22 s; bcrypt cost 12
 * 0.30 s, scrypt N=2^16 r=8 p=1 0.18 s, pbkdf2_sha256 1M 0.24 s (1.2M, Django 6.0's
 * default, scales to ~0.28 s); under heavy load each maximum stayed within 1.6× of ours.
 */
const IMPORT_COST_LIMITS = {
  bcryptRounds: 12,
  /** N·r·p; it also bounds scrypt's memory, 128·N·r bytes, to 64 MiB. */
  scryptWork: 2 ** 16 * 8,
  pbkdf2Iterations: 1_200_000,
  argon2MemoryKiB: 128 * 1024,
  /** m·t in KiB: 64 MiB × 4 passes (PHP's and Laravel's default). */
  argon2Work: 64 * 1024 * 4,
  argon2Time: 10,
  argon2Parallelism: 8,
};

/** Why a digest cannot be imported: not a digest of that format, or costlier than IMPORT_COST_LIMITS. */
export type DigestProblem = 'invalid' | 'cost_too_high';

/**
 * Null when the digest is well-formed, has parameters it could have been made with (else it
 * could never verify) and is no costlier than IMPORT_COST_LIMITS.
 */
export function digestProblem(hasher: PasswordHasher, digest: string): DigestProblem | null {
  const m = DIGEST_FORMATS[hasher].exec(digest);
  if (!m) return 'invalid';
  const L = IMPORT_COST_LIMITS;
  const costly = (tooMuch: boolean) => (tooMuch ? 'cost_too_high' : null);
  switch (hasher) {
    case 'scrypt': {
      const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
      if (!isPowerOfTwo(n) || r < 1 || p < 1 || m[5]!.length % 2 !== 0) return 'invalid';
      return costly(n * r * p > L.scryptWork);
    }
    case 'pbkdf2_sha256': {
      const iterations = Number(m[1]);
      if (iterations < 1 || Buffer.from(m[3]!, 'base64').length === 0) return 'invalid';
      return costly(iterations > L.pbkdf2Iterations);
    }
    case 'argon2id':
    case 'argon2i': {
      const params = Object.fromEntries(m[1]!.split(',').map((kv) => [kv[0], Number(kv.slice(2))]));
      if (Object.keys(params).length !== 3) return 'invalid';
      const { m: mem, t, p } = params as { m: number; t: number; p: number };
      if (t < 1 || p < 1 || mem < 8 * p) return 'invalid';
      return costly(mem > L.argon2MemoryKiB || mem * t > L.argon2Work || t > L.argon2Time || p > L.argon2Parallelism);
    }
    case 'bcrypt': {
      const rounds = Number(digest.slice(4, 6));
      if (rounds < 4 || rounds > 31) return 'invalid';
      return costly(rounds > L.bcryptRounds);
    }
  }
}

/** The most an imported digest of this kind may cost, for error messages. */
export function importLimitText(hasher: PasswordHasher): string {
  const L = IMPORT_COST_LIMITS;
  switch (hasher) {
    case 'bcrypt':
      return `cost at most ${L.bcryptRounds}`;
    case 'scrypt':
      return `N·r·p at most ${L.scryptWork} (N=${2 ** 16}, r=8, p=1)`;
    case 'pbkdf2_sha256':
      return `at most ${L.pbkdf2Iterations} iterations`;
    default:
      return `m at most ${L.argon2MemoryKiB} KiB, m·t at most ${L.argon2Work}, t at most ${L.argon2Time}, p at most ${L.argon2Parallelism}`;
  }
}

/**
 * What a worker thread needs to check a password against a bcrypt, scrypt or pbkdf2
 * digest (password-worker.mjs); null for argon2, which the pool runs itself, and for a
 * digest that does not parse (it never verifies).
 */
export type WorkerJob =
  | { kind: 'bcrypt'; password: string; digest: string }
  | { kind: 'scrypt'; password: string; salt: string; N: number; r: number; p: number; expectedHex: string }
  | { kind: 'pbkdf2_sha256'; password: string; salt: string; iterations: number; expectedBase64: string };

export function workerJob(hasher: PasswordHasher, digest: string, password: string): WorkerJob | null {
  switch (hasher) {
    case 'bcrypt':
      return DIGEST_FORMATS.bcrypt.test(digest) ? { kind: 'bcrypt', password, digest: digest.replace(/^\$2y\$/, '$2b$') } : null;
    case 'scrypt': {
      const [, n, r, p, salt, hex] = DIGEST_FORMATS.scrypt.exec(digest) ?? [];
      return hex ? { kind: 'scrypt', password, salt: salt!, N: Number(n), r: Number(r), p: Number(p), expectedHex: hex } : null;
    }
    case 'pbkdf2_sha256': {
      const [, iterations, salt, b64] = DIGEST_FORMATS.pbkdf2_sha256.exec(digest) ?? [];
      return b64 ? { kind: 'pbkdf2_sha256', password, salt: salt!, iterations: Number(iterations), expectedBase64: b64 } : null;
    }
    default:
      return null;
  }
}

/** The argon2id cost of new digests: memory in KiB, passes, lanes (PASSWORD_ARGON2_*). */
export interface Argon2Cost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP's baseline for argon2id (Password Storage Cheat Sheet): m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2_COST: Argon2Cost = { memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 };

/** The m, t and p of an argon2 PHC string, or null when it does not parse. */
export function argon2Params(digest: string): { m: number; t: number; p: number } | null {
  const m = DIGEST_FORMATS.argon2id.exec(digest) ?? DIGEST_FORMATS.argon2i.exec(digest);
  if (!m) return null;
  const params = Object.fromEntries(m[1]!.split(',').map((kv) => [kv[0], Number(kv.slice(2))]));
  return 'm' in params && 't' in params && 'p' in params ? (params as { m: number; t: number; p: number }) : null;
}

/**
 * Whether a stored digest is re-hashed at the next successful sign-in: imported digests of
 * another hasher become argon2id, and argon2id digests made at another cost (an earlier
 * default, an import, a changed PASSWORD_ARGON2_*) take the configured one.
 */
export function needsRehash(hasher: PasswordHasher, digest: string, cost: Argon2Cost): boolean {
  if (hasher !== 'argon2id') return true;
  const params = argon2Params(digest);
  return !params || params.m !== cost.memoryCost || params.t !== cost.timeCost || params.p !== cost.parallelism;
}
