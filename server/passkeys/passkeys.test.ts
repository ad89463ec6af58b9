import { beforeAll, describe, expect, it } from 'vitest';
import { browserOf, enrollTotp, eventsDuring, instanceWith, signUp, type TestInstance } from '../testing/auth-flows';
import type { FapiTestClient } from '../testing/fapi-client';
import { fapiClient } from '../testing/fapi-client';
import { sharedHarness } from '../testing/harness';
import { claimedConsole } from '../testing/console-client';
import {
  passkeyOptionsOf,
  registerPasskeyOverFapi,
  signInWithPasskey,
  softAuthenticator,
  TEST_ORIGIN,
  type SoftAuthenticator,
} from '../testing/passkey-authenticator';
import { CHALLENGE_TTL_MS } from './challenges';
import { advanceCounter, OUT_OF_ORDER_WINDOW } from './sign-in';
import { passkeys } from '../db/schema';
import { eq } from 'drizzle-orm';

/**
 * Passkeys over the FAPI, BAPI and dashboard, with a software authenticator (ES256, "none"
 * attestation) answering the options as a browser would; @simplewebauthn/server verifies.
 */
const h = sharedHarness();
const PASSWORD = 'a long passphrase';
const PASSKEYS_ON = { password: true, email_code: true, username: true, passkey: true };
let n = 0;

let A: TestInstance;
let B: TestInstance;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
beforeAll(async () => {
  A = await instanceWith(h, { sign_in_methods: PASSKEYS_ON });
  B = await instanceWith(h, { sign_in_methods: PASSKEYS_ON });
  owner = await claimedConsole(h);
});

/** The console's dashboard API, as the account's owner. */
const dash = (method: string, path: string, body?: unknown) => owner.b.dash(method, `/accounts/${owner.accountId}${path}`, { body });
/** A new instance of the owner's account: id, publishable key and a `*` secret key. */
async function consoleInstance(): Promise<TestInstance> {
  const created = await dash('POST', '/instances', { name: 'Shop', environment: 'test' });
  const key = await h.createKey(created.body.id, '*');
  return { instanceId: created.body.id, publishableKey: created.body.publishable_key, secret: key.secret, keyId: key.id };
}

const bapi = (i: TestInstance, method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });

/** A new user of `i` signed in on a fresh browser (by sign-up), with its own authenticator. */
async function signedInUser(i = A) {
  const b = browserOf(h, i);
  const email = `pk${++n}@example.com`;
  const { userId, sessionId } = await signUp(h, b, { email_address: email, password: PASSWORD });
  return { b, email, userId, sessionId, authn: softAuthenticator() };
}

const errorOf = (res: { body: { errors?: { code: string; meta: Record<string, unknown> }[] } }) => res.body.errors?.[0];

