import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLogs, users } from '../db/schema';
import { browserOf, codeSentTo, enrollTotp, eventsSince, nativeOf, nextInstant } from '../testing/auth-flows';
import { sharedHarness, sharedInstance } from '../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);
let n = 0;
const OLD = 'the old passphrase';
const NEW = 'a brand new passphrase';

async function newUser() {
  const email = `reset${++n}@example.com`;
  const res = await h.call('POST', '/v1/users', {
    key: A.secret,
    body: { email_address: [email], password: OLD, username: `reset_user_${n}` },
  });
  return { id: res.body.id as string, email, username: res.body.username as string };
}

/** Signs the user in elsewhere with a password; answers the session and its refresh token. */
async function existingSession(email: string) {
  const b = browserOf(h, A);
  const res = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: OLD } });
  expect(res.status).toBe(200);
  return { b, sessionId: res.body.response.created_session_id as string };
}

describe('password reset by email code', () => {
  it('works end to end as a browser: code, new password, other sessions revoked, signed in', async () => {
    const u = await newUser();
    const elsewhere = [await existingSession(u.email), await existingSession(u.email)];
    const jwt = (await elsewhere[0]!.b.call('POST', `/v1/client/sessions/${elsewhere[0]!.sessionId}/tokens`)).body.jwt;
    const since = nextInstant(h);

    const b = browserOf(h, A);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } })).body.response.id;
    const prepared = await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, {
      body: { strategy: 'reset_password_email_code' },
    });
    expect(prepared.status).toBe(200);
    expect(prepared.body.response.first_factor_verification).toMatchObject({ strategy: 'reset_password_email_code', status: 'unverified' });
    const [mail] = await h.outbox(u.email);
    expect(mail!.template).toBe('password_reset_code');

    // A reset code is not a sign-in code, and a reset step before the code is refused.
    expect((await b.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { body: { password: NEW } })).status).toBe(409);
    const asSignIn = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      body: { strategy: 'email_code', code: mail!.data.code },
    });
    expect(asSignIn.body.errors[0]).toMatchObject({ code: 'CODE_EXPIRED', meta: { reason: 'not_prepared' } });

    const verified = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      body: { strategy: 'reset_password_email_code', code: mail!.data.code },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.response).toMatchObject({ status: 'needs_new_password', created_session_id: null });
    expect(verified.body.client.session).toBeNull();

    for (const [password, reason] of [
      ['short', 'too_short'],
      [u.email.toUpperCase(), 'matches_identifier'],
      [u.username, 'matches_identifier'],
    ] as const) {
      const bad = await b.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { body: { password } });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'password', reason } });
    }

    const done = await b.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { body: { password: NEW } });
    expect(done.status).toBe(200);
    const sessionId = done.body.response.created_session_id;
    expect(done.body.response).toMatchObject({ status: 'complete' });
    expect(done.body.client.session).toMatchObject({ id: sessionId, user_id: u.id, status: 'active' });

    // The other sessions are revoked (session.revoked each), and sessions_version moved on.
    for (const s of elsewhere) expect((await h.call('GET', `/v1/sessions/${s.sessionId}`, { key: A.secret })).body.status).toBe('revoked');
    const verify = await h.call('POST', '/v1/sessions/verify', { key: A.secret, body: { token: jwt } });
    expect(verify.status).toBe(401);
    const types = (await eventsSince(h, A.instanceId, since)).map((e) => e.type);
    expect(types).toEqual(['email.created', 'session.revoked', 'session.revoked', 'user.updated', 'session.created']);
    const audited = await h.runtime.deps.db.select().from(auditLogs).where(eq(auditLogs.target, u.id));
    expect(audited.map((a) => a.action)).toContain('user.password_reset');

    // Old password out, new one in.
    const old = await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: OLD } });
    expect(old.body.errors[0].code).toBe('CREDENTIALS_INVALID');
    expect((await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: NEW } })).status).toBe(200);
  });

  it('works as a native app, by username', async () => {
    const u = await newUser();
    const app = nativeOf(h, A);
    const id = (await app.call('POST', '/v1/client/sign_ins', { form: { identifier: u.username } })).body.response.id;
    await app.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { form: { strategy: 'reset_password_email_code' } });
    const code = await codeSentTo(h, u.email, 'password_reset_code');
    expect(
      (await app.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, { form: { strategy: 'reset_password_email_code', code } }))
        .status,
    ).toBe(200);
    const done = await app.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { form: { password: NEW } });
    expect(done.status).toBe(200);
    expect(done.headers.get('authorization')).toMatch(/^Bearer ct_/);
    expect((await app.call('GET', '/v1/client')).body.session).toMatchObject({ user_id: u.id, status: 'active' });
  });

  it('still asks a user with TOTP for the second factor after the reset', async () => {
    const u = await newUser();
    const { totp } = await enrollTotp(h, A.instanceId, u.id);
    const b = browserOf(h, A);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } })).body.response.id;
    await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'reset_password_email_code' } });
    await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      body: { strategy: 'reset_password_email_code', code: await codeSentTo(h, u.email) },
    });
    const reset = await b.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { body: { password: NEW } });
    expect(reset.body.response.status).toBe('needs_second_factor');
    expect(reset.body.client.session.status).toBe('pending');
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: totp.generate({ timestamp: h.clock.now() }) },
    });
    expect(done.body.response.status).toBe('complete');
  });

  it('answers an unknown identifier the same and sends nothing', async () => {
    const u = await newUser();
    const unknown = `ghost${++n}@example.com`;
    const kb = browserOf(h, A);
    const ub = browserOf(h, A);
    const kid = (await kb.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } })).body.response.id;
    const uid = (await ub.call('POST', '/v1/client/sign_ins', { body: { identifier: unknown } })).body.response.id;
    const kp = await kb.call('POST', `/v1/client/sign_ins/${kid}/prepare_first_factor`, {
      body: { strategy: 'reset_password_email_code' },
    });
    const up = await ub.call('POST', `/v1/client/sign_ins/${uid}/prepare_first_factor`, {
      body: { strategy: 'reset_password_email_code' },
    });
    expect(up.status).toBe(kp.status);
    expect(up.body.response.first_factor_verification).toMatchObject({ status: 'unverified', strategy: 'reset_password_email_code' });
    expect(await h.outbox(unknown)).toEqual([]);
    const ua = await ub.call('POST', `/v1/client/sign_ins/${uid}/attempt_first_factor`, {
      body: { strategy: 'reset_password_email_code', code: '123456' },
    });
    expect(ua.body.errors[0].code).toBe('CODE_INCORRECT');
  });

  it('refuses a banned user at the new-password step, leaving the password unchanged', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } })).body.response.id;
    await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'reset_password_email_code' } });
    await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      body: { strategy: 'reset_password_email_code', code: await codeSentTo(h, u.email) },
    });
    await h.call('POST', `/v1/users/${u.id}/ban`, { key: A.secret });
    const [before] = await h.runtime.deps.db.select().from(users).where(eq(users.id, u.id));
    const res = await b.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { body: { password: NEW } });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].code).toBe('USER_BANNED');
    const [after] = await h.runtime.deps.db.select().from(users).where(eq(users.id, u.id));
    expect(after!.passwordDigest).toBe(before!.passwordDigest);
  });
});
