import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserOf, codeSentTo, enrollTotp, instanceWith, type TestInstance } from '../testing/auth-flows';
import type { FapiResult, FapiTestClient } from '../testing/fapi-client';
import { sharedHarness } from '../testing/harness';
import { browseUntil, startOidcIdp } from '../testing/social-idps';
import type { InstanceSettings } from '../instances/settings';
import { WAYS, type WayKind } from './complete-sign-in';

/**
 * Every rule of the ending of a sign-in (complete-sign-in.ts) against every way in, over HTTP
 * as a browser drives it. A way added to WAYS without a driver here fails the first test.
 *
 * Ways that go through an identity provider or a platform (SAML, OIDC SSO, LTI) have their
 * own suites (server/sso, server/lti) for their browser binding; the rows here drive the
 * social way through a real OpenID Provider on loopback.
 */
const h = sharedHarness({ env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
const PASSWORD = 'a long passphrase';
const SSO_DOMAIN = 'corp.test';
const APP = 'https://app.example.com/after';
let idp: Awaited<ReturnType<typeof startOidcIdp>>;
let n = 0;

interface Person {
  id: string;
  email: string;
  username: string;
  phone: string;
  sub: string;
}
interface World {
  i: TestInstance;
  person(opts?: { ssoAddress?: boolean }): Promise<Person>;
}
const callbackOf = (t: TestInstance) => `http://localhost:3000/fapi/${t.instanceId}/v1/oauth_callback`;
const ALL_METHODS = { password: true, email_code: true, username: true, phone_code: true, email_link: true, email_link_same_browser: false };
const bapi = (i: TestInstance, method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });

/** An instance with every first factor on and an active SSO connection for corp.test (its social provider comes once the IdP knows every callback). */
async function world(settings: Partial<InstanceSettings> = {}): Promise<World> {
  const i = await instanceWith(h, { sign_in_methods: ALL_METHODS, redirect_urls: ['https://app.example.com/'], ...settings });
  worlds.push(i);
  const org = await bapi(i, 'POST', '/v1/organizations', { name: 'Corp' });
  const domain = await bapi(i, 'POST', `/v1/organizations/${org.body.id}/domains`, { name: SSO_DOMAIN });
  await bapi(i, 'PATCH', `/v1/organizations/${org.body.id}/domains/${domain.body.id}`, { verified: true });
  const cert = readFileSync(join(__dirname, '../sso/fixtures/idp-cert.pem'), 'utf8');
  const conn = await bapi(i, 'POST', '/v1/sso_connections', {
    organization_id: org.body.id,
    provider: 'saml',
    name: 'Corp IdP',
    domains: [SSO_DOMAIN],
    active: true,
    saml: { idp_entity_id: 'https://idp.corp.test', idp_sso_url: 'https://idp.corp.test/sso', idp_certificates: [cert] },
  });
  expect(conn.status, JSON.stringify(conn.body)).toBe(201);
  return {
    i,
    async person(opts = {}) {
      const k = ++n;
      const email = `person${k}@example.com`;
      const body = {
        email_address: opts.ssoAddress ? [email, `person${k}@${SSO_DOMAIN}`] : [email],
        username: `person${k}`,
        phone_number: [`+1555010${String(k).padStart(4, '0')}`],
        password: PASSWORD,
      };
      const res = await bapi(i, 'POST', '/v1/users', body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const sub = `sub-${k}`;
      idp.accounts.set(sub, { email, email_verified: true });
      return { id: res.body.id, email, username: body.username, phone: body.phone_number[0]!, sub };
    },
  };
}
const worlds: TestInstance[] = [];

/** What a way answered: its last response, which is an error or a sign-in that went through. */
type Outcome = Pick<FapiResult, 'status' | 'body'>;

/** A browser's sign-in by each way; `w` the instance, `p` the person (null for sign-up). */
type Driver = (w: World, b: FapiTestClient, p: Person) => Promise<Outcome>;

const createAttempt = async (b: FapiTestClient, identifier: string) => {
  const res = await b.call('POST', '/v1/client/sign_ins', { body: { identifier } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.response.id as string;
};
const prepare = (b: FapiTestClient, id: string, strategy: string) => b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy } });
const attempt = (b: FapiTestClient, id: string, body: Record<string, string>) => b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, { body });

