import { createHash, pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import argon2 from 'argon2';
import bcrypt from 'bcryptjs';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { users } from '../db/schema';
import { browserOf } from '../testing/auth-flows';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { expectError } from '../testing/expect';
import { storedPassword } from '../testing/fapi-helpers';
import type { PasswordHasher } from '../crypto/passwords';
import type { PasswordPool } from './password-pool';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
/** Through the runtime's password pool, as sign-in does. */
const verifyPassword = (password: string, digest: string, hasher: PasswordHasher) =>
  h.runtime.deps.passwords.verify(password, digest, hasher);
let key: string;
beforeAll(async () => {
  ({ secret: key } = await h.createInstance());
});

let seq = 0;
const uniqueEmail = (tag: string) => `${tag}.${++seq}.${randomBytes(3).toString('hex')}@example.com`;

const PASSWORD = 'imported Passw0rd!';
const WRONG = 'imported Passw0rd?';

/** Werkzeug's generate_password_hash(method="scrypt"): `scrypt:N:r:p$salt$hex(64-byte key)`. */
function werkzeugScrypt(
  password: string,
  salt = randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, 16),
  n = 32768,
  r = 8,
  p = 1,
) {
  const key = scryptSync(password, salt, 64, { N: n, r, p, maxmem: 256 * n * r });
  return `scrypt:${n}:${r}:${p}$${salt}$${key.toString('hex')}`;
}

/** Django's PBKDF2PasswordHasher: `pbkdf2_sha256$iterations$salt$base64(32-byte key)`. */
function djangoPbkdf2(password: string, salt = randomBytes(16).toString('hex').slice(0, 22), iterations = 600_000) {
  const key = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  return `pbkdf2_sha256$${iterations}$${salt}$${key.toString('base64')}`;
}

async function importUser(hasher: string, digest: string) {
  return h.call('POST', '/v1/users', {
    key,
    body: { email_address: uniqueEmail(hasher), password_digest: digest, password_hasher: hasher },
  });
}

const stored = (id: string) => storedPassword(h, id);

