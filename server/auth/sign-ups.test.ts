import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signUpAttempts, verificationCodes } from '../db/schema';
import { browserOf, codeSentTo, eventsSince, instanceWith, nativeOf } from '../testing/auth-flows';
import { sharedHarness, sharedInstance } from '../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);
let n = 0;
const email = (tag = 'u') => `${tag}${++n}@example.com`;

describe('sign-up by email code', () => {
  it('works end to end as a browser: create, prepare, attempt; the user and an active session exist, cookie carried', async () => {
    const since = h.clock.now();
    const b = browserOf(h, A);
    const address = email('Ann.');
    const created = await b.call('POST', '/v1/client/sign_ups', {
      body: { email_address: address, password: 'correct horse battery', first_name: 'Ann', last_name: 'Lee' },
    });
    expect(created.status).toBe(200);
    expect(created.setCookie).toMatch(/^__client=ct_/);
    expect(created.body.response).toMatchObject({
      object: 'sign_up_attempt',
      status: 'missing_requirements',
      email_address: address,
      unverified_fields: ['email_address'],
      verifications: { email_address: null },
      password_enabled: true,
      created_user_id: null,
    });
    expect(created.body.response.id).toMatch(/^sua_/);
    expect(created.body.client).toMatchObject({ session: null, sessions: [] });
    expect(JSON.stringify(created.body)).not.toContain('correct horse');
    const id = created.body.response.id;

    const prepared = await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    expect(prepared.status).toBe(200);
    expect(prepared.body.response.verifications.email_address).toMatchObject({
      status: 'unverified',
      strategy: 'email_code',
      attempts: 0,
      expire_at: h.clock.now() + 600_000,
    });
    const [mail] = await h.outbox(address);
    expect(mail).toMatchObject({ template: 'verification_code', to: address });
    const code = mail!.data.code as string;
    expect(code).toMatch(/^\d{6}$/);
    // Only a keyed digest of the code is stored.
    const [stored] = await h.runtime.deps.db.select().from(verificationCodes).where(eq(verificationCodes.attemptId, id));
    expect(JSON.stringify(stored)).not.toContain(code);

    const wrong = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, {
      body: { strategy: 'email_code', code: code === '000000' ? '111111' : '000000' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0]).toMatchObject({ code: 'CODE_INCORRECT', meta: { param: 'code', remaining_attempts: 4 } });

    const done = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code } });
    expect(done.status).toBe(200);
    const { created_user_id: userId, created_session_id: sessionId } = done.body.response;
    expect(done.body.response).toMatchObject({
      status: 'complete',
      unverified_fields: [],
      verifications: { email_address: { status: 'verified' } },
    });
    expect(userId).toMatch(/^user_/);
    expect(done.body.client).toMatchObject({
      id: created.body.client.id,
      last_active_session_id: sessionId,
      session: { id: sessionId, user_id: userId, status: 'active' },
    });
    expect(done.setCookie).toContain(b.token!);

    const boot = await b.call('GET', '/v1/client');
    expect(boot.body.session).toMatchObject({ id: sessionId, status: 'active' });

    const user = await h.call('GET', `/v1/users/${userId}`, { key: A.secret });
    expect(user.body).toMatchObject({
      first_name: 'Ann',
      last_name: 'Lee',
      password_enabled: true,
      email_addresses: [{ email_address: address, verification: { status: 'verified', strategy: 'email_code' } }],
    });
    expect(user.body.last_sign_in_at).toBe(h.clock.now());

    const types = (await eventsSince(h, A.instanceId, since)).map((e) => e.type);
    expect(types).toEqual(['email.created', 'user.created', 'session.created']);

    // The code is spent: the same code again is refused, and the attempt is complete.
    const again = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code } });
    expect(again.status).toBe(409);
  });

  it('works as a native app with form-encoded bodies: token in the Authorization header, then as a bearer', async () => {
    const app = nativeOf(h, A);
    const address = email('native');
    const created = await app.call('POST', '/v1/client/sign_ups', {
      form: { email_address: address, password: 'a long passphrase', username: 'native_user' },
    });
    expect(created.status).toBe(200);
    expect(created.setCookie).toBeNull();
    expect(created.headers.get('authorization')).toMatch(/^Bearer ct_/);
    const id = created.body.response.id;
    expect((await app.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { form: { strategy: 'email_code' } })).status).toBe(
      200,
    );
    const done = await app.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { form: { code: await codeSentTo(h, address) } });
    expect(done.status).toBe(200);
    expect(done.setCookie).toBeNull();
    expect(done.body.response).toMatchObject({ status: 'complete', username: 'native_user' });
    const boot = await app.call('GET', '/v1/client');
    expect(boot.body.session).toMatchObject({ id: done.body.response.created_session_id });
  });

  it('refuses an attempt of another client (or none) with 404', async () => {
    const b = browserOf(h, A);
    const created = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email(), password: 'a long passphrase' } });
    const id = created.body.response.id;
    const other = browserOf(h, A);
    expect((await other.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } })).status).toBe(
      404,
    );
    await other.call('POST', '/v1/client/sign_ups', { body: { email_address: email(), password: 'a long passphrase' } });
    expect((await other.call('GET', `/v1/client/sign_ups/${id}`)).status).toBe(404);
    expect((await b.call('GET', `/v1/client/sign_ups/${id}`)).status).toBe(200);
  });

  it('answers CODE_EXPIRED after 10 minutes, and before any code was prepared', async () => {
    const b = browserOf(h, A);
    const address = email();
    const id = (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: address, password: 'a long passphrase' } })).body
      .response.id;
    const early = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code: '123456' } });
    expect(early.status).toBe(422);
    expect(early.body.errors[0]).toMatchObject({ code: 'CODE_EXPIRED', meta: { reason: 'not_prepared' } });
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    const code = await codeSentTo(h, address);
    h.clock.advance(600_000);
    const late = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code } });
    expect(late.status).toBe(422);
    expect(late.body.errors[0]).toMatchObject({ code: 'CODE_EXPIRED', meta: { reason: 'expired' } });
    const view = await b.call('GET', `/v1/client/sign_ups/${id}`);
    expect(view.body.response.verifications.email_address.status).toBe('expired');
  });

  it('locks a code after 5 wrong tries (TOO_MANY_ATTEMPTS, even for the right code); a new code works', async () => {
    const b = browserOf(h, A);
    const address = email();
    const id = (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: address, password: 'a long passphrase' } })).body
      .response.id;
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    const code = await codeSentTo(h, address);
    const wrong = code === '999999' ? '888888' : '999999';
    for (let i = 1; i <= 4; i++) {
      const res = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code: wrong } });
      expect(res.body.errors[0]).toMatchObject({ code: 'CODE_INCORRECT', meta: { remaining_attempts: 5 - i } });
    }
    const fifth = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code: wrong } });
    expect(fifth.status).toBe(429);
    expect(fifth.body.errors[0]).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', meta: { reason: 'code_attempts' } });
    const right = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code } });
    expect(right.status).toBe(429);
    expect(right.body.errors[0].code).toBe('TOO_MANY_ATTEMPTS');
    expect((await b.call('GET', `/v1/client/sign_ups/${id}`)).body.response.verifications.email_address.status).toBe('failed');

    h.clock.advance(30_000);
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    const fresh = await codeSentTo(h, address);
    // The old code was superseded by the new one.
    const done = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code: fresh } });
    expect(done.status).toBe(200);
  });

  it('caps code reissue per address at 1 / 30 s and 5 / hour with TOO_MANY_ATTEMPTS (not RATE_LIMITED)', async () => {
    const b = browserOf(h, A);
    const address = email();
    const id = (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: address, password: 'a long passphrase' } })).body
      .response.id;
    const prepare = () => b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    expect((await prepare()).status).toBe(200);
    const soon = await prepare();
    expect(soon.status).toBe(429);
    expect(soon.body.errors[0]).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', meta: { reason: 'code_reissue', retry_after: 30 } });
    h.clock.advance(10_000);
    expect((await prepare()).body.errors[0].meta.retry_after).toBe(20);
    for (let i = 2; i <= 5; i++) {
      h.clock.advance(30_000);
      expect((await prepare()).status).toBe(200);
    }
    h.clock.advance(30_000);
    const hourly = await prepare();
    expect(hourly.status).toBe(429);
    expect(hourly.body.errors[0]).toMatchObject({ code: 'TOO_MANY_ATTEMPTS', meta: { reason: 'code_reissue' } });
    expect(hourly.body.errors[0].meta.retry_after).toBeGreaterThan(3000);
    expect((await h.outbox(address)).length).toBe(5);
    // Another address is not affected.
    const other = browserOf(h, A);
    const otherAddress = email();
    const otherId = (
      await other.call('POST', '/v1/client/sign_ups', { body: { email_address: otherAddress, password: 'a long passphrase' } })
    ).body.response.id;
    expect(
      (await other.call('POST', `/v1/client/sign_ups/${otherId}/prepare_verification`, { body: { strategy: 'email_code' } })).status,
    ).toBe(200);
    h.clock.advance(3_600_000);
    expect((await prepare()).status).toBe(200);
  });

  it('refuses a taken email address or username with 422 naming the field', async () => {
    const address = email();
    await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: [address], username: 'taken_name' } });
    const b = browserOf(h, A);
    const res = await b.call('POST', '/v1/client/sign_ups', {
      body: { email_address: address.toUpperCase(), password: 'a long passphrase' },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'email_address', reason: 'taken' } });
    const named = await b.call('POST', '/v1/client/sign_ups', {
      body: { email_address: email(), username: 'Taken_Name', password: 'a long passphrase' },
    });
    expect(named.body.errors[0]).toMatchObject({ meta: { param: 'username', reason: 'taken' } });
  });

  it('answers every field problem at once: one 422 entry per field, the first as before', async () => {
    const address = email();
    await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: [address], username: 'all_at_once' } });
    const res = await browserOf(h, A).call('POST', '/v1/client/sign_ups', {
      body: { email_address: address, username: 'All_At_Once', password: 'short' },
    });
    expect(res.status).toBe(422);
    expect(
      res.body.errors.map((e: { code: string; meta: { param: string; reason: string } }) => [e.code, e.meta.param, e.meta.reason]),
    ).toEqual([
      ['VALIDATION_FAILED', 'password', 'too_short'],
      ['VALIDATION_FAILED', 'email_address', 'taken'],
      ['VALIDATION_FAILED', 'username', 'taken'],
    ]);
  });

  it('applies the password policy with clear 422s naming password', async () => {
    const b = browserOf(h, A);
    const cases: [Record<string, unknown>, string][] = [
      [{ password: 'short' }, 'too_short'],
      [{ password: 'x'.repeat(257) }, 'too_long'],
      [{ password: 'SAME.address@example.com', email_address: 'same.address@example.com' }, 'matches_identifier'],
      [{ password: 'the_username', username: 'The_Username' }, 'matches_identifier'],
      [{}, 'required'],
    ];
    for (const [body, reason] of cases) {
      const res = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email(), ...body } });
      expect(res.status, reason).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'password', reason } });
    }
    expect((await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email(), password: 'x'.repeat(256) } })).status).toBe(200);
    expect((await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email(), password: 'q7#Lm2x!' } })).status).toBe(200);
  });

  it('validates the body: a bad email address, an unknown field, a wrong strategy', async () => {
    const b = browserOf(h, A);
    const bad = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: 'not-an-email', password: 'a long passphrase' } });
    expect(bad.body.errors[0]).toMatchObject({ meta: { param: 'email_address' } });
    const unknown = await b.call('POST', '/v1/client/sign_ups', {
      body: { email_address: email(), password: 'a long passphrase', admin: true },
    });
    expect(unknown.body.errors[0]).toMatchObject({ meta: { param: 'admin', reason: 'unknown_field' } });
    const id = (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email(), password: 'a long passphrase' } })).body
      .response.id;
    const strategy = await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'phone_code' } });
    expect(strategy.status).toBe(422);
    expect(strategy.body.errors[0]).toMatchObject({ meta: { param: 'strategy' } });
    expect(strategy.body.errors[0].message).toBe('This sign-up verifies its email address with email_code.');
  });

  it('requires username and names when the instance says so; without password_required a password is optional', async () => {
    const S = await instanceWith(h, { username_required: true, name_required: true, password_required: false });
    const b = browserOf(h, S);
    const noUser = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email(), first_name: 'A', last_name: 'B' } });
    expect(noUser.body.errors[0]).toMatchObject({ meta: { param: 'username', reason: 'required' } });
    const noName = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email(), username: 'someone' } });
    expect(noName.body.errors[0]).toMatchObject({ meta: { param: 'first_name', reason: 'required' } });
    const ok = await b.call('POST', '/v1/client/sign_ups', {
      body: { email_address: email(), username: 'someone', first_name: 'A', last_name: 'B' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.response).toMatchObject({
      password_enabled: false,
      required_fields: ['email_address', 'username', 'first_name', 'last_name'],
      optional_fields: ['password'],
    });
  });
});

