import { describe, expect, it } from 'vitest';
import { fapiRoutes, FAPI_PREFIX } from '../api/fapi/index';
import { codeSentTo, instanceWith, staleSignedInUser, type TestInstance } from '../testing/auth-flows';
import type { FapiTestClient } from '../testing/fapi-client';
import { setSettings, totpCode } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { settingsPatchSchema } from '../instances/settings';
import { registerPasskeyOverFapi, softAuthenticator, TEST_ORIGIN } from '../testing/passkey-authenticator';

/**
 * Issue #44, item 3: reverification on Latchkey's own FAPI contract. The sensitive account
 * changes answer 403 REVERIFICATION_REQUIRED from a session whose factors were proved longer
 * ago than the instance's `reverification_window_minutes` (default 10), until the session
 * verifies again (POST /v1/client/sessions/:id/verify…) with a password, an emailed code, TOTP,
 * a backup code or a passkey. The same guard serves the Clerk dialect (clerk/reverification.test.ts).
 */
const h = sharedHarness();
const MINUTES = 60_000;
const PASSWORD = 'correct horse battery staple 42';
let seq = 0;
let A: TestInstance;
const instanceA = async () =>
  (A ??= await instanceWith(h, { sign_in_methods: { password: true, email_code: true, username: true, passkey: true, phone_code: true } }));

/** The routes guarded by reverification, as docs/frontend-api.md lists them. */
const GUARDED = [
  'DELETE /v1/me',
  'POST /v1/me/email_addresses',
  'DELETE /v1/me/email_addresses/:id',
  'POST /v1/me/phone_numbers',
  'DELETE /v1/me/phone_numbers/:id',
  'POST /v1/me/change_password',
  'POST /v1/me/totp',
  'DELETE /v1/me/totp',
  'POST /v1/me/backup_codes',
  'POST /v1/me/passkeys/prepare_registration',
  'POST /v1/me/passkeys',
  'DELETE /v1/me/passkeys/:id',
];

const user = (i: TestInstance, opts: { totp?: boolean; staleBy?: number } = {}) =>
  staleSignedInUser(h, i, `rvn-${++seq}@example.com`, PASSWORD, opts);

const verify = (b: FapiTestClient, sessionId: string, step = '', body: Record<string, unknown> = {}) =>
  b.call('POST', `/v1/client/sessions/${sessionId}/verify${step ? `/${step}` : ''}`, { body });

function expectReverificationRequired(res: { status: number; body: { errors: unknown[] } }, afterMinutes = 10) {
  expect(res.status).toBe(403);
  expect(res.body.errors[0]).toMatchObject({
    code: 'REVERIFICATION_REQUIRED',
    meta: { reason: 'reverification_required', session_verification: { level: 'second_factor', after_minutes: afterMinutes } },
  });
}

describe('the guarded routes', () => {
  it('are exactly the documented ones, each guarded in the route table', () => {
    const guarded = fapiRoutes
      .filter((r) => (r.guard as { reverification?: unknown }).reverification)
      .map((r) => `${r.method} ${r.path.slice(FAPI_PREFIX.length)}`);
    expect(guarded.sort()).toEqual([...GUARDED].sort());
  });

  it('each answers 403 REVERIFICATION_REQUIRED from a stale session, and nothing changes', async () => {
    const i = await instanceA();
    const { b, userId } = await user(i);
    const me = (await b.call('GET', '/v1/me')).body;
    const bodies: Record<string, unknown> = {
      'POST /v1/me/email_addresses': { email_address: `new-${seq}@example.com` },
      'POST /v1/me/phone_numbers': { phone_number: '+15555550123' },
      'POST /v1/me/change_password': { code: '123456', new_password: 'another long passphrase' },
      'POST /v1/me/passkeys': { public_key_credential: {} },
    };
    for (const route of GUARDED) {
      const [method, path] = route.split(' ') as [string, string];
      const res = await b.call(method, path.replace(':id', me.primary_email_address_id), { body: bodies[route] });
      expectReverificationRequired(res);
    }
    const after = await h.call('GET', `/v1/users/${userId}`, { key: i.secret });
    expect(after.status).toBe(200);
    expect(after.body.email_addresses).toHaveLength(1);
    expect(after.body.phone_numbers).toHaveLength(0);
  });

  it('a session that just signed in is fresh: it adds an address, changes the password with a code and deletes the account', async () => {
    const i = await instanceA();
    const { b, email, userId } = await user(i, { staleBy: 0 });
    expect((await b.call('POST', '/v1/me/email_addresses', { body: { email_address: `more-${seq}@example.com` } })).status).toBe(201);
    expect((await b.call('POST', '/v1/me/change_password/prepare')).status).toBe(200);
    const changed = await b.call('POST', '/v1/me/change_password', {
      body: { code: await codeSentTo(h, email), new_password: 'another long passphrase', sign_out_of_other_sessions: false },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await b.call('DELETE', '/v1/me')).status).toBe(200);
    expect((await h.call('GET', `/v1/users/${userId}`, { key: i.secret })).status).toBe(404);
  });

  it('the current password proves a password change by itself; without it (a code) the session must be fresh', async () => {
    const i = await instanceA();
    const { b, email } = await user(i);
    const withCurrent = await b.call('POST', '/v1/me/change_password', {
      body: { current_password: PASSWORD, new_password: 'a second long passphrase', sign_out_of_other_sessions: false },
    });
    expect(withCurrent.status, JSON.stringify(withCurrent.body)).toBe(200);
    expect((await b.call('POST', '/v1/me/change_password/prepare')).status).toBe(200);
    const code = await codeSentTo(h, email);
    expectReverificationRequired(
      await b.call('POST', '/v1/me/change_password', { body: { code, new_password: 'a third long passphrase' } }),
    );
  });
});