describe('importing password digests', () => {
  const cases: [PasswordHasher, () => Promise<string>][] = [
    ['bcrypt', () => bcrypt.hash(PASSWORD, 10)],
    ['argon2i', () => argon2.hash(PASSWORD, { type: argon2.argon2i })],
    ['argon2id', () => argon2.hash(PASSWORD, { type: argon2.argon2id })],
    ['scrypt', async () => werkzeugScrypt(PASSWORD)],
    ['pbkdf2_sha256', async () => djangoPbkdf2(PASSWORD)],
  ];

  for (const [hasher, make] of cases) {
    it(`${hasher}: the digest is stored as given and verifies only the right password`, async () => {
      const digest = await make();
      const res = await importUser(hasher, digest);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ object: 'user', password_enabled: true });
      // The digest never comes back.
      expect(JSON.stringify(res.body)).not.toContain(digest);
      expect(JSON.stringify(res.body)).not.toMatch(/password_digest|password_hasher/);
      const got = await h.call('GET', `/v1/users/${res.body.id}`, { key });
      expect(JSON.stringify(got.body)).not.toContain(digest);

      const row = await stored(res.body.id);
      expect(row).toEqual({ digest, hasher });
      expect(await verifyPassword(PASSWORD, row.digest!, row.hasher as PasswordHasher)).toBe(true);
      expect(await verifyPassword(WRONG, row.digest!, row.hasher as PasswordHasher)).toBe(false);
      expect(await verifyPassword('', row.digest!, row.hasher as PasswordHasher)).toBe(false);
    });
  }

  it('bcrypt: $2a$ and $2y$ digests verify too', async () => {
    const b = await bcrypt.hash(PASSWORD, 8);
    for (const digest of [b.replace(/^\$2b\$/, '$2a$'), b.replace(/^\$2b\$/, '$2y$')]) {
      const res = await importUser('bcrypt', digest);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await verifyPassword(PASSWORD, digest, 'bcrypt')).toBe(true);
      expect(await verifyPassword(WRONG, digest, 'bcrypt')).toBe(false);
    }
  });

  it('argon2: the parameters may come in either order (node argon2 writes m,p,t; argon2-cffi m,t,p)', async () => {
    const native = await argon2.hash(PASSWORD, { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 });
    const reordered = native.replace(/\$((?:[mtp]=\d+,?){3})\$/, (_, params: string) => {
      const byKey = Object.fromEntries(params.split(',').map((kv) => kv.split('=')));
      return `$m=${byKey.m},t=${byKey.t},p=${byKey.p}$`;
    });
    expect(reordered).toMatch(/\$m=19456,t=2,p=1\$/);
    for (const digest of new Set([native, reordered])) {
      const res = await importUser('argon2id', digest);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await verifyPassword(PASSWORD, digest, 'argon2id')).toBe(true);
      expect(await verifyPassword(WRONG, digest, 'argon2id')).toBe(false);
    }
    // Each parameter exactly once.
    const doubled = reordered.replace('t=2', 'm=2');
    expectError(await importUser('argon2id', doubled), 422, 'VALIDATION_FAILED', { param: 'password_digest' });
  });

  it('scrypt and pbkdf2 with other parameters verify', async () => {
    const s = werkzeugScrypt(PASSWORD, 'abcDEF123', 16384, 8, 2);
    const p = djangoPbkdf2(PASSWORD, 'NaCl', 1000);
    expect((await importUser('scrypt', s)).status).toBe(200);
    expect((await importUser('pbkdf2_sha256', p)).status).toBe(200);
    expect(await verifyPassword(PASSWORD, s, 'scrypt')).toBe(true);
    expect(await verifyPassword(WRONG, s, 'scrypt')).toBe(false);
    expect(await verifyPassword(PASSWORD, p, 'pbkdf2_sha256')).toBe(true);
    expect(await verifyPassword(WRONG, p, 'pbkdf2_sha256')).toBe(false);
  });

  it('a digest is checked against the hasher it was made with', async () => {
    const digest = await bcrypt.hash(PASSWORD, 8);
    expect(await verifyPassword(PASSWORD, digest, 'argon2id')).toBe(false);
    expect(await verifyPassword(PASSWORD, digest, 'scrypt')).toBe(false);
  });

  describe('refusals', () => {
    const sha = createHash('sha256').update(PASSWORD).digest('hex');
    const malformed: [string, string][] = [
      ['bcrypt', 'not-a-digest'],
      ['bcrypt', '$2b$10$tooShort'],
      ['argon2id', sha],
      ['argon2i', '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA'], // an argon2id digest
      ['argon2id', '$argon2id$v=19$m=65536,t=3,p=4$$'],
      ['scrypt', `scrypt$16384$8$1$salt$${sha}`],
      ['scrypt', 'scrypt:32768:8:1$salt$XYZ'],
      ['scrypt', `scrypt:32768:8:1$salt$${sha.slice(1)}`], // odd number of hex digits
      ['scrypt', `scrypt:1000:8:1$salt$${sha}`], // N is not a power of two
      ['scrypt', `scrypt:32768:0:1$salt$${sha}`], // r = 0
      ['pbkdf2_sha256', `pbkdf2_sha256$abc$salt$${Buffer.from(sha).toString('base64')}`],
      ['pbkdf2_sha256', `pbkdf2_sha256$0$salt$${Buffer.from(sha, 'hex').toString('base64')}`], // zero iterations
      ['pbkdf2_sha256', `pbkdf2_sha1$260000$salt$${Buffer.from(sha, 'hex').toString('base64')}`],
      ['pbkdf2_sha256', 'pbkdf2_sha256$260000$salt$'],
      ['bcrypt', `$2b$03$${'a'.repeat(53)}`], // cost below bcrypt's minimum
      ['argon2id', '$argon2id$v=19$m=16,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA'], // m < 8·p
    ];
    for (const [hasher, digest] of malformed) {
      it(`refuses a malformed ${hasher} digest: ${digest.slice(0, 40)}`, async () => {
        const before = await h.call('GET', '/v1/users?limit=100', { key });
        const res = await importUser(hasher, digest);
        expectError(res, 422, 'VALIDATION_FAILED', { param: 'password_digest', reason: 'invalid' });
        const after = await h.call('GET', '/v1/users?limit=100', { key });
        expect(after.body.data.length).toBe(before.body.data.length);
      });
    }

    // About our own argon2id's cost (IMPORT_COST_LIMITS): each later sign-in of the user pays it.
    const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
    const phc = (params: string) => `$argon2id$v=19$${params}$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA`;
    const atTheLimit: [string, string][] = [
      ['bcrypt', `$2b$12$${'a'.repeat(53)}`],
      ['scrypt', `scrypt:65536:8:1$salt$${sha}`],
      ['scrypt', `scrypt:32768:8:2$salt$${sha}`],
      ['pbkdf2_sha256', `pbkdf2_sha256$1200000$salt$${b64(sha)}`], // Django 6.0's default
      ['argon2id', phc('m=65536,t=4,p=1')], // PHP's and Laravel's default
      ['argon2id', phc('m=102400,t=2,p=8')], // argon2-cffi's before 21.2
      ['argon2id', phc('m=131072,t=2,p=4')],
    ];
    const tooCostly: [string, string][] = [
      ['bcrypt', `$2b$13$${'a'.repeat(53)}`],
      ['bcrypt', `$2b$16$${'a'.repeat(53)}`],
      ['bcrypt', `$2b$31$${'a'.repeat(53)}`],
      ['scrypt', `scrypt:131072:8:1$salt$${sha}`],
      ['scrypt', `scrypt:65536:8:2$salt$${sha}`],
      ['scrypt', `scrypt:32768:32:16$salt$${sha}`],
      ['scrypt', `scrypt:${2 ** 24}:8:1$salt$${sha}`],
      ['scrypt', `scrypt:32768:64:1$salt$${sha}`],
      ['pbkdf2_sha256', `pbkdf2_sha256$1200001$salt$${b64(sha)}`],
      ['pbkdf2_sha256', `pbkdf2_sha256$5000000$salt$${b64(sha)}`],
      ['pbkdf2_sha256', `pbkdf2_sha256$${'9'.repeat(400)}$salt$${b64(sha)}`],
      ['argon2id', phc('m=65536,t=5,p=4')],
      ['argon2id', phc('m=262144,t=1,p=4')],
      ['argon2id', phc('m=262144,t=20,p=4')],
      ['argon2id', phc('m=1048576,t=20,p=16')],
      ['argon2id', phc('m=4194304,t=3,p=4')],
      ['argon2id', phc('m=8192,t=11,p=1')],
      ['argon2id', phc('m=65536,t=3,p=16')],
      ['argon2i', '$argon2i$v=19$m=65536,t=100,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA'],
    ];
    it('accepts digests up to the import cost limits', async () => {
      for (const [hasher, digest] of atTheLimit) {
        const res = await importUser(hasher, digest);
        expect(res.status, `${digest}: ${JSON.stringify(res.body)}`).toBe(200);
      }
    });

    it('refuses digests costlier than a sign-in can afford: 422 with meta.reason cost_too_high, on create and update', async () => {
      const created = await h.call('POST', '/v1/users', { key, body: { email_address: uniqueEmail('costly') } });
      for (const [hasher, digest] of tooCostly) {
        const before = await h.call('GET', '/v1/users?limit=100', { key });
        const res = await importUser(hasher, digest);
        expectError(res, 422, 'VALIDATION_FAILED', { param: 'password_digest', reason: 'cost_too_high' });
        expect(res.body.errors[0].message).toContain(hasher);
        expect(JSON.stringify(res.body)).not.toContain(digest);
        const after = await h.call('GET', '/v1/users?limit=100', { key });
        expect(after.body.data.length).toBe(before.body.data.length);

        const patched = await h.call('PATCH', `/v1/users/${created.body.id}`, {
          key,
          body: { password_digest: digest, password_hasher: hasher },
        });
        expectError(patched, 422, 'VALIDATION_FAILED', { param: 'password_digest', reason: 'cost_too_high' });
      }
      expect(await stored(created.body.id)).toEqual({ digest: null, hasher: null });
    });

    it('refuses password_digest without password_hasher, and the reverse', async () => {
      const digest = await bcrypt.hash(PASSWORD, 8);
      const noHasher = await h.call('POST', '/v1/users', { key, body: { email_address: uniqueEmail('nh'), password_digest: digest } });
      expectError(noHasher, 422, 'VALIDATION_FAILED', { param: 'password_hasher', reason: 'required_together' });
      const noDigest = await h.call('POST', '/v1/users', { key, body: { email_address: uniqueEmail('nd'), password_hasher: 'bcrypt' } });
      expectError(noDigest, 422, 'VALIDATION_FAILED', { param: 'password_digest' });
    });

    it('refuses an unknown hasher', async () => {
      const res = await importUser('md5', createHash('md5').update(PASSWORD).digest('hex'));
      expectError(res, 422, 'VALIDATION_FAILED', { param: 'password_hasher' });
    });

    it('refuses password and password_digest together', async () => {
      const digest = await bcrypt.hash(PASSWORD, 8);
      const res = await h.call('POST', '/v1/users', {
        key,
        body: { email_address: uniqueEmail('both'), password: PASSWORD, password_digest: digest, password_hasher: 'bcrypt' },
      });
      expectError(res, 422, 'VALIDATION_FAILED', { param: 'password_digest' });
    });
  });

  it('PATCH imports a digest onto an existing user', async () => {
    const created = await h.call('POST', '/v1/users', { key, body: { email_address: uniqueEmail('patchimp') } });
    expect(created.body.password_enabled).toBe(false);
    const digest = djangoPbkdf2(PASSWORD, 'pepper', 2000);
    const res = await h.call('PATCH', `/v1/users/${created.body.id}`, {
      key,
      body: { password_digest: digest, password_hasher: 'pbkdf2_sha256' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.password_enabled).toBe(true);
    const row = await stored(created.body.id);
    expect(row).toEqual({ digest, hasher: 'pbkdf2_sha256' });
    expect(await verifyPassword(PASSWORD, row.digest!, 'pbkdf2_sha256')).toBe(true);

    const bad = await h.call('PATCH', `/v1/users/${created.body.id}`, {
      key,
      body: { password_digest: 'nope', password_hasher: 'scrypt' },
    });
    expectError(bad, 422, 'VALIDATION_FAILED', { param: 'password_digest' });
    expect(await stored(created.body.id)).toEqual({ digest, hasher: 'pbkdf2_sha256' });
  });
});