describe('the setting', () => {
  it('is off by default: passkey routes answer 403 passkeys_disabled, sign-in refuses the strategy, the environment offers none', async () => {
    const off = await instanceWith(h);
    const b = browserOf(h, off);
    await signUp(h, b, { email_address: `off${++n}@example.com`, password: PASSWORD });
    for (const [method, path] of [
      ['POST', '/v1/me/passkeys/prepare_registration'],
      ['GET', '/v1/me/passkeys'],
      ['DELETE', '/v1/me/passkeys/passkey_x'],
    ] as const) {
      const res = await b.call(method, path);
      expect(res.status, path).toBe(403);
      expect(errorOf(res)).toMatchObject({ code: 'FORBIDDEN', meta: { reason: 'passkeys_disabled' } });
    }
    const started = await browserOf(h, off).call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    expect(started.status).toBe(422);
    expect(errorOf(started)).toMatchObject({ meta: { param: 'strategy', reason: 'strategy_not_allowed' } });
    const env = await browserOf(h, off).call('GET', '/v1/environment');
    expect(env.body.user_settings.first_factors).not.toContain('passkey');
    expect(env.body.user_settings.second_factors).not.toContain('passkey');

    const on = await browserOf(h, A).call('GET', '/v1/environment');
    expect(on.body.user_settings.first_factors).toContain('passkey');
    expect(on.body.user_settings.second_factors).toContain('passkey');
  });

  it('is switched on and off through the instance settings (dashboard)', async () => {
    const i = await consoleInstance();
    expect((await dash('GET', `/instances/${i.instanceId}`)).body.settings.sign_in_methods.passkey).toBe(false);
    const patched = await dash('PATCH', `/instances/${i.instanceId}/settings`, {
      sign_in_methods: { ...PASSKEYS_ON, phone_code: false, email_link: false },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.sign_in_methods.passkey).toBe(true);
    h.clock.advance(6_000); // past the instance cache
    const env = await browserOf(h, i).call('GET', '/v1/environment');
    expect(env.body.user_settings.first_factors).toContain('passkey');
  });
});

describe('registration (FAPI /v1/me/passkeys)', () => {
  it('answers creation options for this relying party, then stores the passkey: passkey.created, audited, listed', async () => {
    const u = await signedInUser();
    const prepared = await u.b.call('POST', '/v1/me/passkeys/prepare_registration');
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    expect(prepared.body).toMatchObject({
      object: 'passkey_registration',
      expire_at: h.clock.now() + CHALLENGE_TTL_MS,
      options: {
        rp: { id: 'localhost', name: 'Test' },
        user: { id: Buffer.from(u.userId).toString('base64url'), name: u.email },
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        attestation: 'none',
        excludeCredentials: [],
      },
    });
    const { response, credential } = u.authn.register(prepared.body.options, TEST_ORIGIN);
    const { result: created, events } = await eventsDuring(h, A.instanceId, () =>
      u.b.call('POST', '/v1/me/passkeys', { body: { public_key_credential: JSON.stringify(response), name: 'Laptop' } }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      object: 'passkey',
      user_id: u.userId,
      name: 'Laptop',
      credential_id: credential.id.toString('base64url'),
      aaguid: '00000000-0000-0000-0000-000000000000',
      transports: ['internal'],
      device_type: 'singleDevice',
      backed_up: false,
      rp_id: 'localhost',
      last_used_at: null,
    });
    expect(created.body.id).toMatch(/^passkey_[0-9A-Z]{26}$/);
    expect(created.body).not.toHaveProperty('public_key');
    expect(events.map((e) => e.type)).toEqual(['passkey.created']);
    expect(events[0]!.data).toMatchObject({ object: 'passkey', id: created.body.id });
    const log = await bapi(A, 'GET', `/v1/audit_logs?target=${created.body.id}&action=passkey.created`);
    expect(log.body.data).toMatchObject([{ action: 'passkey.created', actor: `session:${u.sessionId}`, target: created.body.id }]);

    const list = await u.b.call('GET', '/v1/me/passkeys');
    expect(list.body).toMatchObject({ object: 'list', has_more: false, data: [{ id: created.body.id, name: 'Laptop' }] });
    // The authenticator that holds one is not asked again.
    const again = await u.b.call('POST', '/v1/me/passkeys/prepare_registration');
    expect(again.body.options.excludeCredentials).toEqual([
      { id: created.body.credential_id, type: 'public-key', transports: ['internal'] },
    ]);
  });

  it('spends the challenge once: a replayed answer, an expired challenge or none at all is challenge_invalid', async () => {
    const u = await signedInUser();
    const none = await u.b.call('POST', '/v1/me/passkeys', {
      body: {
        public_key_credential: u.authn.register(
          { challenge: 'AAAA', rp: { id: 'localhost', name: 'x' }, user: { id: 'dXNlcg', name: 'u' } },
          TEST_ORIGIN,
        ).response,
      },
    });
    expect(none.status).toBe(422);
    expect(errorOf(none)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'challenge_invalid' } });

    const prepared = await u.b.call('POST', '/v1/me/passkeys/prepare_registration');
    const { response } = u.authn.register(prepared.body.options, TEST_ORIGIN);
    expect((await u.b.call('POST', '/v1/me/passkeys', { body: { public_key_credential: response } })).status).toBe(200);
    const replayed = await u.b.call('POST', '/v1/me/passkeys', { body: { public_key_credential: response } });
    expect(errorOf(replayed)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'challenge_invalid' } });

    const late = await u.b.call('POST', '/v1/me/passkeys/prepare_registration');
    h.clock.advance(CHALLENGE_TTL_MS + 1);
    const expired = await u.b.call('POST', '/v1/me/passkeys', {
      body: { public_key_credential: u.authn.register(late.body.options, TEST_ORIGIN).response },
    });
    expect(errorOf(expired)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'challenge_invalid' } });
    expect((await u.b.call('GET', '/v1/me/passkeys')).body.data).toHaveLength(1);
  });

  it('refuses another origin, another relying party, no user verification, and another session’s challenge; a refusal spends the challenge', async () => {
    const u = await signedInUser();
    const cases: [string, (o: object) => ReturnType<SoftAuthenticator['register']>['response']][] = [
      ['origin', (o) => u.authn.register(o as never, 'https://evil.example').response],
      ['rp', (o) => u.authn.register(o as never, TEST_ORIGIN, { rpId: 'evil.example' }).response],
      ['uv', (o) => u.authn.register(o as never, TEST_ORIGIN, { userVerified: false }).response],
    ];
    for (const [what, answer] of cases) {
      const prepared = await u.b.call('POST', '/v1/me/passkeys/prepare_registration');
      const response = answer(prepared.body.options);
      const res = await u.b.call('POST', '/v1/me/passkeys', { body: { public_key_credential: response } });
      expect(res.status, what).toBe(422);
      expect(errorOf(res), what).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'verification_failed' } });
      const retried = await u.b.call('POST', '/v1/me/passkeys', { body: { public_key_credential: response } });
      expect(errorOf(retried), what).toMatchObject({ meta: { reason: 'challenge_invalid' } });
    }
    // The same user on another device cannot answer this session's challenge.
    const prepared = await u.b.call('POST', '/v1/me/passkeys/prepare_registration');
    const other = browserOf(h, A);
    const ticket = (await bapi(A, 'POST', '/v1/sign_in_tokens', { user_id: u.userId })).body.token;
    expect((await other.signInWithTicket(ticket)).status).toBe(200);
    const stolen = await other.call('POST', '/v1/me/passkeys', {
      body: { public_key_credential: u.authn.register(prepared.body.options, TEST_ORIGIN).response },
    });
    expect(errorOf(stolen)).toMatchObject({ meta: { reason: 'challenge_invalid' } });
    expect((await u.b.call('GET', '/v1/me/passkeys')).body.data).toEqual([]);
  });

  it('refuses malformed answers with a 422 naming the field, never a 500', async () => {
    const u = await signedInUser();
    for (const body of [
      {},
      { public_key_credential: 'not json' },
      { public_key_credential: { id: 'x', type: 'public-key' } },
      { public_key_credential: { id: '!!', rawId: '!!', type: 'public-key', response: {} } },
    ]) {
      const res = await u.b.call('POST', '/v1/me/passkeys', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(errorOf(res)).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(String(errorOf(res)!.meta.param)).toMatch(/^public_key_credential/);
    }
  });

  it('renames and deletes (passkey.deleted, audited); another user’s passkey is 404', async () => {
    const u = await signedInUser();
    const other = await signedInUser();
    const pk = await registerPasskeyOverFapi(u.b, u.authn);
    expect(pk).toMatchObject({ name: 'Passkey' });
    const renamed = await u.b.call('PATCH', `/v1/me/passkeys/${pk.id}`, { body: { name: '  Phone  ' } });
    expect(renamed.body).toMatchObject({ id: pk.id, name: 'Phone' });
    expect((await u.b.call('PATCH', `/v1/me/passkeys/${pk.id}`, { body: { name: '' } })).status).toBe(422);
    expect((await other.b.call('PATCH', `/v1/me/passkeys/${pk.id}`, { body: { name: 'Mine' } })).status).toBe(404);
    expect((await other.b.call('DELETE', `/v1/me/passkeys/${pk.id}`)).status).toBe(404);

    const { result: deleted, events } = await eventsDuring(h, A.instanceId, () => u.b.call('DELETE', `/v1/me/passkeys/${pk.id}`));
    expect(deleted.body).toEqual({ object: 'passkey', id: pk.id, deleted: true });
    expect(events.map((e) => e.type)).toEqual(['passkey.deleted']);
    const log = await bapi(A, 'GET', `/v1/audit_logs?target=${pk.id}`);
    expect(log.body.data.map((e: { action: string }) => e.action).sort()).toEqual([
      'passkey.created',
      'passkey.deleted',
      'passkey.renamed',
    ]);
    expect((await u.b.call('GET', '/v1/me/passkeys')).body.data).toEqual([]);
    // The deleted passkey signs in no more.
    const out = await signInWithPasskey(browserOf(h, A), u.authn);
    expect(errorOf(out)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'unknown_credential' } });
  });
});

