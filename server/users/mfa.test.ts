import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { backupCodes, totpFactors } from '../db/schema';
import { instanceContext } from '../instances/instances';
import { fapiClient } from '../testing/fapi-client';
import { createTestUser, eventsOf, reverify, setSettings, signedInClient, totpCode } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { hasSecondFactor, initialSessionStatus, verifySecondFactor } from './mfa';
import { raceTest } from '../testing/races';

const h = sharedHarness();
const A = sharedInstance(h);
const B = sharedInstance(h);

let n = 0;
const newUser = (i = A, extra: Record<string, unknown> = {}) =>
  createTestUser(h, i, { email_address: [`mfa${++n}@example.com`], ...extra });

/** A new user, signed in on a fresh browser. */
const signedInUser = async () => {
  const userId = await newUser();
  return { userId, ...(await signedInClient(h, A, userId)) };
};
/** Enrolling proves nothing: the session proves the new factor before a guarded MFA change. */
const reverifyWithTotp = (b: ReturnType<typeof fapiClient>, sessionId: string, secret: string) =>
  reverify(h, b, sessionId, { totpSecret: secret });
/** Enrolls TOTP from a signed-in browser; answers the secret and the backup codes. */
async function enroll(b: ReturnType<typeof fapiClient>) {
  const started = await b.call('POST', '/v1/me/totp');
  expect(started.status).toBe(200);
  const secret = started.body.secret as string;
  const confirmed = await b.call('POST', '/v1/me/totp/attempt_verification', { body: { code: totpCode(h, secret) } });
  expect(confirmed.status).toBe(200);
  return { secret, backupCodes: confirmed.body.backup_codes as string[] };
}

describe('TOTP enrollment', () => {
  it('answers a secret and an otpauth URI, stores the secret encrypted, and confirms with a code', async () => {
    const { userId, b, sessionId } = await signedInUser();
    const started = await b.call('POST', '/v1/me/totp');
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ object: 'totp', verified: false });
    expect(started.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(started.body.uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(uri.searchParams.get('secret')).toBe(started.body.secret);
    expect(uri.searchParams.get('algorithm')).toBe('SHA1');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(decodeURIComponent(uri.pathname)).toContain(`mfa${n}@example.com`);

    const [row] = await h.runtime.deps.db.select().from(totpFactors).where(eq(totpFactors.userId, userId));
    expect(row!.status).toBe('pending');
    expect(row!.secretEncrypted).not.toContain(started.body.secret);
    expect(h.runtime.deps.cipher.decrypt(row!.secretEncrypted)).toBe(started.body.secret);
    expect(await hasSecondFactor(h.runtime.deps.db, userId)).toBe(false);

    const wrong = await b.call('POST', '/v1/me/totp/attempt_verification', {
      body: { code: '000000' === totpCode(h, started.body.secret) ? '111111' : '000000' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'code', reason: 'incorrect_code' } });

    const ok = await b.call('POST', '/v1/me/totp/attempt_verification', { body: { code: totpCode(h, started.body.secret) } });
    expect(ok.status).toBe(200);
    expect(ok.body.verified).toBe(true);
    expect(ok.body.backup_codes).toHaveLength(10);
    expect(new Set(ok.body.backup_codes).size).toBe(10);
    expect(await hasSecondFactor(h.runtime.deps.db, userId)).toBe(true);

    // Stored as digests only.
    const codes = await h.runtime.deps.db.select().from(backupCodes).where(eq(backupCodes.userId, userId));
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(ok.body.backup_codes).not.toContain(c.digest);

    const me = await b.call('GET', '/v1/me');
    expect(me.body).toMatchObject({ two_factor_enabled: true, totp_enabled: true, backup_code_enabled: true });
    const updated = (await eventsOf(h, A.instanceId, 'user.updated')).filter((e) => e.data.id === userId);
    expect(updated.at(-1)!.data.two_factor_enabled).toBe(true);
    // The backend API shows it too, by id and in lists.
    expect((await h.call('GET', `/v1/users/${userId}`, { key: A.secret })).body.two_factor_enabled).toBe(true);
    const listed = (await h.call('GET', '/v1/users?limit=100', { key: A.secret })).body.data.find((u: { id: string }) => u.id === userId);
    expect(listed.two_factor_enabled).toBe(true);
    const searched = await h.call('GET', `/v1/users?query=${encodeURIComponent(`mfa${n}@example.com`)}`, { key: A.secret });
    expect(searched.body.data[0].two_factor_enabled).toBe(true);

    // Enrolling again while enabled is a conflict (once the session proved its factor); confirming again too.
    expect((await b.call('POST', '/v1/me/totp')).status).toBe(403);
    await reverifyWithTotp(b, sessionId, started.body.secret);
    expect((await b.call('POST', '/v1/me/totp')).status).toBe(409);
    expect((await b.call('POST', '/v1/me/totp/attempt_verification', { body: { code: totpCode(h, started.body.secret, 1) } })).status).toBe(
      409,
    );
  });

  it('refuses confirmation before enrollment, without a session, and with a personal access token', async () => {
    const { b } = await signedInClient(h, A, await newUser());
    const early = await b.call('POST', '/v1/me/totp/attempt_verification', { body: { code: '123456' } });
    expect(early.status).toBe(409);
    expect(early.body.errors[0].meta.reason).toBe('not_enrolled');

    const anon = fapiClient(h, A.instanceId, { publishableKey: A.publishableKey });
    expect((await anon.call('POST', '/v1/me/totp')).status).toBe(401);

    const pat = await b.call('POST', '/v1/client/me/api_tokens', { body: { name: 'ci', scopes: ['me:read', 'me:write'] } });
    const viaToken = await h.call('POST', `/fapi/${A.instanceId}/v1/me/totp`, { headers: { authorization: `Bearer ${pat.body.token}` } });
    expect(viaToken.status).toBe(403);
    expect(viaToken.body.errors[0].meta.reason).toBe('personal_access_token');

    const badBody = await b.call('POST', '/v1/me/totp/attempt_verification', { body: {} });
    expect(badBody.status).toBe(422);
    expect(badBody.body.errors[0].meta.param).toBe('code');
  });
});