const DRIVERS: Record<Exclude<WayKind, 'sso' | 'lti'> | 'email_code' | 'phone_code', Driver> = {
  password: async (_w, b, p) => b.call('POST', '/v1/client/sign_ins', { body: { identifier: p.username, password: PASSWORD } }),
  email_code: async (_w, b, p) => {
    const id = await createAttempt(b, p.email);
    await prepare(b, id, 'email_code');
    return attempt(b, id, { strategy: 'email_code', code: await codeSentTo(h, p.email) });
  },
  code: async (_w, b, p) => {
    const id = await createAttempt(b, p.phone);
    await prepare(b, id, 'phone_code');
    const sms = (await h.smsOutbox(p.phone))[0]!;
    return attempt(b, id, { strategy: 'phone_code', code: /(\d{6})/.exec(sms.body)![1]! });
  },
  phone_code: async (w, b, p) => DRIVERS.code(w, b, p),
  link: async (w, b, p) => {
    const id = await createAttempt(b, p.email);
    const prepared = await prepare(b, id, 'email_link');
    if (prepared.status !== 200) return prepared;
    const link = new URL(String((await h.outbox(p.email))[0]!.data.url));
    // Opened in the same browser: the link's request carries its cookie.
    const clicked = await b.call('GET', `${link.pathname.replace(`/fapi/${w.i.instanceId}`, '')}${link.search}`);
    expect(clicked.status).toBe(303);
    const status = new URL(clicked.headers.get('location')!).searchParams.get('status');
    const polled = await b.call('GET', `/v1/client/sign_ins/${id}`);
    return status === 'verified' ? polled : { ...polled, status: 403, body: { errors: [{ code: 'LINK_FAILED', meta: { status } }] } };
  },
  reset: async (_w, b, p) => {
    const id = await createAttempt(b, p.email);
    await prepare(b, id, 'reset_password_email_code');
    const verified = await attempt(b, id, { strategy: 'reset_password_email_code', code: await codeSentTo(h, p.email) });
    if (verified.status !== 200) return verified;
    return b.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { body: { password: `${PASSWORD} renewed ${++n}` } });
  },
  // The BAPI may refuse to mint the ticket already (a banned user): that answer is the outcome.
  ticket: async (w, b, p) => {
    const minted = await bapi(w.i, 'POST', '/v1/sign_in_tokens', { user_id: p.id });
    return minted.status === 200 ? b.signInWithTicket(minted.body.token) : minted;
  },
  impersonation: async (w, b, p) => {
    const minted = await bapi(w.i, 'POST', '/v1/actor_tokens', { user_id: p.id, actor: { sub: 'user_support' } });
    return minted.status === 200 ? b.signInWithTicket(minted.body.token) : minted;
  },
  social: async (w, b, p) => {
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_acme', redirect_url: APP } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    idp.loginAs = p.sub;
    const back = await browseUntil(started.body.response.first_factor_verification.external_verification_redirect_url, callbackOf(w.i));
    const cookie = b.cookieHeader();
    const res = await h.request('GET', `/fapi/${w.i.instanceId}/v1/oauth_callback${back.search}`, { headers: cookie ? { cookie } : {} });
    b.keepCookies(res.headers);
    if (res.status !== 303) {
      // A refusal is an HTML page naming its reason: "… (USER_BANNED)".
      const reason = [...(await res.text()).matchAll(/\(([A-Za-z_]+)\)/g)].pop()?.[1] ?? null;
      return { status: res.status, body: { errors: [{ code: reason, meta: { reason } }] } };
    }
    return b.call('GET', `/v1/client/sign_ins/${started.body.response.id}`);
  },
  sign_up: async (_w, b) => {
    const email = `newcomer${++n}@example.com`;
    const created = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, password: PASSWORD } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.response.id;
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    return b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code: await codeSentTo(h, email) } });
  },
};

/** The ways as the rules below address them: every kind of WAYS, and both codes. */
const WAY_NAMES = ['password', 'email_code', 'phone_code', 'link', 'reset', 'ticket', 'impersonation', 'social', 'sign_up'] as const;
type WayName = (typeof WAY_NAMES)[number];
/** Ways with their own suites (an IdP or a platform on the other side): sso in server/sso, lti in server/lti. */
const ELSEWHERE: WayKind[] = ['sso', 'lti'];
const kindOfName = (w: WayName): WayKind => (w === 'email_code' || w === 'phone_code' ? 'code' : w);

afterAll(async () => {
  await idp?.close();
});

