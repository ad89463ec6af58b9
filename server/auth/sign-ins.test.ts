import argon2 from 'argon2';
import bcrypt from 'bcryptjs';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { browserOf, codeSentTo, enrollTotp, eventsSince, nativeOf, nextInstant } from '../testing/auth-flows';
import type { FapiResult } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);
let n = 0;
const PASSWORD = 'a long passphrase';

async function newUser(extra: Record<string, unknown> = {}) {
  const email = `person${++n}@example.com`;
  const res = await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: [email], password: PASSWORD, ...extra } });
  expect(res.status).toBe(200);
  return { id: res.body.id as string, email };
}

const start = (b: ReturnType<typeof browserOf>, identifier: string) => b.call('POST', '/v1/client/sign_ins', { body: { identifier } });
const attempt = (b: ReturnType<typeof browserOf>, id: string, body: Record<string, unknown>) =>
  b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, { body });
const prepare = (b: ReturnType<typeof browserOf>, id: string, strategy: string) =>
  b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy } });

/** The parts of an answer that may differ between two attempts (ids, times) are masked. */
const shape = (r: FapiResult) =>
  JSON.parse(
    JSON.stringify({ status: r.status, body: r.body })
      .replace(/"(sia|client|ver|req)_[0-9A-Z]{26}"/g, '"<id>"')
      .replace(/person\d+@example\.com|nobody\d+@example\.com/g, '<email>')
      .replace(/"(abandon_at|created_at|updated_at|expire_at)":\d+/g, '"$1":0'),
  );