describe('verifying the session again', () => {
  it('by password: then the guarded actions complete, until the window passes again', async () => {
    const i = await instanceA();
    const { b, sessionId, userId } = await user(i);
    expectReverificationRequired(await b.call('POST', '/v1/me/email_addresses', { body: { email_address: `x-${seq}@example.com` } }));
    expect((await verify(b, sessionId, '', { level: 'second_factor' })).body.status).toBe('needs_first_factor');
    const done = await verify(b, sessionId, 'attempt_first_factor', { strategy: 'password', password: PASSWORD });
    expect(done.body).toMatchObject({ status: 'complete', factor_verification_age: [0, -1] });
    const added = await b.call('POST', '/v1/me/email_addresses', { body: { email_address: `x-${seq}@example.com` } });
    expect(added.status).toBe(201);
    expect((await b.call('DELETE', `/v1/me/email_addresses/${added.body.id}`)).status).toBe(200);
    h.clock.advance(10 * MINUTES);
    expectReverificationRequired(await b.call('DELETE', '/v1/me'));
    expect((await h.call('GET', `/v1/users/${userId}`, { key: i.secret })).status).toBe(200);
  });

  it('by an emailed code', async () => {
    const i = await instanceA();
    const { b, sessionId, email } = await user(i);
    await verify(b, sessionId, '', { level: 'second_factor' });
    expect((await verify(b, sessionId, 'prepare_first_factor', { strategy: 'email_code' })).status).toBe(200);
    const done = await verify(b, sessionId, 'attempt_first_factor', { strategy: 'email_code', code: await codeSentTo(h, email) });
    expect(done.body.status).toBe('complete');
    expect((await b.call('DELETE', '/v1/me')).status).toBe(200);
  });

  it('a TOTP user: the password is not enough for second_factor; TOTP or a backup code is', async () => {
    const i = await instanceA();
    const { b, sessionId, totp } = await user(i, { totp: true });
    const started = await verify(b, sessionId, '', { level: 'second_factor' });
    expect(started.body).toMatchObject({
      status: 'needs_second_factor',
      supported_second_factors: [{ strategy: 'totp' }, { strategy: 'backup_code' }],
    });
    expect((await verify(b, sessionId, 'attempt_first_factor', { strategy: 'password', password: PASSWORD })).status).toBe(409);
    const byBackup = await verify(b, sessionId, 'attempt_second_factor', { strategy: 'backup_code', code: totp!.backupCodes[0] });
    expect(byBackup.body.status).toBe('complete');
    const codes = await b.call('POST', '/v1/me/backup_codes');
    expect(codes.status).toBe(200);
    h.clock.advance(11 * MINUTES);
    expectReverificationRequired(await b.call('DELETE', '/v1/me/totp'));
    await verify(b, sessionId, '', { level: 'second_factor' });
    expect((await verify(b, sessionId, 'attempt_second_factor', { strategy: 'totp', code: totpCode(h, totp!.secret) })).body.status).toBe(
      'complete',
    );
    expect((await b.call('DELETE', '/v1/me/totp')).status).toBe(200);
  });

  it('by a passkey: both factors at once, for a TOTP user too; offered only when the user has one', async () => {
    const i = await instanceA();
    const { b, sessionId, totp } = await user(i, { totp: true, staleBy: 0 });
    const authn = softAuthenticator();
    const passkey = await registerPasskeyOverFapi(b, authn);
    h.clock.advance(11 * MINUTES);
    expectReverificationRequired(await b.call('DELETE', `/v1/me/passkeys/${passkey.id}`));
    const started = await verify(b, sessionId, '', { level: 'multi_factor' });
    expect(started.body.supported_first_factors).toContainEqual({ strategy: 'passkey' });
    expect(started.body.supported_second_factors).toContainEqual({ strategy: 'passkey' });
    const prepared = await verify(b, sessionId, 'prepare_first_factor', { strategy: 'passkey' });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const options = JSON.parse(prepared.body.first_factor_verification.nonce);
    expect(options.allowCredentials).toEqual([expect.objectContaining({ id: passkey.credential_id })]);
    const done = await verify(b, sessionId, 'attempt_first_factor', {
      strategy: 'passkey',
      public_key_credential: authn.assert(options, TEST_ORIGIN),
    });
    expect(done.body).toMatchObject({ status: 'complete', factor_verification_age: [0, 0] });
    expect((await b.call('DELETE', `/v1/me/passkeys/${passkey.id}`)).status).toBe(200);
    expect(totp).not.toBeNull();

    // Without a passkey none is offered, and asking for one is a 422.
    const plain = await user(i);
    const none = await verify(plain.b, plain.sessionId, '', { level: 'second_factor' });
    expect(none.body.supported_first_factors.map((f: { strategy: string }) => f.strategy)).not.toContain('passkey');
    expect((await verify(plain.b, plain.sessionId, 'prepare_first_factor', { strategy: 'passkey' })).status).toBe(422);
  });

  it('an impersonation session can neither verify nor use the guarded routes', async () => {
    const i = await instanceA();
    const { userId } = await user(i, { staleBy: 0 });
    const actor = await h.call('POST', '/v1/actor_tokens', { key: i.secret, body: { user_id: userId, actor: { sub: 'support_agent' } } });
    const { fapiClient } = await import('../testing/fapi-client');
    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const redeemed = await b.signInWithTicket(actor.body.token);
    const refused = await verify(b, redeemed.body.response.created_session_id, '', { level: 'first_factor' });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].meta.reason).toBe('impersonation');
    expect((await b.call('DELETE', '/v1/me')).body.errors[0].meta.reason).toBe('impersonation');
  });
});