/** The user of a fresh sign-up with a registered passkey. */
async function userWithPasskey(i = A) {
  const u = await signedInUser(i);
  const passkey = await registerPasskeyOverFapi(u.b, u.authn);
  return { ...u, passkey };
}
const sessionOf = async (b: FapiTestClient) =>
  (await b.call('GET', '/v1/client')).body.sessions[0] as { id: string; status: string; user_id: string } | undefined;

describe('sign-in with a passkey (first factor)', () => {
  it('username-less: the attempt has no identifier and offers any credential; the passkey names the user and signs in', async () => {
    const u = await userWithPasskey();
    const b = browserOf(h, A);
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.response).toMatchObject({
      status: 'needs_first_factor',
      identifier: null,
      supported_first_factors: [{ strategy: 'passkey' }],
      first_factor_verification: { strategy: 'passkey', status: 'unverified', expire_at: h.clock.now() + CHALLENGE_TTL_MS },
    });
    const options = passkeyOptionsOf(started);
    expect(options).toMatchObject({ rpId: 'localhost', allowCredentials: [], userVerification: 'required' });
    // The attempt takes nothing but a passkey.
    const password = await b.call('POST', `/v1/client/sign_ins/${started.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'password', password: PASSWORD },
    });
    expect(errorOf(password)).toMatchObject({ meta: { reason: 'strategy_not_allowed' } });

    const before = b.token;
    const done = await b.call('POST', `/v1/client/sign_ins/${started.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'passkey', public_key_credential: u.authn.assert(options, TEST_ORIGIN) },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response).toMatchObject({
      status: 'complete',
      first_factor_verification: { strategy: 'passkey', status: 'verified' },
    });
    expect(b.token).not.toBe(before);
    expect(await sessionOf(b)).toMatchObject({ status: 'active', user_id: u.userId });
    const listed = (await b.call('GET', '/v1/me/passkeys')).body.data[0];
    expect(listed).toMatchObject({ id: u.passkey.id, last_used_at: h.clock.now() });
  });

  it('with an identifier: passkey is offered, and prepare_first_factor allows that user’s credentials (a made-up one for nobody)', async () => {
    const u = await userWithPasskey();
    const b = browserOf(h, A);
    const created = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } });
    expect(created.body.response.supported_first_factors).toContainEqual({ strategy: 'passkey' });
    const id = created.body.response.id;
    const prepared = await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'passkey' } });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const options = passkeyOptionsOf(prepared);
    expect(options.allowCredentials).toEqual([{ id: u.passkey.credential_id, type: 'public-key', transports: ['internal'] }]);
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      body: { strategy: 'passkey', public_key_credential: u.authn.assert(options, TEST_ORIGIN, { withoutUserHandle: true }) },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response).toMatchObject({ status: 'complete', identifier: u.email });
    expect(await sessionOf(b)).toMatchObject({ status: 'active', user_id: u.userId });

    // Nobody, or a user without passkeys: one credential id all the same, stable per identifier.
    for (const identifier of ['nobody@example.com', (await signedInUser()).email]) {
      const shapes = [];
      for (let k = 0; k < 2; k++) {
        const c = browserOf(h, A);
        const attempt = await c.call('POST', '/v1/client/sign_ins', { body: { identifier } });
        const p = await c.call('POST', `/v1/client/sign_ins/${attempt.body.response.id}/prepare_first_factor`, {
          body: { strategy: 'passkey' },
        });
        expect(p.status).toBe(200);
        shapes.push(passkeyOptionsOf(p).allowCredentials);
      }
      expect(shapes[0]).toHaveLength(1);
      expect(shapes[0]![0]!.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(shapes[1]).toEqual(shapes[0]);
    }
  });

  it('another user’s passkey does not complete an attempt for this identifier', async () => {
    const u = await userWithPasskey();
    const other = await userWithPasskey();
    const b = browserOf(h, A);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } })).body.response.id;
    const prepared = await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'passkey' } });
    const res = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
      body: {
        strategy: 'passkey',
        public_key_credential: other.authn.assert({ ...passkeyOptionsOf(prepared), allowCredentials: [] }, TEST_ORIGIN),
      },
    });
    expect(errorOf(res)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'unknown_credential' } });
    expect(await sessionOf(b)).toBeUndefined();
  });

  it('the challenge is the attempt’s, single use and short-lived; another browser cannot use the attempt', async () => {
    const u = await userWithPasskey();
    const b = browserOf(h, A);
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    const id = started.body.response.id;
    const answer = u.authn.assert(passkeyOptionsOf(started), TEST_ORIGIN);
    // Another browser: the attempt is not its own (404); the answer on its own attempt does not verify.
    const attacker = browserOf(h, A);
    expect(
      (
        await attacker.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
          body: { strategy: 'passkey', public_key_credential: answer },
        })
      ).status,
    ).toBe(404);
    const own = await attacker.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    const swapped = await attacker.call('POST', `/v1/client/sign_ins/${own.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'passkey', public_key_credential: answer },
    });
    expect(errorOf(swapped)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'verification_failed' } });
    expect(await sessionOf(attacker)).toBeUndefined();

    expect(
      (
        await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
          body: { strategy: 'passkey', public_key_credential: answer },
        })
      ).status,
    ).toBe(200);
    const replay = browserOf(h, A);
    const second = await replay.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    const replayed = await replay.call('POST', `/v1/client/sign_ins/${second.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'passkey', public_key_credential: answer },
    });
    expect(errorOf(replayed)).toMatchObject({ code: 'PASSKEY_INVALID' });

    const slow = browserOf(h, A);
    const late = await slow.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    h.clock.advance(CHALLENGE_TTL_MS + 1);
    const expired = await slow.call('POST', `/v1/client/sign_ins/${late.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'passkey', public_key_credential: u.authn.assert(passkeyOptionsOf(late), TEST_ORIGIN) },
    });
    expect(errorOf(expired)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'challenge_invalid' } });
  });

  it('a cloned authenticator (its counter behind) is refused and disables the passkey: the clone trying higher, and the original, are refused too', async () => {
    const u = await userWithPasskey();
    expect((await signInWithPasskey(browserOf(h, A), u.authn)).status).toBe(200);
    expect((await signInWithPasskey(browserOf(h, A), u.authn)).status).toBe(200);
    const genuine = u.authn.credentials[0]!;
    const cloned = u.authn.clone({ ...genuine, signCount: 0 });
    const b = browserOf(h, A);
    const { result: out, events } = await eventsDuring(h, A.instanceId, () =>
      signInWithPasskey(b, u.authn, { credential: cloned, signCount: 2 }),
    );
    expect(out.status).toBe(422);
    expect(errorOf(out)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'sign_count_regressed' } });
    expect(await sessionOf(b)).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['passkey.updated']);
    expect(events[0]!.data).toMatchObject({ id: u.passkey.id, status: 'disabled', disabled_reason: 'sign_count_regressed' });
    const log = await bapi(A, 'GET', `/v1/audit_logs?target=${u.passkey.id}&action=passkey.sign_count_regressed`);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0].details).toMatchObject({ user_id: u.userId, stored: 2, presented: 2, disabled: true });

    // The clone again with a counter ahead, and the genuine authenticator: neither signs in.
    for (const [who, credential, signCount] of [
      ['clone', cloned, 50],
      ['genuine', genuine, 3],
    ] as const) {
      const again = browserOf(h, A);
      const refused = await signInWithPasskey(again, u.authn, { credential, signCount });
      expect(errorOf(refused), who).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'passkey_disabled' } });
      expect(await sessionOf(again)).toBeUndefined();
    }
    // The user sees it disabled; the console too; deleted, the same authenticator registers anew and signs in.
    expect((await u.b.call('GET', '/v1/me/passkeys')).body.data).toEqual([
      expect.objectContaining({ id: u.passkey.id, status: 'disabled', disabled_reason: 'sign_count_regressed' }),
    ]);
    expect((await bapi(A, 'GET', `/v1/users/${u.userId}/passkeys`)).body.data[0]).toMatchObject({ status: 'disabled' });
    expect((await u.b.call('DELETE', `/v1/me/passkeys/${u.passkey.id}`)).status).toBe(200);
    u.authn.credentials.length = 0;
    await registerPasskeyOverFapi(u.b, u.authn);
    expect((await signInWithPasskey(browserOf(h, A), u.authn)).status).toBe(200);
  });

  it('two genuine answers arriving out of order (6 before 5): the late one alone is refused, the passkey stays usable', async () => {
    const u = await userWithPasskey();
    expect((await signInWithPasskey(browserOf(h, A), u.authn)).status).toBe(200);
    // Two tabs start a sign-in; the authenticator answers the first (counter 2), then the second (3); the second reaches the server first.
    const [tab1, tab2] = [browserOf(h, A), browserOf(h, A)];
    const started1 = await tab1.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    const started2 = await tab2.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    const answer1 = u.authn.assert(passkeyOptionsOf(started1), TEST_ORIGIN);
    const answer2 = u.authn.assert(passkeyOptionsOf(started2), TEST_ORIGIN);
    const attempt = (b: FapiTestClient, started: typeof started1, answer: unknown) =>
      b.call('POST', `/v1/client/sign_ins/${started.body.response.id}/attempt_first_factor`, {
        body: { strategy: 'passkey', public_key_credential: answer },
      });
    expect((await attempt(tab2, started2, answer2)).status).toBe(200);
    const { result: late, events } = await eventsDuring(h, A.instanceId, () => attempt(tab1, started1, answer1));
    expect(late.status).toBe(422);
    expect(errorOf(late)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'sign_count_late' } });
    expect(events).toEqual([]);
    expect((await bapi(A, 'GET', `/v1/users/${u.userId}/passkeys`)).body.data[0]).toMatchObject({ status: 'active' });
    // Still the user's: the next sign-in passes.
    expect((await signInWithPasskey(browserOf(h, A), u.authn)).status).toBe(200);
  });

  it('a clone is still caught: a counter far behind, or the stored one again, disables the passkey', async () => {
    for (const behind of [OUT_OF_ORDER_WINDOW + 1, 0]) {
      const u = await userWithPasskey();
      for (let i = 0; i < OUT_OF_ORDER_WINDOW + 2; i++) expect((await signInWithPasskey(browserOf(h, A), u.authn)).status).toBe(200);
      const stored = u.authn.credentials[0]!.signCount;
      const out = await signInWithPasskey(browserOf(h, A), u.authn, { signCount: stored - behind });
      expect(errorOf(out), `behind ${behind}`).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'sign_count_regressed' } });
      expect((await bapi(A, 'GET', `/v1/users/${u.userId}/passkeys`)).body.data[0]).toMatchObject({
        status: 'disabled',
        disabled_reason: 'sign_count_regressed',
      });
    }
  });

  it('a lagging clone answering a challenge issued after the last sign-in is caught, however small its lag', async () => {
    const u = await userWithPasskey();
    for (let i = 0; i < 3; i++) expect((await signInWithPasskey(browserOf(h, A), u.authn)).status).toBe(200);
    const stored = u.authn.credentials[0]!.signCount;
    h.clock.advance(1000);
    const out = await signInWithPasskey(browserOf(h, A), u.authn, { signCount: stored - 2 });
    expect(errorOf(out)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'sign_count_regressed' } });
    expect((await bapi(A, 'GET', `/v1/users/${u.userId}/passkeys`)).body.data[0]).toMatchObject({
      status: 'disabled',
      disabled_reason: 'sign_count_regressed',
    });
  });

  it('moves the counter from what is stored at that moment, not from what was read: two genuine answers read together both count', async () => {
    const u = await userWithPasskey();
    const [read] = await h.runtime.deps.db.select().from(passkeys).where(eq(passkeys.id, u.passkey.id));
    expect(await advanceCounter(h.runtime.deps, read!, 3, false)).toBe(true);
    expect(await advanceCounter(h.runtime.deps, read!, 4, false)).toBe(true);
    expect(await advanceCounter(h.runtime.deps, read!, 4, false)).toBe(false);
    expect(await advanceCounter(h.runtime.deps, read!, 2, false)).toBe(false);
    const [now] = await h.runtime.deps.db.select().from(passkeys).where(eq(passkeys.id, u.passkey.id));
    expect(now).toMatchObject({ signCount: 4, disabledAt: null });
  });

  it('refuses without user verification, from another origin or for another relying party', async () => {
    const u = await userWithPasskey();
    for (const o of [{ userVerified: false }, { origin: 'https://evil.example' }, { rpId: 'evil.example' }]) {
      const b = browserOf(h, A);
      const out = await signInWithPasskey(b, u.authn, { ...o, credential: u.authn.credentials[0] });
      expect(errorOf(out), JSON.stringify(o)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'verification_failed' } });
      expect(await sessionOf(b)).toBeUndefined();
    }
  });

  it('refuses another instance’s passkey, though both share the rpId of PUBLIC_URL', async () => {
    const u = await userWithPasskey(B);
    const b = browserOf(h, A);
    const out = await signInWithPasskey(b, u.authn);
    expect(errorOf(out)).toMatchObject({ code: 'PASSKEY_INVALID', meta: { reason: 'unknown_credential' } });
    expect(await sessionOf(b)).toBeUndefined();
    expect((await signInWithPasskey(browserOf(h, B), u.authn)).status).toBe(200);
  });

  it('a passkey is two factors: a user with TOTP signs in with it at once', async () => {
    const u = await userWithPasskey();
    await enrollTotp(h, A.instanceId, u.userId);
    const b = browserOf(h, A);
    const out = await signInWithPasskey(b, u.authn);
    expect(out.body.response).toMatchObject({ status: 'complete' });
    expect(await sessionOf(b)).toMatchObject({ status: 'active' });
  });

  it('on a custom domain the relying party is that domain', async () => {
    const i = await consoleInstance();
    const domain = `auth${++n}.customer.test`;
    const patched = await dash('PATCH', `/instances/${i.instanceId}/settings`, { custom_domain: domain, sign_in_methods: PASSKEYS_ON });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    h.clock.advance(6_000);
    const b = fapiClient(h, i.instanceId, { host: domain, publishableKey: i.publishableKey });
    const { userId } = await signUp(h, b, { email_address: `cd${n}@example.com`, password: PASSWORD });
    const authn = softAuthenticator();
    const prepared = await b.call('POST', '/v1/me/passkeys/prepare_registration');
    expect(prepared.body.options.rp.id).toBe(domain);
    const origin = `https://${domain}`;
    expect(
      (await b.call('POST', '/v1/me/passkeys', { body: { public_key_credential: authn.register(prepared.body.options, origin).response } }))
        .status,
    ).toBe(200);
    const c = fapiClient(h, i.instanceId, { host: domain, publishableKey: i.publishableKey });
    const out = await signInWithPasskey(c, authn, { origin });
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(await sessionOf(c)).toMatchObject({ user_id: userId });
    // The same answer from PUBLIC_URL's origin is not this relying party's.
    const wrong = await signInWithPasskey(fapiClient(h, i.instanceId, { host: domain, publishableKey: i.publishableKey }), authn, {
      origin: TEST_ORIGIN,
    });
    expect(errorOf(wrong)).toMatchObject({ meta: { reason: 'verification_failed' } });
  });
});