describe('sign-in with a password', () => {
  it('works end to end as a browser: identifier, then password; session active, last_sign_in_at set, events', async () => {
    const u = await newUser();
    const since = nextInstant(h);
    const b = browserOf(h, A);
    const started = await start(b, u.email);
    expect(started.status).toBe(200);
    expect(started.setCookie).toMatch(/^__client=ct_/);
    expect(started.body.response).toMatchObject({
      object: 'sign_in_attempt',
      status: 'needs_first_factor',
      identifier: u.email,
      supported_first_factors: [
        { strategy: 'password' },
        { strategy: 'email_code', safe_identifier: u.email },
        { strategy: 'reset_password_email_code', safe_identifier: u.email },
      ],
      supported_second_factors: null,
      first_factor_verification: null,
      created_session_id: null,
    });
    const id = started.body.response.id;
    const done = await attempt(b, id, { strategy: 'password', password: PASSWORD });
    expect(done.status).toBe(200);
    const sessionId = done.body.response.created_session_id;
    expect(done.body.response).toMatchObject({
      status: 'complete',
      first_factor_verification: { status: 'verified', strategy: 'password' },
    });
    expect(done.body.client).toMatchObject({ id: started.body.client.id, session: { id: sessionId, user_id: u.id, status: 'active' } });
    expect(done.setCookie).toContain(b.token!);
    const [row] = await h.runtime.deps.db.select().from(users).where(eq(users.id, u.id));
    expect(row!.lastSignInAt).toBe(h.clock.now());
    expect((await eventsSince(h, A.instanceId, since)).map((e) => e.type)).toEqual(['session.created']);
    // The client can mint a token for its new session.
    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`)).status).toBe(200);
    // A finished attempt takes no more factors.
    expect((await attempt(b, id, { strategy: 'password', password: PASSWORD })).status).toBe(409);
  });

  it('accepts identifier and password in one form-encoded call, by username too', async () => {
    await newUser({ username: 'form_user' });
    const b = browserOf(h, A);
    const res = await b.call('POST', '/v1/client/sign_ins', { form: { identifier: 'Form_User', password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.response).toMatchObject({
      status: 'complete',
      supported_first_factors: [{ strategy: 'password' }, { safe_identifier: null }, { safe_identifier: null }],
    });
  });

  it('works as a native app: bearer token, no cookie', async () => {
    const u = await newUser();
    const app = nativeOf(h, A);
    const started = await app.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } });
    expect(started.headers.get('authorization')).toMatch(/^Bearer ct_/);
    expect(started.setCookie).toBeNull();
    const done = await app.call('POST', `/v1/client/sign_ins/${started.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'password', password: PASSWORD },
    });
    expect(done.status).toBe(200);
    expect(done.setCookie).toBeNull();
    const boot = await app.call('GET', '/v1/client');
    expect(boot.body.session).toMatchObject({ user_id: u.id, status: 'active' });
  });

  it('re-hashes an imported bcrypt digest to argon2id on a successful sign-in', async () => {
    const email = `imported${++n}@example.com`;
    const digest = bcrypt.hashSync('imported password', 4);
    const created = await h.call('POST', '/v1/users', {
      key: A.secret,
      body: { email_address: [email], password_digest: digest, password_hasher: 'bcrypt' },
    });
    const b = browserOf(h, A);
    const res = await b.call('POST', '/v1/client/sign_ins', {
      body: { identifier: email, strategy: 'password', password: 'imported password' },
    });
    expect(res.status).toBe(200);
    const [row] = await h.runtime.deps.db.select().from(users).where(eq(users.id, created.body.id));
    expect(row!.passwordHasher).toBe('argon2id');
    expect(row!.passwordDigest).toMatch(/^\$argon2id\$/);
    // And the new digest verifies the same password.
    expect(
      (await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: 'imported password' } })).status,
    ).toBe(200);
  });

  it("hashes new passwords at OWASP's argon2id baseline (m=19 MiB, t=2, p=1) by default", async () => {
    const u = await newUser();
    const [row] = await h.runtime.deps.db.select().from(users).where(eq(users.id, u.id));
    expect(row!.passwordDigest).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
  });

  it("re-hashes an argon2id digest made at another cost (the argon2 package's old defaults) to the configured cost on sign-in", async () => {
    const email = `costly${++n}@example.com`;
    const digest = await argon2.hash('old cost password', { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 });
    const created = await h.call('POST', '/v1/users', {
      key: A.secret,
      body: { email_address: [email], password_digest: digest, password_hasher: 'argon2id' },
    });
    expect(created.status).toBe(200);
    const wrong = await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: 'not it at all' } });
    expect(wrong.status).toBe(422);
    const stored = async () => (await h.runtime.deps.db.select().from(users).where(eq(users.id, created.body.id)))[0]!;
    // A failed attempt leaves the digest alone.
    expect((await stored()).passwordDigest).toBe(digest);
    const res = await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: 'old cost password' } });
    expect(res.status).toBe(200);
    const row = await stored();
    expect(row.passwordHasher).toBe('argon2id');
    expect(row.passwordDigest).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    // A digest already at the configured cost is kept as it is.
    const again = await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: 'old cost password' } });
    expect(again.status).toBe(200);
    expect((await stored()).passwordDigest).toBe(row.passwordDigest);
  });

  it('refuses a banned user with USER_BANNED only after a correct password; a wrong one answers as for anyone', async () => {
    const u = await newUser();
    await h.call('POST', `/v1/users/${u.id}/ban`, { key: A.secret });
    const b = browserOf(h, A);
    const wrong = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: 'not the password' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].code).toBe('CREDENTIALS_INVALID');
    const right = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: PASSWORD } });
    expect(right.status).toBe(403);
    expect(right.body.errors[0]).toMatchObject({ code: 'USER_BANNED' });
  });

  it('validates the body: identifier required, strategies named', async () => {
    const b = browserOf(h, A);
    const none = await b.call('POST', '/v1/client/sign_ins', { body: {} });
    expect(none.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'identifier', reason: 'required' } });
    const bad = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'x@example.com', strategy: 'web3_metamask_signature' } });
    expect(bad.body.errors[0]).toMatchObject({ meta: { param: 'strategy' } });
    expect(bad.body.errors[0].message).toBe(
      'strategy: unsupported; supported strategies: password, ticket, enterprise_sso, saml, passkey.',
    );
    const id = (await start(b, 'x@example.com')).body.response.id;
    const factor = await attempt(b, id, { strategy: 'phone_code', code: '1' });
    expect(factor.body.errors[0]).toMatchObject({ meta: { param: 'strategy' } });
    expect((await attempt(b, id, { strategy: 'password' })).body.errors[0]).toMatchObject({
      meta: { param: 'password', reason: 'required' },
    });
  });

  it('keeps a sign-in attempt to the client that made it', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const id = (await start(b, u.email)).body.response.id;
    const other = browserOf(h, A);
    await start(other, u.email);
    expect((await attempt(other, id, { strategy: 'password', password: PASSWORD })).status).toBe(404);
    expect((await browserOf(h, A).call('GET', `/v1/client/sign_ins/${id}`)).status).toBe(404);
    expect((await b.call('GET', `/v1/client/sign_ins/${id}`)).status).toBe(200);
  });
});