describe('password work runs off the event loop', () => {
  it('the event loop keeps turning while a bcrypt cost-12 verify is in flight', async () => {
    const digest = bcrypt.hashSync(PASSWORD, 12);
    // Counts event-loop turns until the verify settles. bcryptjs on the main thread would
    // allow a turn only between its ~100 ms chunks, a handful in all; in a worker thread
    // the loop is free throughout.
    let settled = false;
    const verifying = verifyPassword(WRONG, digest, 'bcrypt').finally(() => {
      settled = true;
    });
    let turns = 0;
    await new Promise<void>((resolve) => {
      const turn = () => {
        if (settled) return resolve();
        turns++;
        setImmediate(turn);
      };
      setImmediate(turn);
    });
    expect(await verifying).toBe(false);
    expect(turns).toBeGreaterThan(50);
    expect(await verifyPassword(PASSWORD, digest, 'bcrypt')).toBe(true);
  });
});

describe('a full password queue sheds load', () => {
  const hb = sharedHarness({ env: { PASSWORD_HASH_THREADS: '1', PASSWORD_HASH_QUEUE: '1' } });
  const app = sharedInstance(hb);
  const signIn = (identifier: string, password: string) =>
    browserOf(hb, app).call('POST', '/v1/client/sign_ins', { body: { identifier, strategy: 'password', password } });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while the queue is full, then signs in', async () => {
    const email = uniqueEmail('busy');
    const digest = await bcrypt.hash(PASSWORD, 8);
    const created = await hb.call('POST', '/v1/users', {
      key: app.secret,
      body: { email_address: email, password_digest: digest, password_hasher: 'bcrypt' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);

    const pool = hb.runtime.deps.passwords as PasswordPool;
    // Hold the one thread, and fill the one place in the queue with a sign-in.
    const release = await pool.acquire();
    const queued = signIn(email, PASSWORD);
    await vi.waitFor(() => expect(pool.load.waiting).toBe(1));

    for (const [identifier, password] of [
      [email, PASSWORD],
      [email, WRONG],
      [uniqueEmail('nobody'), WRONG], // an unknown identifier answers alike: no oracle
    ] as const) {
      hb.clock.advance(10_000); // past the per-IP attempt limit
      const busy = await signIn(identifier, password);
      expect(busy.status, JSON.stringify(busy.body)).toBe(503);
      expect(busy.headers.get('content-type')).toMatch(/application\/json/);
      expect(busy.body.errors[0]).toMatchObject({ code: 'SERVICE_UNAVAILABLE', meta: { reason: 'busy' } });
      const retryAfter = Number(busy.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(busy.body.errors[0].meta.retry_after).toBe(retryAfter);
      expect(busy.body.trace_id).toEqual(expect.any(String));
    }

    // The queued sign-in goes on once the thread is free, and re-hashes the digest.
    release();
    const done = await queued;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response).toMatchObject({ status: 'complete' });
    expect(pool.load).toEqual({ running: 0, waiting: 0 });
    const [row] = await hb.runtime.deps.db.select({ hasher: users.passwordHasher }).from(users).where(eq(users.id, created.body.id));
    expect(row!.hasher).toBe('argon2id');

    hb.clock.advance(10_000);
    expectError(await signIn(email, WRONG), 422, 'CREDENTIALS_INVALID');
  });

  it('a backend password set answers 503 too while the queue is full', async () => {
    const pool = hb.runtime.deps.passwords as PasswordPool;
    const release = await pool.acquire();
    const waiter = pool.acquire();
    try {
      const res = await hb.call('POST', '/v1/users', {
        key: app.secret,
        body: { email_address: uniqueEmail('busyset'), password: PASSWORD },
      });
      expectError(res, 503, 'SERVICE_UNAVAILABLE', { reason: 'busy' });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      release();
      (await waiter)();
    }
    expect(pool.load).toEqual({ running: 0, waiting: 0 });
  });
});