describe('sign-up modes', () => {
  it('restricted: only allow-listed addresses and domains may sign up', async () => {
    const R = await instanceWith(h, { sign_up_mode: 'restricted', allowlist: ['vip@outside.com', 'acme.com', '@corp.example'] });
    const b = browserOf(h, R);
    for (const ok of ['vip@outside.com', 'Ann@ACME.com', 'bo@corp.example']) {
      const res = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: ok, password: 'a long passphrase' } });
      expect(res.status, ok).toBe(200);
    }
    for (const refused of ['other@outside.com', 'ann@sub.acme.com', 'x@acme.com.evil.io']) {
      const res = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: refused, password: 'a long passphrase' } });
      expect(res.status, refused).toBe(403);
      expect(res.body.errors[0]).toMatchObject({ code: 'SIGN_UP_NOT_ALLOWED', meta: { reason: 'restricted', sign_up_mode: 'restricted' } });
    }
  });

  it('waitlist: sign-up is refused with a clear error', async () => {
    const W = await instanceWith(h, { sign_up_mode: 'waitlist' });
    const res = await browserOf(h, W).call('POST', '/v1/client/sign_ups', {
      body: { email_address: email(), password: 'a long passphrase' },
    });
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ code: 'SIGN_UP_NOT_ALLOWED', meta: { reason: 'waitlist' } });
    expect(res.body.errors[0].message).toMatch(/waitlist/);
    const rows = await h.runtime.deps.db.select().from(signUpAttempts).where(eq(signUpAttempts.instanceId, W.instanceId));
    expect(rows).toEqual([]);
  });
});