describe('verifySecondFactor', () => {
  it('accepts a current code once: the same code again (replay), or an older one, is refused', async () => {
    const { userId, b } = await signedInUser();
    const { secret } = await enroll(b);
    const deps = h.runtime.deps;
    // The confirmation code's step is spent: the next one is needed.
    h.clock.advance(30_000);
    const code = totpCode(h, secret);
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'totp', code)).toBe(true);
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'totp', code)).toBe(false);
    // The previous step's code is within ±1 but older than the last accepted.
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'totp', totpCode(h, secret, -1))).toBe(false);
    // The next step's code is within the window and newer: accepted once.
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'totp', totpCode(h, secret, 1))).toBe(true);
    // Two steps away is outside the window.
    h.clock.advance(120_000);
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'totp', totpCode(h, secret, 2))).toBe(false);
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'totp', totpCode(h, secret, -2))).toBe(false);
    // Garbage never matches; another instance's id does not find the user.
    for (const bad of ['', 'abcdef', '1234567', '12345'])
      expect(await verifySecondFactor(deps, A.instanceId, userId, 'totp', bad)).toBe(false);
    expect(await verifySecondFactor(deps, B.instanceId, userId, 'totp', totpCode(h, secret))).toBe(false);
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'totp', ` ${totpCode(h, secret)} `)).toBe(true);
  });

  it('spends each backup code once, in any case or with dashes; regeneration voids the old ones', async () => {
    const { userId, b, sessionId } = await signedInUser();
    const { secret, backupCodes: codes } = await enroll(b);
    const deps = h.runtime.deps;
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'backup_code', codes[0]!)).toBe(true);
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'backup_code', codes[0]!)).toBe(false);
    const c1 = codes[1]!;
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'backup_code', `${c1.slice(0, 5).toUpperCase()}-${c1.slice(5)}`)).toBe(
      true,
    );
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'backup_code', 'not-a-code')).toBe(false);
    expect(await verifySecondFactor(deps, B.instanceId, userId, 'backup_code', codes[2]!)).toBe(false);

    // Regeneration needs the session verified again; a code sent too must be right.
    expect((await b.call('POST', '/v1/me/backup_codes', { body: {} })).status).toBe(403);
    await reverifyWithTotp(b, sessionId, secret);
    const refused = await b.call('POST', '/v1/me/backup_codes', { body: { code: '12345x' } });
    expect(refused.status).toBe(422);
    h.clock.advance(30_000);
    const regen = await b.call('POST', '/v1/me/backup_codes', { body: { code: totpCode(h, secret) } });
    expect(regen.status).toBe(200);
    expect(regen.body.backup_codes).toHaveLength(10);
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'backup_code', codes[2]!)).toBe(false);
    expect(await verifySecondFactor(deps, A.instanceId, userId, 'backup_code', regen.body.backup_codes[0])).toBe(true);
  });

  raceTest('accepts a code or a backup code exactly once under concurrency', async () => {
    const { userId, b } = await signedInUser();
    const { secret, backupCodes: codes } = await enroll(b);
    h.clock.advance(30_000);
    const code = totpCode(h, secret);
    const deps = h.runtime.deps;
    const totp = await Promise.all([1, 2, 3].map(() => verifySecondFactor(deps, A.instanceId, userId, 'totp', code)));
    expect(totp.filter(Boolean)).toHaveLength(1);
    const backup = await Promise.all([1, 2, 3].map(() => verifySecondFactor(deps, A.instanceId, userId, 'backup_code', codes[5]!)));
    expect(backup.filter(Boolean)).toHaveLength(1);
  });

  it('is false for a user without a verified factor', async () => {
    const { userId, b } = await signedInUser();
    const started = await b.call('POST', '/v1/me/totp');
    expect(await verifySecondFactor(h.runtime.deps, A.instanceId, userId, 'totp', totpCode(h, started.body.secret))).toBe(false);
    expect(await hasSecondFactor(h.runtime.deps.db, userId)).toBe(false);
  });
});