describe('the instance’s window (reverification_window_minutes)', () => {
  it('defaults to 10; shorter or longer as the instance sets it; never off', async () => {
    const i = await instanceWith(h);
    expectReverificationRequired(await (await user(i)).b.call('DELETE', '/v1/me'), 10);
    await setSettings(h, i.instanceId, { reverification_window_minutes: 2 });
    const short = await user(i, { staleBy: 3 });
    expectReverificationRequired(await short.b.call('DELETE', '/v1/me'), 2);
    await setSettings(h, i.instanceId, { reverification_window_minutes: 60 });
    const long = await user(i, { staleBy: 30 });
    expect((await long.b.call('DELETE', '/v1/me')).status).toBe(200);
    // A change of the settings may shorten or lengthen it, never turn it off.
    for (const [value, ok] of [
      [0, false],
      [-1, false],
      [null, false],
      [1, true],
      [1440, true],
      [1441, false],
    ] as const) {
      expect(settingsPatchSchema.safeParse({ reverification_window_minutes: value }).success, String(value)).toBe(ok);
    }
  });
});

describe('a session pending on setup_mfa', () => {
  it('enrolls while fresh; once stale it verifies again by its first factor, then enrolls', async () => {
    const i = await instanceWith(h, { mfa_required: true });
    const { b, sessionId } = await user(i, { staleBy: 11 });
    expect((await b.call('GET', '/v1/client')).body.session).toMatchObject({ status: 'pending', tasks: [{ key: 'setup_mfa' }] });
    expectReverificationRequired(await b.call('POST', '/v1/me/totp'));
    await verify(b, sessionId, '', { level: 'second_factor' });
    expect((await verify(b, sessionId, 'attempt_first_factor', { strategy: 'password', password: PASSWORD })).body.status).toBe('complete');
    expect((await b.call('POST', '/v1/me/totp')).status).toBe(200);
  });
});