describe('sign-up per-IP limits', () => {
  const hp = sharedHarness({ env: { TRUST_PROXY: '1' } });
  const P = sharedInstance(hp);

  it('allows 5 sign-up creations per IP per 10 s, then 429 RATE_LIMITED with Retry-After and meta.retry_after', async () => {
    const b = browserOf(hp, P);
    const create = (ip: string) =>
      b.call('POST', '/v1/client/sign_ups', {
        headers: { 'x-forwarded-for': ip },
        body: { email_address: email(), password: 'a long passphrase' },
      });
    for (let i = 0; i < 5; i++) expect((await create('198.51.100.1')).status).toBe(200);
    const limited = await create('198.51.100.1');
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0]).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.errors[0].meta.retry_after).toBe(Number(limited.headers.get('retry-after')));
    expect((await create('198.51.100.2')).status).toBe(200);
  });

  it('limits verification sends and code attempts per IP', async () => {
    const ip = '198.51.100.9';
    const b = browserOf(hp, P);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await b.call('POST', '/v1/client/sign_ups', {
        headers: { 'x-forwarded-for': `198.51.101.${i}` },
        body: { email_address: email(), password: 'a long passphrase' },
      });
      ids.push(res.body.response.id);
    }
    for (let i = 0; i < 5; i++) {
      const res = await b.call('POST', `/v1/client/sign_ups/${ids[i]}/prepare_verification`, {
        headers: { 'x-forwarded-for': ip },
        body: { strategy: 'email_code' },
      });
      expect(res.status).toBe(200);
    }
    const sixth = await b.call('POST', `/v1/client/sign_ups/${ids[0]}/prepare_verification`, {
      headers: { 'x-forwarded-for': ip },
      body: { strategy: 'email_code' },
    });
    expect(sixth.body.errors[0].code).toBe('RATE_LIMITED');
    for (let i = 0; i < 3; i++) {
      const res = await b.call('POST', `/v1/client/sign_ups/${ids[0]}/attempt_verification`, {
        headers: { 'x-forwarded-for': ip },
        body: { code: '000000' },
      });
      expect(res.status).not.toBe(429);
    }
    const fourth = await b.call('POST', `/v1/client/sign_ups/${ids[0]}/attempt_verification`, {
      headers: { 'x-forwarded-for': ip },
      body: { code: '000000' },
    });
    expect(fourth.status).toBe(429);
    expect(fourth.body.errors[0].code).toBe('RATE_LIMITED');
  });

  it('ignores X-Forwarded-For without TRUST_PROXY', async () => {
    const b = browserOf(h, A);
    for (let i = 0; i < 7; i++) {
      const res = await b.call('POST', '/v1/client/sign_ups', {
        headers: { 'x-forwarded-for': '198.51.100.77' },
        body: { email_address: email(), password: 'a long passphrase' },
      });
      expect(res.status).toBe(200);
    }
  });
});