describe('disabling TOTP', () => {
  it('needs the session verified again (a code or password sent too is checked), and drops the backup codes', async () => {
    const userId = await newUser(A, { password: 'correct horse battery' });
    const { b, sessionId } = await signedInClient(h, A, userId);
    const { secret, backupCodes: codes } = await enroll(b);
    const none = await b.call('DELETE', '/v1/me/totp', { body: {} });
    expect(none.status).toBe(403);
    expect(none.body.errors[0].code).toBe('REVERIFICATION_REQUIRED');
    await reverifyWithTotp(b, sessionId, secret);
    const wrongPw = await b.call('DELETE', '/v1/me/totp', { body: { password: 'wrong password!' } });
    expect(wrongPw.status).toBe(422);
    expect(wrongPw.body.errors[0].meta).toMatchObject({ param: 'password', reason: 'incorrect_password' });
    const replayed = await b.call('DELETE', '/v1/me/totp', { body: { code: totpCode(h, secret) } });
    expect(replayed.status).toBe(422); // the reverification already spent this step
    const both = await b.call('DELETE', '/v1/me/totp', { body: { code: totpCode(h, secret), password: 'correct horse battery' } });
    expect(both.status).toBe(422);
    const ok = await b.call('DELETE', '/v1/me/totp', { body: { password: 'correct horse battery' } });
    expect(ok.status).toBe(200);
    expect(await hasSecondFactor(h.runtime.deps.db, userId)).toBe(false);
    expect(await verifySecondFactor(h.runtime.deps, A.instanceId, userId, 'backup_code', codes[3]!)).toBe(false);
    expect((await b.call('GET', '/v1/me')).body.two_factor_enabled).toBe(false);
    expect((await h.call('GET', `/v1/users/${userId}`, { key: A.secret })).body.two_factor_enabled).toBe(false);
    h.clock.advance(61_000); // past the attempt cap's window
    expect((await b.call('DELETE', '/v1/me/totp', { body: {} })).status).toBe(409);

    // Re-enroll, prove it, then disable by the verified session alone.
    const again = await enroll(b);
    await reverifyWithTotp(b, sessionId, again.secret);
    const byCode = await b.call('DELETE', '/v1/me/totp');
    expect(byCode.status).toBe(200);
  });

  it('caps code attempts per user: past 5 a minute, 429 TOO_MANY_ATTEMPTS', async () => {
    const { b } = await signedInClient(h, A, await newUser());
    await b.call('POST', '/v1/me/totp');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await b.call('POST', '/v1/me/totp/attempt_verification', { body: { code: '000001' } })).status);
    expect(statuses.slice(0, 5).every((s) => s === 422)).toBe(true);
    const last = await b.call('POST', '/v1/me/totp/attempt_verification', { body: { code: '000001' } });
    expect(last.status).toBe(429);
    expect(last.body.errors[0].code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    h.clock.advance(61_000);
  });
});