/** The session a sign-in made (the client's newest), as BAPI shows it. */
async function sessionOf(w: World, b: FapiTestClient) {
  const client = (await b.call('GET', '/v1/client')).body;
  const id = client.sessions[0]?.id as string | undefined;
  if (!id) return null;
  return (await bapi(w.i, 'GET', `/v1/sessions/${id}`)).body as { status: string; user_id: string };
}

const code = (o: Outcome) => (o.body?.errors?.[0]?.code as string | undefined) ?? null;

describe('the table of ways', () => {
  it('has a driver or a suite of its own for every way of complete-sign-in.ts', () => {
    const covered = new Set<WayKind>([...WAY_NAMES.map(kindOfName), ...ELSEWHERE]);
    expect([...covered].sort()).toEqual(Object.keys(WAYS).sort());
  });
});

/** Runs `rule` for every way, each in a fresh browser, with a person made for it (sign-up: none). */
function eachWay(rule: string, run: (way: WayName) => Promise<void>) {
  describe(rule, () => {
    for (const way of WAY_NAMES) it(way, () => run(way));
  });
}

let plain: World;
let mfa: World;
let lockout: World;
beforeAll(async () => {
  plain = await world();
  mfa = await world({ mfa_required: true });
  lockout = await world();
  expect((await bapi(lockout.i, 'PATCH', '/v1/attack_protection', { user_lockout: { max_attempts: 3, window_minutes: 10, lockout_minutes: 15 } })).status).toBe(200);
  // The provider is made once every instance's callback is known; it reads accounts as people are made.
  idp = await startOidcIdp({ clientId: 'latchkey', clientSecret: 'idp-secret', redirectUris: worlds.map(callbackOf) });
  for (const i of worlds) {
    const provider = await bapi(i, 'POST', '/v1/social_providers', { kind: 'oidc', name: 'acme', display_name: 'Acme ID', issuer: idp.issuer, client_id: 'latchkey', client_secret: 'idp-secret' });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  }
});

eachWay('a banned user is refused (USER_BANNED), nothing signed in', async (way) => {
  if (way === 'sign_up') return; // a new user cannot be banned yet
  const p = await plain.person();
  expect((await bapi(plain.i, 'POST', `/v1/users/${p.id}/ban`)).status).toBe(200);
  const b = browserOf(h, plain.i);
  const out = await DRIVERS[way](plain, b, p);
  expect(code(out), JSON.stringify(out.body)).toBe(way === 'link' ? 'LINK_FAILED' : 'USER_BANNED');
  expect(await sessionOf(plain, b)).toBeNull();
});

eachWay('an operator’s lock refuses every way but impersonation', async (way) => {
  if (way === 'sign_up') return;
  const p = await plain.person();
  expect((await bapi(plain.i, 'POST', `/v1/users/${p.id}/lock`)).status).toBe(200);
  const b = browserOf(h, plain.i);
  const out = await DRIVERS[way](plain, b, p);
  if (way === 'impersonation') {
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect((await sessionOf(plain, b))?.status).toBe('active');
  } else {
    expect(code(out), JSON.stringify(out.body)).toBe(way === 'link' ? 'LINK_FAILED' : 'USER_LOCKED');
    expect(await sessionOf(plain, b)).toBeNull();
  }
});

eachWay('a timed lockout (an attacker’s wrong passwords) stops the password only', async (way) => {
  if (way === 'sign_up') return;
  const p = await lockout.person();
  for (let k = 0; k < 3; k++) await browserOf(h, lockout.i).call('POST', '/v1/client/sign_ins', { body: { identifier: p.email, password: `guess ${k}` } });
  expect((await bapi(lockout.i, 'GET', `/v1/users/${p.id}`)).body.locked).toBe(true);
  const b = browserOf(h, lockout.i);
  const out = await DRIVERS[way](lockout, b, p);
  if (way === 'password') {
    expect(code(out)).toBe('USER_LOCKED');
    expect(await sessionOf(lockout, b)).toBeNull();
  } else {
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect((await sessionOf(lockout, b))?.status).toBe('active');
  }
});

eachWay('a user with TOTP is asked for it: the session starts pending (impersonation excepted)', async (way) => {
  if (way === 'sign_up') return; // a new user has no factor
  const p = await plain.person();
  await enrollTotp(h, plain.i.instanceId, p.id);
  const b = browserOf(h, plain.i);
  const out = await DRIVERS[way](plain, b, p);
  expect(out.status, JSON.stringify(out.body)).toBe(200);
  const session = await sessionOf(plain, b);
  if (way === 'impersonation') {
    expect(session?.status).toBe('active');
  } else {
    expect(session?.status).toBe('pending');
    expect(out.body.response.status).toBe('needs_second_factor');
    expect(out.body.response.supported_second_factors).toContainEqual({ strategy: 'totp' });
  }
});

