import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../../../db/schema';
import { codeSentTo, staleSignedInUser } from '../../../testing/auth-flows';
import type { FapiTestClient } from '../../../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../../../testing/harness';

/**
 * Reverification in process: a session verified again (POST /v1/client/sessions/:id/verify and
 * its factors) unlocks the routes guarded by Clerk's strict window, in Latchkey's JSON and in
 * the Clerk dialect; its 4xx. The same through clerk-js in Chromium: clerk-js-account.test.ts.
 */
const h = sharedHarness();
const MINUTES = 60_000;
const A = sharedInstance(h);
const PASSWORD = 'correct horse battery staple 42';
let seq = 0;

/** A user with a password (and TOTP when asked), signed in 11 minutes ago: the session's factors are no longer fresh. */
const user = (opts: { totp?: boolean } = {}) => staleSignedInUser(h, A, `rv-${++seq}@example.com`, PASSWORD, opts);

const verify = (b: FapiTestClient, sessionId: string, step = '', body: Record<string, unknown> = {}) =>
  b.call('POST', `/v1/client/sessions/${sessionId}/verify${step ? `/${step}` : ''}`, { body });
const fva = async (b: FapiTestClient, sessionId: string) =>
  decodeJwt((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`)).body.jwt).fva;

describe('the session token’s fva claim', () => {
  it('is [minutes since the first factor, -1] after a sign-in without a second factor, and ages with the clock', async () => {
    const { b, sessionId } = await user();
    expect(await fva(b, sessionId)).toEqual([11, -1]);
    h.clock.advance(3 * MINUTES);
    expect(await fva(b, sessionId)).toEqual([14, -1]);
  });

  it('counts the sign-in’s TOTP step as the second factor', async () => {
    const { b, sessionId } = await user({ totp: true });
    expect(await fva(b, sessionId)).toEqual([11, 11]);
  });
});

describe('routes guarded by reverification (Clerk’s strict: 10 minutes)', () => {
  it('a TOTP user: 403 REVERIFICATION_REQUIRED with the level; verified by TOTP the codes are made; 11 minutes on, 403 again', async () => {
    const { b, sessionId, userId, totp } = await user({ totp: true });
    const refused = await b.call('POST', '/v1/me/backup_codes');
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({
      code: 'REVERIFICATION_REQUIRED',
      meta: { reason: 'reverification_required', session_verification: { level: 'second_factor', after_minutes: 10 } },
    });
    // A current TOTP code in the body is no longer enough: the session itself must be fresh.
    expect(
      (await b.call('POST', '/v1/me/backup_codes', { body: { code: totp!.totp.generate({ timestamp: h.clock.now() }) } })).status,
    ).toBe(403);

    const started = await verify(b, sessionId, '', { level: 'second_factor' });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({
      object: 'session_verification',
      session_id: sessionId,
      status: 'needs_second_factor',
      level: 'second_factor',
      supported_second_factors: [{ strategy: 'totp' }, { strategy: 'backup_code' }],
      factor_verification_age: [11, 11],
    });
    expect((await verify(b, sessionId, 'prepare_second_factor', { strategy: 'totp' })).status).toBe(200);
    const wrong = await verify(b, sessionId, 'attempt_second_factor', { strategy: 'totp', code: '000000' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'code', reason: 'incorrect_code' } });
    const done = await verify(b, sessionId, 'attempt_second_factor', {
      strategy: 'totp',
      code: totp!.totp.generate({ timestamp: h.clock.now() }),
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'complete',
      second_factor_verification: { status: 'verified', strategy: 'totp' },
      factor_verification_age: [11, 0],
    });
    expect(await fva(b, sessionId)).toEqual([11, 0]);
    const audited = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'session.reverified'), eq(auditLogs.target, sessionId)));
    expect(audited.map((a) => a.details)).toEqual([
      { level: 'second_factor', factor: 'second_factor', strategy: 'totp', status: 'complete' },
    ]);

    const codes = await b.call('POST', '/v1/me/backup_codes');
    expect(codes.status).toBe(200);
    expect(codes.body.backup_codes).toHaveLength(10);

    h.clock.advance(11 * MINUTES);
    expect((await b.call('DELETE', '/v1/me/totp')).status).toBe(403);
    // A backup code proves the second factor too (and is spent); then TOTP goes, and the token's second factor with it.
    await verify(b, sessionId, '', { level: 'second_factor' });
    const backup = await verify(b, sessionId, 'attempt_second_factor', { strategy: 'backup_code', code: codes.body.backup_codes[0] });
    expect(backup.body.status).toBe('complete');
    const disabled = await b.call('DELETE', '/v1/me/totp');
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ object: 'totp', deleted: true });
    expect((await h.call('GET', `/v1/users/${userId}`, { key: A.secret })).body.two_factor_enabled).toBe(false);
    expect(await fva(b, sessionId)).toEqual([expect.any(Number), -1]);
  });

  it('a user without a second factor: the first factor, by password or emailed code; account deletion', async () => {
    const { b, sessionId, email, userId } = await user();
    expect((await b.call('DELETE', '/v1/me')).status).toBe(403);
    const started = await verify(b, sessionId, '', { level: 'second_factor' });
    expect(started.body).toMatchObject({
      status: 'needs_first_factor',
      supported_first_factors: [
        { strategy: 'password' },
        { strategy: 'email_code', primary: true, safe_identifier: expect.stringMatching(/^r\*+@example\.com$/) },
      ],
      supported_second_factors: null,
    });
    const wrong = await verify(b, sessionId, 'attempt_first_factor', { strategy: 'password', password: 'not the password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].code).toBe('CREDENTIALS_INVALID');

    const prepared = await verify(b, sessionId, 'prepare_first_factor', { strategy: 'email_code' });
    expect(prepared.body.first_factor_verification).toMatchObject({ status: 'unverified', strategy: 'email_code' });
    const badCode = await verify(b, sessionId, 'attempt_first_factor', { strategy: 'email_code', code: '000000' });
    expect(badCode.body.errors[0].code).toBe('CODE_INCORRECT');
    const done = await verify(b, sessionId, 'attempt_first_factor', { strategy: 'email_code', code: await codeSentTo(h, email) });
    expect(done.body).toMatchObject({
      status: 'complete',
      first_factor_verification: { status: 'verified', strategy: 'email_code' },
      factor_verification_age: [0, -1],
    });

    const deleted = await b.call('DELETE', '/v1/me');
    expect(deleted.status).toBe(200);
    expect((await h.call('GET', `/v1/users/${userId}`, { key: A.secret })).status).toBe(404);
  });

  it('multi_factor asks the first factor, then the second', async () => {
    const { b, sessionId, totp } = await user({ totp: true });
    expect((await verify(b, sessionId, '', { level: 'multi_factor' })).body.status).toBe('needs_first_factor');
    const first = await verify(b, sessionId, 'attempt_first_factor', { strategy: 'password', password: PASSWORD });
    expect(first.body.status).toBe('needs_second_factor');
    const second = await verify(b, sessionId, 'attempt_second_factor', {
      strategy: 'totp',
      code: totp!.totp.generate({ timestamp: h.clock.now() }),
    });
    expect(second.body).toMatchObject({ status: 'complete', factor_verification_age: [0, 0] });
  });
});

describe('session verification: 4xx', () => {
  let a: Awaited<ReturnType<typeof user>>;
  beforeAll(async () => {
    a = await user({ totp: true });
  });

  it('another client’s session is 404, no client 401; a bad level or strategy 422', async () => {
    const other = await user();
    expect((await verify(a.b, other.sessionId, '', { level: 'first_factor' })).status).toBe(404);
    const { fapiClient } = await import('../../../testing/fapi-client');
    const anonymous = fapiClient(h, A.instanceId, { publishableKey: A.publishableKey });
    expect((await verify(anonymous, a.sessionId, '', { level: 'first_factor' })).status).toBe(401);
    const badLevel = await verify(a.b, a.sessionId, '', { level: 'strict' });
    expect(badLevel.status).toBe(422);
    expect(badLevel.body.errors[0].meta.param).toBe('level');
    await verify(a.b, a.sessionId, '', { level: 'second_factor' });
    expect((await verify(a.b, a.sessionId, 'attempt_second_factor', { strategy: 'phone_code', code: '123456' })).status).toBe(422);
  });

  it('a factor out of turn is 409; with no verification started (or one past 10 minutes) too', async () => {
    const fresh = await user({ totp: true });
    const none = await verify(fresh.b, fresh.sessionId, 'attempt_second_factor', { strategy: 'totp', code: '123456' });
    expect(none.status).toBe(409);
    expect(none.body.errors[0].meta.reason).toBe('reverification_not_started');
    await verify(fresh.b, fresh.sessionId, '', { level: 'second_factor' });
    const outOfTurn = await verify(fresh.b, fresh.sessionId, 'attempt_first_factor', { strategy: 'password', password: PASSWORD });
    expect(outOfTurn.status).toBe(409);
    expect(outOfTurn.body.errors[0].meta.status).toBe('needs_second_factor');
    h.clock.advance(10 * MINUTES);
    expect(
      (await verify(fresh.b, fresh.sessionId, 'attempt_second_factor', { strategy: 'totp', code: '123456' })).body.errors[0].meta.reason,
    ).toBe('reverification_not_started');
  });

  it('code attempts are limited per user: the sixth in a minute is 429', async () => {
    const u = await user({ totp: true });
    await verify(u.b, u.sessionId, '', { level: 'second_factor' });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await verify(u.b, u.sessionId, 'attempt_second_factor', { strategy: 'totp', code: '000000' })).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
  });
});

describe('the Clerk dialect', () => {
  const CLERK = '__clerk_api_version=2025-11-10&_clerk_js_version=6.40.0';
  it('createBackupCode is 403 session_reverification_required with meta.session_verification; verified, it answers the codes', async () => {
    const { b, sessionId, totp } = await user({ totp: true });
    const refused = await b.call('POST', `/v1/me/backup_codes?${CLERK}&_clerk_session_id=${sessionId}`, { form: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({
      code: 'session_reverification_required',
      meta: { session_verification: { level: 'second_factor', after_minutes: 10 } },
    });

    const started = await b.call('POST', `/v1/client/sessions/${sessionId}/verify?${CLERK}`, { form: { level: 'second_factor' } });
    expect(started.status).toBe(200);
    expect(started.body.response).toMatchObject({
      object: 'session_verification',
      status: 'needs_second_factor',
      level: 'second_factor',
      session: { object: 'session', id: sessionId, factor_verification_age: [11, 11] },
      supported_second_factors: [{ strategy: 'totp' }, { strategy: 'backup_code' }],
    });
    const wrong = await b.call('POST', `/v1/client/sessions/${sessionId}/verify/attempt_second_factor?${CLERK}`, {
      form: { strategy: 'totp', code: '000000' },
    });
    expect(wrong.body.errors[0].code).toBe('form_code_incorrect');
    const done = await b.call('POST', `/v1/client/sessions/${sessionId}/verify/attempt_second_factor?${CLERK}`, {
      form: { strategy: 'totp', code: totp!.totp.generate({ timestamp: h.clock.now() }) },
    });
    expect(done.body.response).toMatchObject({ status: 'complete', session: { factor_verification_age: [11, 0] } });
    expect(done.body.client.sessions[0].factor_verification_age).toEqual([11, 0]);

    const codes = await b.call('POST', `/v1/me/backup_codes?${CLERK}&_clerk_session_id=${sessionId}`, { form: {} });
    expect(codes.status).toBe(200);
    expect(codes.body.response).toMatchObject({ object: 'backup_code', codes: expect.any(Array) });
    const disabled = await b.call('POST', `/v1/me/totp?${CLERK}&_method=DELETE&_clerk_session_id=${sessionId}`, { form: {} });
    expect(disabled.status).toBe(200);
  });
});