describe('a passkey as the second factor', () => {
  it('is offered beside TOTP after a password, and completes the sign-in', async () => {
    const u = await userWithPasskey();
    await enrollTotp(h, A.instanceId, u.userId);
    const b = browserOf(h, A);
    const first = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: PASSWORD } });
    expect(first.body.response).toMatchObject({
      status: 'needs_second_factor',
      supported_second_factors: [{ strategy: 'totp' }, { strategy: 'backup_code' }, { strategy: 'passkey' }],
    });
    const id = first.body.response.id;
    const prepared = await b.call('POST', `/v1/client/sign_ins/${id}/prepare_second_factor`, { body: { strategy: 'passkey' } });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const options = passkeyOptionsOf(prepared, 'second');
    expect(options.allowCredentials).toEqual([{ id: u.passkey.credential_id, type: 'public-key', transports: ['internal'] }]);
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, {
      body: { strategy: 'passkey', public_key_credential: u.authn.assert(options, TEST_ORIGIN) },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response).toMatchObject({ status: 'complete', second_factor_verification: { strategy: 'passkey' } });
    expect(await sessionOf(b)).toMatchObject({ status: 'active', user_id: u.userId });
  });

  it('under mfa_required a passkey is the factor: asked after a password, and registering one completes setup_mfa', async () => {
    const i = await instanceWith(h, { sign_in_methods: PASSKEYS_ON, mfa_required: true });
    const b = browserOf(h, i);
    const email = `mfa${++n}@example.com`;
    const { userId } = await signUp(h, b, { email_address: email, password: PASSWORD });
    expect(await sessionOf(b)).toMatchObject({ status: 'pending', tasks: [{ key: 'setup_mfa' }] });
    const authn = softAuthenticator();
    await registerPasskeyOverFapi(b, authn);
    expect(await sessionOf(b)).toMatchObject({ status: 'active', tasks: [] });

    const c = browserOf(h, i);
    const first = await c.call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: PASSWORD } });
    expect(first.body.response).toMatchObject({ status: 'needs_second_factor', supported_second_factors: [{ strategy: 'passkey' }] });
    expect(await sessionOf(c)).toMatchObject({ status: 'pending', tasks: [] });
    // Pending on its second factor, the session may not register a passkey of its own.
    const sneaky = await c.call('POST', '/v1/me/passkeys/prepare_registration');
    expect(errorOf(sneaky)).toMatchObject({ code: 'FORBIDDEN', meta: { reason: 'session_pending' } });
    const totp = await c.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: '123456' },
    });
    expect(errorOf(totp)).toMatchObject({ meta: { param: 'strategy' } });
    const prepared = await c.call('POST', `/v1/client/sign_ins/${first.body.response.id}/prepare_second_factor`, {
      body: { strategy: 'passkey' },
    });
    const done = await c.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'passkey', public_key_credential: authn.assert(passkeyOptionsOf(prepared, 'second'), TEST_ORIGIN) },
    });
    expect(done.body.response).toMatchObject({ status: 'complete' });
    expect(await sessionOf(c)).toMatchObject({ status: 'active', user_id: userId });
  });

  it('without mfa_required a passkey is not asked after a password', async () => {
    const u = await userWithPasskey();
    const b = browserOf(h, A);
    const out = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email, password: PASSWORD } });
    expect(out.body.response).toMatchObject({ status: 'complete' });
  });
});