eachWay('mfa_required: a user without a factor gets a pending session with setup_mfa (impersonation excepted)', async (way) => {
  const p = way === 'sign_up' ? (null as unknown as Person) : await mfa.person();
  const b = browserOf(h, mfa.i);
  const out = await DRIVERS[way](mfa, b, p);
  expect(out.status, JSON.stringify(out.body)).toBe(200);
  const client = (await b.call('GET', '/v1/client')).body;
  if (way === 'impersonation') {
    expect(client.sessions[0]).toMatchObject({ status: 'active' });
  } else {
    expect(client.sessions[0]).toMatchObject({ status: 'pending', tasks: [{ key: 'setup_mfa' }] });
  }
});

eachWay('SSO only belongs to the user: password and code ways are refused whatever identifier was typed', async (way) => {
  if (way === 'sign_up') return;
  const p = await plain.person({ ssoAddress: true });
  const b = browserOf(h, plain.i);
  const out = await DRIVERS[way](plain, b, p);
  const refused = way === 'password' || way === 'email_code' || way === 'phone_code' || way === 'link' || way === 'reset';
  if (refused) {
    if (way === 'link') expect(code(out)).toBe('LINK_FAILED');
    else expect(out.body.errors?.[0], JSON.stringify(out.body)).toMatchObject({ code: 'FORBIDDEN', meta: { reason: 'sso_required' } });
    expect(await sessionOf(plain, b)).toBeNull();
  } else {
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(await sessionOf(plain, b)).not.toBeNull();
  }
});

eachWay('the client token is rotated at sign-in: the token held before no longer names the client', async (way) => {
  const p = way === 'sign_up' ? (null as unknown as Person) : await plain.person();
  const b = browserOf(h, plain.i);
  // The browser already holds a client (a token an attacker might have planted or seen).
  expect((await b.call('POST', '/v1/client/sign_ins', { body: { identifier: `someone${++n}@example.com` } })).status).toBe(200);
  const before = b.token!;
  const out = await DRIVERS[way](plain, b, p);
  expect(out.status, JSON.stringify(out.body)).toBe(200);
  expect(b.token).not.toBe(before);
  expect((await b.call('GET', '/v1/client')).body.sessions).toHaveLength(1);
  const stale = browserOf(h, plain.i);
  stale.token = before;
  const seen = await stale.call('GET', '/v1/client');
  expect(seen.body.sessions ?? seen.body.response?.sessions ?? []).toEqual([]);
});

describe('the answer is bound to the browser that asked (ways that leave the browser; SAML and OIDC SSO in server/sso)', () => {
  it('social: the provider’s answer carried to another browser signs in nobody (flow_binding_mismatch)', async () => {
    const p = await plain.person();
    const attacker = browserOf(h, plain.i);
    const started = await attacker.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_acme', redirect_url: APP } });
    idp.loginAs = p.sub;
    const back = await browseUntil(started.body.response.first_factor_verification.external_verification_redirect_url, callbackOf(plain.i));
    const victim = browserOf(h, plain.i);
    const res = await h.request('GET', `/fapi/${plain.i.instanceId}/v1/oauth_callback${back.search}`);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('flow_binding_mismatch');
    expect(await sessionOf(plain, attacker)).toBeNull();
    expect(await sessionOf(plain, victim)).toBeNull();
  });

  it('email link with email_link_same_browser: opened in another browser it signs in nobody', async () => {
    const w = await world({ sign_in_methods: { ...ALL_METHODS, email_link_same_browser: true } });
    const p = await w.person();
    const attacker = browserOf(h, w.i);
    const id = await createAttempt(attacker, p.email);
    expect((await prepare(attacker, id, 'email_link')).status).toBe(200);
    const link = new URL(String((await h.outbox(p.email))[0]!.data.url));
    const victim = browserOf(h, w.i);
    const clicked = await victim.call('GET', `${link.pathname.replace(`/fapi/${w.i.instanceId}`, '')}${link.search}`);
    expect(new URL(clicked.headers.get('location')!).searchParams.get('status')).toBe('client_mismatch');
    expect((await attacker.call('GET', `/v1/client/sign_ins/${id}`)).body.response.status).toBe('needs_first_factor');
    expect(await sessionOf(w, attacker)).toBeNull();
  });
});