describe('mfa_required', () => {
  it('makes a new session of a user without MFA pending with the setup_mfa task, activated by enrollment', async () => {
    const I = await h.createInstance();
    await setSettings(h, I.instanceId, { mfa_required: true });
    const userId = await newUser(I);
    expect(await initialSessionStatus(h.runtime.deps, await instanceContext(h.runtime.deps, I.instanceId), userId)).toBe('pending');

    const { b, sessionId } = await signedInClient(h, I, userId);
    const client = (await b.call('GET', '/v1/client')).body;
    expect(client.session).toMatchObject({ id: sessionId, status: 'pending', tasks: [{ key: 'setup_mfa' }] });
    const pending = (await eventsOf(h, I.instanceId, 'session.pending')).map((e) => e.data.id);
    expect(pending).toContain(sessionId);

    // A pending session reaches only the enrollment routes of the me-surface.
    const me = await b.call('GET', '/v1/me');
    expect(me.status).toBe(403);
    expect(me.body.errors[0].meta.reason).toBe('session_pending');
    expect((await b.call('POST', '/v1/client/me/api_tokens', { body: { name: 'x', scopes: ['me:read'] } })).status).toBe(403);

    const { secret } = await enroll(b);
    const after = (await b.call('GET', '/v1/client')).body;
    expect(after.session).toMatchObject({ id: sessionId, status: 'active', tasks: [] });
    expect((await b.call('GET', '/v1/me')).status).toBe(200);
    expect(await initialSessionStatus(h.runtime.deps, await instanceContext(h.runtime.deps, I.instanceId), userId)).toBe('active');

    // While MFA is required it cannot be disabled.
    await reverifyWithTotp(b, sessionId, secret);
    h.clock.advance(30_000);
    const disable = await b.call('DELETE', '/v1/me/totp', { body: { code: totpCode(h, secret) } });
    expect(disable.status).toBe(403);
    expect(disable.body.errors[0].meta.reason).toBe('mfa_required');

    // Without the setting, sessions start active and show no task.
    const plain = await signedInClient(h, A, await newUser(A));
    expect((await plain.b.call('GET', '/v1/client')).body.session).toMatchObject({ status: 'active', tasks: [] });
  });

  it('does not hold an impersonation session (actor token) on enrollment', async () => {
    const I = await h.createInstance();
    await setSettings(h, I.instanceId, { mfa_required: true });
    const userId = await newUser(I);
    const actor = await h.call('POST', '/v1/actor_tokens', { key: I.secret, body: { user_id: userId, actor: { sub: 'admin_1' } } });
    expect(actor.status).toBe(200);
    const b = fapiClient(h, I.instanceId, { publishableKey: I.publishableKey });
    const res = await b.signInWithTicket(actor.body.token);
    expect(res.status).toBe(200);
    expect((await b.call('GET', '/v1/client')).body.session.status).toBe('active');
  });
});