describe('sign-in with an email code', () => {
  it('sends a code to the address and signs in with it (browser)', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const id = (await start(b, u.email)).body.response.id;
    const prepared = await prepare(b, id, 'email_code');
    expect(prepared.status).toBe(200);
    expect(prepared.body.response.first_factor_verification).toMatchObject({ status: 'unverified', strategy: 'email_code' });
    const code = await codeSentTo(h, u.email, 'verification_code');
    const wrong = await attempt(b, id, { strategy: 'email_code', code: code === '000000' ? '000001' : '000000' });
    expect(wrong.body.errors[0]).toMatchObject({ code: 'CODE_INCORRECT', meta: { remaining_attempts: 4 } });
    const done = await attempt(b, id, { strategy: 'email_code', code });
    expect(done.status).toBe(200);
    expect(done.body.response).toMatchObject({
      status: 'complete',
      first_factor_verification: { strategy: 'email_code', status: 'verified' },
    });
    expect(done.body.client.session).toMatchObject({ user_id: u.id, status: 'active' });
  });

  it('sends to the primary address of a username, as a native app', async () => {
    const u = await newUser({ username: 'coded_user' });
    const app = nativeOf(h, A);
    const id = (await app.call('POST', '/v1/client/sign_ins', { body: { identifier: 'coded_user' } })).body.response.id;
    expect((await app.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { form: { strategy: 'email_code' } })).status).toBe(
      200,
    );
    const done = await app.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      form: { strategy: 'email_code', code: await codeSentTo(h, u.email) },
    });
    expect(done.status).toBe(200);
    expect(done.body.client.session).toMatchObject({ user_id: u.id });
  });

  it('answers CODE_EXPIRED after 10 minutes and locks after 5 wrong codes', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const id = (await start(b, u.email)).body.response.id;
    await prepare(b, id, 'email_code');
    const code = await codeSentTo(h, u.email);
    h.clock.advance(600_001);
    expect((await attempt(b, id, { strategy: 'email_code', code })).body.errors[0]).toMatchObject({
      code: 'CODE_EXPIRED',
      meta: { reason: 'expired' },
    });
    await prepare(b, id, 'email_code');
    const fresh = await codeSentTo(h, u.email);
    const wrong = fresh === '123123' ? '321321' : '123123';
    for (let i = 0; i < 4; i++) expect((await attempt(b, id, { strategy: 'email_code', code: wrong })).status).toBe(422);
    const locked = await attempt(b, id, { strategy: 'email_code', code: wrong });
    expect(locked.status).toBe(429);
    expect(locked.body.errors[0]).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', meta: { reason: 'code_attempts' } });
    expect((await attempt(b, id, { strategy: 'email_code', code: fresh })).body.errors[0].code).toBe('TOO_MANY_ATTEMPTS');
  });

  it('caps reissue to the address at 1 / 30 s (TOO_MANY_ATTEMPTS), across attempts', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const first = (await start(b, u.email)).body.response.id;
    expect((await prepare(b, first, 'email_code')).status).toBe(200);
    const second = (await start(b, u.email)).body.response.id;
    const capped = await prepare(b, second, 'email_code');
    expect(capped.status).toBe(429);
    expect(capped.body.errors[0]).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', meta: { reason: 'code_reissue' } });
  });
});