describe('BAPI and the console', () => {
  it('list and delete a user’s passkeys (users:read / users:write), 404 across instances', async () => {
    const u = await userWithPasskey();
    const list = await bapi(A, 'GET', `/v1/users/${u.userId}/passkeys`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, data: [{ id: u.passkey.id, user_id: u.userId }] });
    expect((await bapi(B, 'GET', `/v1/users/${u.userId}/passkeys`)).status).toBe(404);
    expect((await bapi(B, 'DELETE', `/v1/users/${u.userId}/passkeys/${u.passkey.id}`)).status).toBe(404);
    const reader = await h.createKey(A.instanceId, 'users:read');
    const refused = await h.call('DELETE', `/v1/users/${u.userId}/passkeys/${u.passkey.id}`, { key: reader.secret });
    expect(refused.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'users:write' } });

    const { result: deleted, events } = await eventsDuring(h, A.instanceId, () =>
      bapi(A, 'DELETE', `/v1/users/${u.userId}/passkeys/${u.passkey.id}`),
    );
    expect(deleted.body).toEqual({ object: 'passkey', id: u.passkey.id, deleted: true });
    expect(events.map((e) => e.type)).toEqual(['passkey.deleted']);
    const log = await bapi(A, 'GET', `/v1/audit_logs?target=${u.passkey.id}&action=passkey.deleted`);
    expect(log.body.data).toMatchObject([{ actor: `key:${A.keyId}` }]);
    expect((await bapi(A, 'GET', `/v1/users/${u.userId}/passkeys`)).body.data).toEqual([]);
  });

  it('the console lists a user’s passkeys (viewer) and deletes one (admin), audited with the operator', async () => {
    const i = await consoleInstance();
    await dash('PATCH', `/instances/${i.instanceId}/settings`, { sign_in_methods: PASSKEYS_ON });
    h.clock.advance(6_000);
    const u = await userWithPasskey(i);
    const base = `/instances/${i.instanceId}/users/${u.userId}/passkeys`;
    const list = await dash('GET', base);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data).toMatchObject([{ id: u.passkey.id }]);
    expect((await dash('DELETE', `${base}/${u.passkey.id}`)).body).toEqual({ object: 'passkey', id: u.passkey.id, deleted: true });
    expect((await dash('DELETE', `${base}/${u.passkey.id}`)).status).toBe(404);
    const log = await bapi(i, 'GET', `/v1/audit_logs?target=${u.passkey.id}&action=passkey.deleted`);
    expect(log.body.data).toMatchObject([{ actor: `operator:${owner.operator.id}` }]);
  });
});
