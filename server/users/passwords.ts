import { pbkdf2, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import argon2 from 'argon2';
import bcrypt from 'bcryptjs';

/** Hashers whose digests can be imported, so teams can migrate users in with their passwords. */
export const PASSWORD_HASHERS = ['argon2id', 'argon2i', 'bcrypt', 'scrypt', 'pbkdf2_sha256'] as const;
export type PasswordHasher = (typeof PASSWORD_HASHERS)[number];

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

const scryptAsync = promisify(scrypt) as (pw: string, salt: string, len: number, opts: object) => Promise<Buffer>;
const pbkdf2Async = promisify(pbkdf2);

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
const FORMATS: Record<PasswordHasher, RegExp> = {
  argon2id: argon2Format('argon2id'),
  argon2i: argon2Format('argon2i'),
  bcrypt: /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/,
  scrypt: /^scrypt:(\d+):(\d+):(\d+)\$([^$]+)\$([0-9a-f]+)$/,
  pbkdf2_sha256: /^pbkdf2_sha256\$(\d+)\$([^$]+)\$([A-Za-z0-9+/=]+)$/,
};

const isPowerOfTwo = (n: number) => n >= 2 && Number.isInteger(Math.log2(n));

/**
 * Upper bounds on an imported digest's cost: a hostile import must not make every later
 * password check burn seconds of CPU or gigabytes of memory.
 */
export const IMPORT_COST_LIMITS = {
  bcryptRounds: 16,
  scryptN: 2 ** 20,
  scryptR: 32,
  scryptP: 16,
  pbkdf2Iterations: 5_000_000,
  argon2MemoryKiB: 1024 * 1024,
  argon2Time: 20,
  argon2Parallelism: 16,
};

const within = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;

/**
 * Well-formed, with parameters a digest could have been made with (else it could never
 * verify), and no costlier than IMPORT_COST_LIMITS.
 */
export function isValidDigest(hasher: PasswordHasher, digest: string): boolean {
  const m = FORMATS[hasher].exec(digest);
  if (!m) return false;
  const L = IMPORT_COST_LIMITS;
  if (hasher === 'scrypt') {
    const [, n, r, p, , hex] = m;
    return (
      isPowerOfTwo(Number(n)) && Number(n) <= L.scryptN && within(Number(r), 1, L.scryptR) && within(Number(p), 1, L.scryptP) && hex!.length % 2 === 0
    );
  }
  if (hasher === 'pbkdf2_sha256') return within(Number(m[1]), 1, L.pbkdf2Iterations) && Buffer.from(m[3]!, 'base64').length > 0;
  if (hasher === 'argon2id' || hasher === 'argon2i') {
    const params = Object.fromEntries(m[1]!.split(',').map((kv) => [kv[0], Number(kv.slice(2))]));
    return (
      Object.keys(params).length === 3 &&
      within(params.m!, 8, L.argon2MemoryKiB) &&
      within(params.t!, 1, L.argon2Time) &&
      within(params.p!, 1, L.argon2Parallelism)
    );
  }
  return within(Number(digest.slice(4, 6)), 4, L.bcryptRounds);
}

export const hashPassword = (password: string) => argon2.hash(password, { type: argon2.argon2id });

function equalBytes(a: Buffer, b: Buffer) {
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function verifyPassword(password: string, digest: string, hasher: PasswordHasher): Promise<boolean> {
  try {
    switch (hasher) {
      case 'argon2id':
      case 'argon2i':
        return await argon2.verify(digest, password);
      case 'bcrypt':
        return await bcrypt.compare(password, digest.replace(/^\$2y\$/, '$2b$'));
      case 'scrypt': {
        const [, n, r, p, salt, hex] = FORMATS.scrypt.exec(digest) ?? [];
        if (!hex) return false;
        const N = Number(n);
        const key = await scryptAsync(password, salt!, hex.length / 2, {
          N,
          r: Number(r),
          p: Number(p),
          maxmem: 256 * N * Number(r) + 1024 * 1024,
        });
        return equalBytes(key, Buffer.from(hex, 'hex'));
      }
      case 'pbkdf2_sha256': {
        const [, iterations, salt, b64] = FORMATS.pbkdf2_sha256.exec(digest) ?? [];
        if (!b64) return false;
        const expected = Buffer.from(b64, 'base64');
        const key = await pbkdf2Async(password, salt!, Number(iterations), expected.length, 'sha256');
        return equalBytes(key, expected);
      }
    }
  } catch {
    return false;
  }
}

/** Imported digests are re-hashed to argon2id at the next successful sign-in. */
export const needsRehash = (hasher: PasswordHasher) => hasher !== 'argon2id';