describe('unknown identifiers are indistinguishable', () => {
  it('create, wrong password, email-code prepare and attempt answer alike; nothing is sent', async () => {
    const u = await newUser();
    const unknown = `nobody${++n}@example.com`;
    const kb = browserOf(h, A);
    const ub = browserOf(h, A);
    const [known, stranger] = [await start(kb, u.email), await start(ub, unknown)];
    expect(shape(stranger)).toEqual(shape(known));
    const kid = known.body.response.id;
    const uid = stranger.body.response.id;

    const t0 = performance.now();
    const kw = await attempt(kb, kid, { strategy: 'password', password: 'wrong password' });
    const t1 = performance.now();
    const uw = await attempt(ub, uid, { strategy: 'password', password: 'wrong password' });
    const t2 = performance.now();
    expect(shape(uw)).toEqual(shape(kw));
    expect(uw.body.errors[0]).toMatchObject({ code: 'CREDENTIALS_INVALID' });
    // Same timing class: an argon2id verify either way (a loose bound, to stay stable on busy machines).
    expect(t2 - t1).toBeGreaterThan((t1 - t0) / 4);

    h.clock.advance(60_000);
    const kp = await prepare(kb, kid, 'email_code');
    const up = await prepare(ub, uid, 'email_code');
    expect(shape(up)).toEqual(shape(kp));
    expect(await h.outbox(unknown)).toEqual([]);
    const ka = await attempt(kb, kid, { strategy: 'email_code', code: '000000' });
    const ua = await attempt(ub, uid, { strategy: 'email_code', code: '000000' });
    expect(ua.status).toBe(422);
    expect(ua.body.errors[0].code).toBe(ka.body.errors[0].code);

    // The reissue caps count for unknown addresses too.
    const again = await prepare(ub, uid, 'email_code');
    expect(again.body.errors[0]).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', meta: { reason: 'code_reissue' } });
  });

  it('a user without a password answers a password attempt like a wrong password', async () => {
    const email = `nopass${++n}@example.com`;
    await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: [email] } });
    const res = await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: PASSWORD } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe('CREDENTIALS_INVALID');
  });
});

describe('second factor', () => {
  async function userWithTotp() {
    const u = await newUser();
    return { ...u, ...(await enrollTotp(h, A.instanceId, u.id)) };
  }

  it('leaves the session pending (session.pending) until a TOTP code activates it', async () => {
    const u = await userWithTotp();
    const since = h.clock.now();
    const b = browserOf(h, A);
    const first = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: PASSWORD } });
    expect(first.status).toBe(200);
    const sessionId = first.body.response.created_session_id;
    expect(first.body.response).toMatchObject({
      status: 'needs_second_factor',
      supported_second_factors: [{ strategy: 'totp' }, { strategy: 'backup_code' }],
    });
    expect(first.body.client.session).toMatchObject({ id: sessionId, status: 'pending' });
    expect((await eventsSince(h, A.instanceId, since)).map((e) => e.type)).toEqual(['session.created', 'session.pending']);
    const id = first.body.response.id;
    expect((await b.call('POST', `/v1/client/sign_ins/${id}/prepare_second_factor`, { body: { strategy: 'totp' } })).status).toBe(200);
    const wrong = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, { body: { strategy: 'totp', code: '000000' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0]).toMatchObject({ code: 'CODE_INCORRECT', meta: { remaining_attempts: 4 } });
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: u.totp.generate({ timestamp: h.clock.now() }) },
    });
    expect(done.status).toBe(200);
    expect(done.body.response).toMatchObject({
      status: 'complete',
      created_session_id: sessionId,
      second_factor_verification: { strategy: 'totp', status: 'verified' },
    });
    expect(done.body.client.session).toMatchObject({ id: sessionId, status: 'active' });
    const [row] = await h.runtime.deps.db.select().from(users).where(eq(users.id, u.id));
    expect(row!.lastSignInAt).toBe(h.clock.now());
  });

  it('accepts a backup code once, as a native app', async () => {
    const u = await userWithTotp();
    const app = nativeOf(h, A);
    const first = await app.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: PASSWORD } });
    const id = first.body.response.id;
    const done = await app.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, {
      form: { strategy: 'backup_code', code: u.backupCodes[0]! },
    });
    expect(done.status).toBe(200);
    expect(done.body.client.session).toMatchObject({ status: 'active' });
    const again = nativeOf(h, A);
    const id2 = (await again.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: PASSWORD } })).body.response.id;
    const reused = await again.call('POST', `/v1/client/sign_ins/${id2}/attempt_second_factor`, {
      body: { strategy: 'backup_code', code: u.backupCodes[0]! },
    });
    expect(reused.body.errors[0].code).toBe('CODE_INCORRECT');
  });

  it('after 5 wrong codes abandons the attempt and revokes its pending session', async () => {
    const u = await userWithTotp();
    const b = browserOf(h, A);
    const first = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: PASSWORD } });
    const id = first.body.response.id;
    const sessionId = first.body.response.created_session_id;
    for (let i = 0; i < 4; i++) {
      expect(
        (await b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, { body: { strategy: 'totp', code: '000000' } })).status,
      ).toBe(422);
    }
    const fifth = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, { body: { strategy: 'totp', code: '000000' } });
    expect(fifth.status).toBe(429);
    expect(fifth.body.errors[0]).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', meta: { reason: 'second_factor_attempts' } });
    const session = await h.call('GET', `/v1/sessions/${sessionId}`, { key: A.secret });
    expect(session.body.status).toBe('revoked');
    expect((await b.call('GET', `/v1/client/sign_ins/${id}`)).status).toBe(404);
  });

  it('refuses second-factor steps before the first factor', async () => {
    const u = await userWithTotp();
    const b = browserOf(h, A);
    const id = (await start(b, u.email)).body.response.id;
    const res = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, { body: { strategy: 'totp', code: '000000' } });
    expect(res.status).toBe(409);
    expect(res.body.errors[0]).toMatchObject({ code: 'CONFLICT', meta: { status: 'needs_first_factor' } });
  });
});

describe('sign-in per-IP limits', () => {
  const hp = sharedHarness({ env: { TRUST_PROXY: '1' } });
  const P = sharedInstance(hp);

  it('allows 3 factor attempts per IP per 10 s, then 429 RATE_LIMITED with Retry-After; other IPs unaffected', async () => {
    const b = browserOf(hp, P);
    const id = (
      await b.call('POST', '/v1/client/sign_ins', { headers: { 'x-forwarded-for': '192.0.2.1' }, body: { identifier: 'who@example.com' } })
    ).body.response.id;
    const tryPassword = (ip: string) =>
      b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
        headers: { 'x-forwarded-for': ip },
        body: { strategy: 'password', password: 'guess guess' },
      });
    for (let i = 0; i < 3; i++) expect((await tryPassword('192.0.2.2')).status).toBe(422);
    const limited = await tryPassword('192.0.2.2');
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0]).toMatchObject({ code: 'RATE_LIMITED' });
    expect(limited.body.errors[0].meta.retry_after).toBe(Number(limited.headers.get('retry-after')));
    expect((await tryPassword('192.0.2.3')).status).toBe(422);
    hp.clock.advance(10_000);
    expect((await tryPassword('192.0.2.2')).status).toBe(422);
  });

  it('counts a password sent with the create call against the attempt budget too', async () => {
    const b = browserOf(hp, P);
    const create = () =>
      b.call('POST', '/v1/client/sign_ins', {
        headers: { 'x-forwarded-for': '192.0.2.60' },
        body: { identifier: 'who@example.com', password: 'guess guess' },
      });
    for (let i = 0; i < 3; i++) expect((await create()).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    const limited = await create();
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0]).toMatchObject({ code: 'RATE_LIMITED' });
    expect(limited.headers.get('retry-after')).toBeTruthy();
  });

  it('limits sign-in creation per IP (5 / 10 s) for identifiers as for tickets', async () => {
    const b = browserOf(hp, P);
    const create = () =>
      b.call('POST', '/v1/client/sign_ins', { headers: { 'x-forwarded-for': '192.0.2.50' }, body: { identifier: 'who@example.com' } });
    for (let i = 0; i < 5; i++) expect((await create()).status).toBe(200);
    expect((await create()).body.errors[0].code).toBe('RATE_LIMITED');
  });
});
