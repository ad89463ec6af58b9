import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserOf, codeSentTo, enrollTotp, instanceWith, type TestInstance } from '../testing/auth-flows';
import type { FapiResult, FapiTestClient } from '../testing/fapi-client';
import { sharedHarness } from '../testing/harness';
import { ltiLaunches, startFakePlatform, type FakePlatform } from '../testing/lti-platform';
import { makeSamlIdp, samlIdpFor, type SamlIdpForConnection } from '../testing/saml-idp';
import { browseUntil, openOidcIdp, type OidcIdp } from '../testing/social-idps';
import { WAYS, type WayKind } from './complete-sign-in';
import {
  passkeyOptionsOf,
  registerPasskeyOverFapi,
  signInWithPasskey,
  softAuthenticator,
  TEST_ORIGIN,
  type SoftAuthenticator,
} from '../testing/passkey-authenticator';

/**
 * Every rule of the ending of a sign-in (complete-sign-in.ts) against every way in, over HTTP
 * as a browser drives it. A way added to WAYS without a driver here fails the first test.
 *
 * The ways that leave the browser go through real parties on the other side: social and OIDC
 * SSO through an OpenID Provider on loopback, SAML through a samlify IdP signing with the
 * fixtures' key, LTI through a fake platform (server/testing). Their own suites (server/sso,
 * server/lti, server/social) test each protocol's checks and binding in depth.
 */
const h = sharedHarness({ env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: '1', ALLOW_PRIVATE_TARGETS: '1' } });
const PASSWORD = 'a long passphrase';
/** The domains of the world's SAML and OIDC connections: a person's address there signs in through that IdP. */
const SAML_DOMAIN = 'corp.test';
const OIDC_DOMAIN = 'oidc-corp.test';
const APP = 'https://app.example.com/after';
const TOOL = 'https://tool.example/course';
const IDP_SECRET = 'a-long-enough-client-secret-for-the-idp';
const SAML_IDP = { entityId: 'https://idp.corp.test/saml', origin: 'https://idp.corp.test', ssoUrl: 'https://idp.corp.test/sso' };
const samlIdp = makeSamlIdp(SAML_IDP);
let idp: OidcIdp;
let platform: FakePlatform;
let n = 0;

interface Person {
  id: string;
  /** An address at no SSO domain (the identifier of the password and code ways). */
  email: string;
  username: string;
  phone: string;
  /** The subject at the social provider. */
  sub: string;
  /** The address the SSO ways sign in by (at their connection's domain), when the person has one. */
  ssoEmail: string | null;
  /** The subject at the OIDC SSO IdP, and at the LTI platform. */
  ssoSub: string;
  ltiSub: string;
  /** The person's passkey authenticator (it holds a registered passkey for the passkey way). */
  authenticator: SoftAuthenticator;
}
interface World {
  i: TestInstance;
  saml: SamlIdpForConnection;
  /** The connections' ids, by way. */
  connections: Record<'saml' | 'oidc_sso', string>;
  /** The OIDC connection's redirect URI (where the IdP sends the browser back). */
  oidcCallback: string;
  lti: ReturnType<typeof ltiLaunches>;
  /**
   * A person able to sign in by `way`: an SSO way's person has an address at its connection's
   * domain, an LTI person is made by their platform's first launch (LTI never links by address).
   * `ssoAddress`: the person has an address at an SSO domain (they must use SSO).
   */
  person(opts?: { way?: WayName; ssoAddress?: boolean }): Promise<Person>;
}
const callbackOf = (t: TestInstance) => `http://localhost:3000/fapi/${t.instanceId}/v1/oauth_callback`;
const ALL_METHODS = {
  password: true,
  email_code: true,
  username: true,
  phone_code: true,
  email_link: true,
  email_link_same_browser: false,
  passkey: true,
};
const bapi = (i: TestInstance, method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });

/** An organization with `domain` verified, and an active connection of `provider` serving it. */
async function connection(i: TestInstance, domainName: string, provider: 'saml' | 'oidc') {
  const org = await bapi(i, 'POST', '/v1/organizations', { name: `Corp ${provider}` });
  const domain = await bapi(i, 'POST', `/v1/organizations/${org.body.id}/domains`, { name: domainName });
  await bapi(i, 'PATCH', `/v1/organizations/${org.body.id}/domains/${domain.body.id}`, { verified: true });
  const conn = await bapi(i, 'POST', '/v1/sso_connections', {
    organization_id: org.body.id,
    provider,
    name: `Corp ${provider} IdP`,
    domains: [domainName],
    active: true,
    ...(provider === 'saml'
      ? { saml: { idp_metadata_xml: samlIdp.getMetadata() } }
      : { oidc: { issuer: idp.issuer, client_id: 'latchkey', client_secret: IDP_SECRET } }),
  });
  expect(conn.status, JSON.stringify(conn.body)).toBe(201);
  return conn.body;
}

/**
 * An instance with every first factor on, a SAML connection for corp.test and an OIDC one for
 * oidc-corp.test, and the LTI platform registered (its social provider comes once the IdP knows
 * every callback).
 */
async function world(settings: Parameters<typeof instanceWith>[1] = {}): Promise<World> {
  const i = await instanceWith(h, { sign_in_methods: ALL_METHODS, redirect_urls: ['https://app.example.com/'], ...settings });
  worlds.push(i);
  const saml = await connection(i, SAML_DOMAIN, 'saml');
  const oidc = await connection(i, OIDC_DOMAIN, 'oidc');
  const registered = await bapi(i, 'POST', '/v1/lti_platforms', {
    name: 'LMS',
    issuer: platform.issuer,
    client_id: platform.clientId,
    authorization_endpoint: platform.authorizationEndpoint,
    jwks_uri: platform.jwksUri,
    deployment_ids: [platform.deploymentId],
    target_link_uris: [TOOL],
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const w: World = {
    i,
    saml: await samlIdpFor(h, i.instanceId, saml, { idp: samlIdp, ...SAML_IDP }),
    connections: { saml: saml.id, oidc_sso: oidc.id },
    oidcCallback: oidc.oidc.redirect_uri,
    lti: ltiLaunches(h, i.instanceId, platform, TOOL),
    async person(opts = {}) {
      const k = ++n;
      const ssoDomain = opts.way === 'oidc_sso' ? OIDC_DOMAIN : opts.way === 'saml' || opts.ssoAddress ? SAML_DOMAIN : null;
      const ssoEmail = ssoDomain ? `person${k}@${ssoDomain}` : null;
      const p = {
        email: `person${k}@example.com`,
        username: `person${k}`,
        phone: `+1555010${String(k).padStart(4, '0')}`,
        sub: `sub-${k}`,
        ssoEmail,
        ssoSub: `sso-${k}`,
        ltiSub: `lti-${k}`,
      };
      let id: string;
      if (opts.way === 'lti') {
        // Made by the platform (JIT), with its one address; then a username and a password of their own.
        const made = await w.lti.launchAs({ sub: p.ltiSub, email: ssoEmail ?? p.email });
        expect(made.status, await made.clone().text()).toBe(303);
        const found = await bapi(i, 'GET', `/v1/users?email_address=${encodeURIComponent(ssoEmail ?? p.email)}`);
        id = (found.body.data ?? found.body)[0].id;
        const patched = await bapi(i, 'PATCH', `/v1/users/${id}`, { username: p.username, password: PASSWORD });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        if (ssoEmail) p.email = ssoEmail;
      } else {
        const res = await bapi(i, 'POST', '/v1/users', {
          email_address: ssoEmail ? [p.email, ssoEmail] : [p.email],
          username: p.username,
          phone_number: [p.phone],
          password: PASSWORD,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        id = res.body.id;
      }
      const authenticator = softAuthenticator();
      if (opts.way === 'passkey') {
        // Registered from a session of their own (under mfa_required it completes setup_mfa).
        const b = browserOf(h, i);
        const minted = await bapi(i, 'POST', '/v1/sign_in_tokens', { user_id: id });
        expect((await b.signInWithTicket(minted.body.token)).status).toBe(200);
        await registerPasskeyOverFapi(b, authenticator);
      }
      idp.accounts.set(p.sub, { email: p.email, email_verified: true });
      if (ssoEmail) idp.accounts.set(p.ssoSub, { email: ssoEmail, email_verified: true });
      return { id, ...p, authenticator };
    },
  };
  return w;
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
const prepare = (b: FapiTestClient, id: string, strategy: string) =>
  b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy } });
const attempt = (b: FapiTestClient, id: string, body: Record<string, string>) =>
  b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, { body });

/** A refusal shown as an HTML page (SSO, LTI): its reason, as an outcome whose code is the reason in capitals (USER_BANNED). */
async function pageRefusal(res: Response): Promise<Outcome> {
  const text = await res.text();
  const reason = /Reason: (\w+)/.exec(text)?.[1] ?? /refused \((\w+)\)/.exec(text)?.[1] ?? null;
  return { status: res.status, body: { errors: [{ code: reason?.toUpperCase() ?? null, meta: { reason } }], page: text.slice(0, 500) } };
}

/** The browser back at the social callback (with its cookies): the attempt as it then reads, or the refusal page's reason. */
async function socialCallback(w: World, b: FapiTestClient, search: string, attemptId: string): Promise<Outcome> {
  const cookie = b.cookieHeader();
  const res = await h.request('GET', `/fapi/${w.i.instanceId}/v1/oauth_callback${search}`, { headers: cookie ? { cookie } : {} });
  b.keepCookies(res.headers);
  if (res.status !== 303) {
    // A refusal is an HTML page naming its reason: "… (USER_BANNED)".
    const reason = [...(await res.text()).matchAll(/\(([A-Za-z_]+)\)/g)].pop()?.[1] ?? null;
    return { status: res.status, body: { errors: [{ code: reason, meta: { reason } }] } };
  }
  return b.call('GET', `/v1/client/sign_ins/${attemptId}`);
}

/** The browser starts enterprise SSO for its address: the attempt and the IdP URL it is sent to (and the flow cookie it keeps). */
async function startSso(b: FapiTestClient, email: string) {
  const started = await b.call('POST', '/v1/client/sign_ins', {
    body: { strategy: 'enterprise_sso', identifier: email, redirect_url: APP },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return {
    id: started.body.response.id as string,
    idpUrl: started.body.response.first_factor_verification.external_verification_redirect_url as string,
  };
}

/** The answer of an SSO callback: the attempt as the browser then reads it, or the refusal page. */
async function ssoOutcome(b: FapiTestClient, res: Response, attemptId: string): Promise<Outcome> {
  if (res.status !== 303) return pageRefusal(res);
  return b.call('GET', `/v1/client/sign_ins/${attemptId}`);
}

const DRIVERS: Record<
  Exclude<WayKind, 'sso'> | 'email_code' | 'phone_code' | 'saml' | 'oidc_sso' | 'phone_sign_up' | 'mock_social',
  Driver
> = {
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
    return socialCallback(w, b, back.search, started.body.response.id);
  },
  // The mock provider of test instances: its page (served by Latchkey) names the person's address, then the same callback.
  mock_social: async (w, b, p) => {
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_mock', redirect_url: APP } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const page = new URL(started.body.response.first_factor_verification.external_verification_redirect_url);
    const cookie = b.cookieHeader();
    const posted = await h.request('POST', page.pathname, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: page.origin, ...(cookie ? { cookie } : {}) },
      raw: new URLSearchParams({ state: page.searchParams.get('state')!, decision: 'allow', email: p.email }).toString(),
    });
    expect(posted.status, await posted.clone().text()).toBe(303);
    return socialCallback(w, b, new URL(posted.headers.get('location')!).search, started.body.response.id);
  },
  // The IdP posts the signed response from its own site: the browser sends its SameSite=None flow cookie only.
  saml: async (w, b, p) => {
    const started = await startSso(b, p.ssoEmail!);
    const requestId = await w.saml.requestIdOf(started.idpUrl);
    const res = await w.saml.postAcs(await w.saml.response(requestId, { email: p.ssoEmail! }), b);
    return ssoOutcome(b, res, started.id);
  },
  // The IdP sends the browser back by a top-level GET: it carries its cookies (flow and client).
  oidc_sso: async (w, b, p) => {
    const started = await startSso(b, p.ssoEmail!);
    idp.loginAs = p.ssoSub;
    const back = await browseUntil(started.idpUrl, w.oidcCallback);
    const cookie = b.cookieHeader();
    const res = await h.request('GET', back.pathname + back.search, { headers: cookie ? { cookie } : {} });
    b.keepCookies(res.headers);
    return ssoOutcome(b, res, started.id);
  },
  // The platform's page posts the launch from the LMS: the browser sends its state cookie and the client's (SameSite=None inside the LMS).
  lti: async (w, b, p) => {
    const res = await w.lti.launchAs({ sub: p.ltiSub, email: p.email }, (a) =>
      [b.cookieHeader(), a.stateCookie].filter(Boolean).join('; '),
    );
    b.keepCookies(res.headers);
    if (res.status !== 303) return pageRefusal(res);
    return b.call('GET', '/v1/client');
  },
  // Username-less: the attempt is made without an identifier, the passkey names the person.
  passkey: async (_w, b, p) => signInWithPasskey(b, p.authenticator),
  sign_up: async (_w, b) => {
    const email = `newcomer${++n}@example.com`;
    const created = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, password: PASSWORD } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.response.id;
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    return b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code: await codeSentTo(h, email) } });
  },
  /** A sign-up with a phone number, verified by an SMS code (the `sign_up` way too). */
  phone_sign_up: async (_w, b) => {
    const phone = `+1555020${String(++n).padStart(4, '0')}`;
    const created = await b.call('POST', '/v1/client/sign_ups', { body: { phone_number: phone, password: PASSWORD } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.response.id;
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'phone_code' } });
    const sms = (await h.smsOutbox(phone))[0]!;
    return b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { strategy: 'phone_code', code: sms.data.code } });
  },
};

/** The ways as the rules below address them: every kind of WAYS, and both codes. */
const WAY_NAMES = [
  'password',
  'email_code',
  'phone_code',
  'link',
  'reset',
  'ticket',
  'impersonation',
  'social',
  'mock_social',
  'saml',
  'oidc_sso',
  'lti',
  'sign_up',
  'phone_sign_up',
  'passkey',
] as const;
type WayName = (typeof WAY_NAMES)[number];
const kindOfName = (w: WayName): WayKind =>
  w === 'email_code' || w === 'phone_code'
    ? 'code'
    : w === 'saml' || w === 'oidc_sso'
      ? 'sso'
      : w === 'phone_sign_up'
        ? 'sign_up'
        : w === 'mock_social'
          ? 'social'
          : w;
/** Both sign-ups make a new user: rules about an existing one do not apply. */
const isSignUp = (w: WayName) => kindOfName(w) === 'sign_up';
const SSO_WAYS = ['saml', 'oidc_sso'] as const;

afterAll(async () => {
  await idp?.close();
  await platform?.close();
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
  it('has a driver for every way of complete-sign-in.ts', () => {
    const covered = new Set<WayKind>(WAY_NAMES.map(kindOfName));
    expect([...covered].sort()).toEqual(Object.keys(WAYS).sort());
  });
});

/** A rule that does not apply to a way, and why: reported as a skipped test under that name. */
type Skip = { skip: string };
/** The error a way answers with when refused: a FAPI `code`, or `sso_required` (FORBIDDEN; on a callback's page, `page`: the reason of its 403). */
type Refused = { refused: string; page?: true };
const NEW_USER: Skip = { skip: 'a sign-up makes a new user, whom this rule cannot concern yet' };
const NO_FACTOR: Skip = { skip: 'a sign-up makes a new user, who has no factor yet' };

/**
 * What each rule does to each way: one row per rule, one cell per way. The rows are typed over
 * every way, so a way added to WAY_NAMES fails to compile until it decides every rule.
 */
const EXPECTED = {
  banned: {
    password: { refused: 'USER_BANNED' },
    email_code: { refused: 'USER_BANNED' },
    phone_code: { refused: 'USER_BANNED' },
    link: { refused: 'LINK_FAILED' },
    reset: { refused: 'USER_BANNED' },
    ticket: { refused: 'USER_BANNED' },
    impersonation: { refused: 'USER_BANNED' },
    social: { refused: 'USER_BANNED' },
    mock_social: { refused: 'USER_BANNED' },
    saml: { refused: 'USER_BANNED' },
    oidc_sso: { refused: 'USER_BANNED' },
    lti: { refused: 'USER_BANNED' },
    passkey: { refused: 'USER_BANNED' },
    sign_up: NEW_USER,
    phone_sign_up: NEW_USER,
  },
  locked: {
    password: { refused: 'USER_LOCKED' },
    email_code: { refused: 'USER_LOCKED' },
    phone_code: { refused: 'USER_LOCKED' },
    link: { refused: 'LINK_FAILED' },
    reset: { refused: 'USER_LOCKED' },
    ticket: { refused: 'USER_LOCKED' },
    impersonation: 'signed_in',
    social: { refused: 'USER_LOCKED' },
    mock_social: { refused: 'USER_LOCKED' },
    saml: { refused: 'USER_LOCKED' },
    oidc_sso: { refused: 'USER_LOCKED' },
    lti: { refused: 'USER_LOCKED' },
    passkey: { refused: 'USER_LOCKED' },
    sign_up: NEW_USER,
    phone_sign_up: NEW_USER,
  },
  lockout: {
    password: { refused: 'USER_LOCKED' },
    email_code: 'signed_in',
    phone_code: 'signed_in',
    link: 'signed_in',
    reset: 'signed_in',
    ticket: 'signed_in',
    impersonation: 'signed_in',
    social: 'signed_in',
    mock_social: 'signed_in',
    saml: 'signed_in',
    oidc_sso: 'signed_in',
    lti: 'signed_in',
    passkey: 'signed_in',
    sign_up: NEW_USER,
    phone_sign_up: NEW_USER,
  },
  // A passkey with user verification is two factors by itself; a launch has no sign-in attempt of the browser's.
  totp: {
    password: 'needs_second_factor',
    email_code: 'needs_second_factor',
    phone_code: 'needs_second_factor',
    link: 'needs_second_factor',
    reset: 'needs_second_factor',
    ticket: 'needs_second_factor',
    impersonation: 'active',
    social: 'needs_second_factor',
    mock_social: 'needs_second_factor',
    saml: 'needs_second_factor',
    oidc_sso: 'needs_second_factor',
    lti: 'pending',
    passkey: 'active',
    sign_up: NO_FACTOR,
    phone_sign_up: NO_FACTOR,
  },
  // Whoever signs in with a passkey has one, and under mfa_required it is their second factor.
  mfa_required: {
    password: 'setup_mfa',
    email_code: 'setup_mfa',
    phone_code: 'setup_mfa',
    link: 'setup_mfa',
    reset: 'setup_mfa',
    ticket: 'setup_mfa',
    impersonation: 'active',
    social: 'setup_mfa',
    mock_social: 'setup_mfa',
    saml: 'setup_mfa',
    oidc_sso: 'setup_mfa',
    lti: 'setup_mfa',
    passkey: 'active',
    sign_up: 'setup_mfa',
    phone_sign_up: 'setup_mfa',
  },
  sso_only: {
    password: { refused: 'sso_required' },
    email_code: { refused: 'sso_required' },
    phone_code: { refused: 'sso_required' },
    link: { refused: 'LINK_FAILED' },
    reset: { refused: 'sso_required' },
    ticket: 'signed_in',
    impersonation: 'signed_in',
    social: { refused: 'sso_required', page: true },
    mock_social: { refused: 'sso_required', page: true },
    saml: 'signed_in',
    oidc_sso: 'signed_in',
    lti: 'signed_in',
    passkey: { refused: 'sso_required' },
    sign_up: NEW_USER,
    phone_sign_up: NEW_USER,
  },
  rotation: {
    password: 'rotated',
    email_code: 'rotated',
    phone_code: 'rotated',
    link: 'rotated',
    reset: 'rotated',
    ticket: 'rotated',
    impersonation: 'rotated',
    social: 'rotated',
    mock_social: 'rotated',
    saml: 'rotated',
    oidc_sso: 'rotated',
    lti: 'rotated',
    passkey: 'rotated',
    sign_up: 'rotated',
    phone_sign_up: 'rotated',
  },
} as const satisfies {
  banned: Record<WayName, Refused | Skip>;
  locked: Record<WayName, Refused | 'signed_in' | Skip>;
  lockout: Record<WayName, Refused | 'signed_in' | Skip>;
  totp: Record<WayName, 'needs_second_factor' | 'pending' | 'active' | Skip>;
  mfa_required: Record<WayName, 'setup_mfa' | 'active' | Skip>;
  sso_only: Record<WayName, Refused | 'signed_in' | Skip>;
  rotation: Record<WayName, 'rotated' | Skip>;
};
type Rule = keyof typeof EXPECTED;
type Decided<R extends Rule> = Exclude<(typeof EXPECTED)[R][WayName], Skip>;
const isSkip = (d: unknown): d is Skip => typeof d === 'object' && d !== null && 'skip' in d;

describe('the table of outcomes', () => {
  it('decides every rule for every way', () => {
    for (const row of Object.values(EXPECTED)) expect(Object.keys(row).sort()).toEqual([...WAY_NAMES].sort());
  });
});

/**
 * Runs `rule` for every way, each in a fresh browser, with its expected outcome; a way the rule
 * does not apply to is a visible skip naming why.
 */
function eachWay<R extends Rule>(rule: R, title: string, run: (way: WayName, expected: Decided<R>) => Promise<void>) {
  describe(title, () => {
    for (const way of WAY_NAMES) {
      const expected = EXPECTED[rule][way] as Decided<R> | Skip;
      if (isSkip(expected)) it.skip(`${way}: does not apply (${expected.skip})`, () => {});
      else it(way, () => run(way, expected));
    }
  });
}

/** A refusal as its way answers it, and nobody signed in. */
async function expectRefused(out: Outcome, expected: Refused, w: World, b: FapiTestClient) {
  // The social callback answers a page naming the reason; the FAPI an error body.
  if (expected.page)
    expect(out, JSON.stringify(out.body)).toMatchObject({ status: 403, body: { errors: [{ meta: { reason: expected.refused } }] } });
  else if (expected.refused === 'sso_required')
    expect(out.body.errors?.[0], JSON.stringify(out.body)).toMatchObject({ code: 'FORBIDDEN', meta: { reason: 'sso_required' } });
  else expect(code(out), JSON.stringify(out.body)).toBe(expected.refused);
  expect(await sessionOf(w, b)).toBeNull();
}

/** A sign-in that went through: an active session on the browser's client. */
async function expectSignedIn(out: Outcome, w: World, b: FapiTestClient) {
  expect(out.status, JSON.stringify(out.body)).toBe(200);
  expect((await sessionOf(w, b))?.status).toBe('active');
}

let plain: World;
let mfa: World;
let lockout: World;
/** Its connections declare that their IdPs enforce MFA. */
let enforcing: World;
beforeAll(async () => {
  idp = await openOidcIdp();
  platform = await startFakePlatform({ targetLinkUri: TOOL });
  plain = await world();
  mfa = await world({ mfa_required: true });
  lockout = await world();
  enforcing = await world();
  expect(
    (
      await bapi(lockout.i, 'PATCH', '/v1/attack_protection', {
        user_lockout: { max_attempts: 3, window_minutes: 10, lockout_minutes: 15 },
      })
    ).status,
  ).toBe(200);
  // The provider is made once every instance's callback is known; it reads accounts as people are made.
  idp.serve({
    clientId: 'latchkey',
    clientSecret: IDP_SECRET,
    redirectUris: [...worlds.map(callbackOf), ...[plain, mfa, lockout, enforcing].map((w) => w.oidcCallback)],
  });
  for (const i of worlds) {
    const provider = await bapi(i, 'POST', '/v1/social_providers', {
      kind: 'oidc',
      name: 'acme',
      display_name: 'Acme ID',
      issuer: idp.issuer,
      client_id: 'latchkey',
      client_secret: IDP_SECRET,
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    const mock = await bapi(i, 'POST', '/v1/social_providers', { kind: 'mock' });
    expect(mock.status, JSON.stringify(mock.body)).toBe(201);
  }
});

eachWay('banned', 'a banned user is refused (USER_BANNED), nothing signed in', async (way, expected) => {
  const p = await plain.person({ way });
  expect((await bapi(plain.i, 'POST', `/v1/users/${p.id}/ban`)).status).toBe(200);
  const b = browserOf(h, plain.i);
  await expectRefused(await DRIVERS[way](plain, b, p), expected, plain, b);
});

eachWay('locked', 'an operator’s lock refuses every way but impersonation', async (way, expected) => {
  const p = await plain.person({ way });
  expect((await bapi(plain.i, 'POST', `/v1/users/${p.id}/lock`)).status).toBe(200);
  const b = browserOf(h, plain.i);
  const out = await DRIVERS[way](plain, b, p);
  if (expected === 'signed_in') await expectSignedIn(out, plain, b);
  else await expectRefused(out, expected, plain, b);
});

eachWay('lockout', 'a timed lockout (an attacker’s wrong passwords) stops the password only', async (way, expected) => {
  const p = await lockout.person({ way });
  for (let k = 0; k < 3; k++)
    await browserOf(h, lockout.i).call('POST', '/v1/client/sign_ins', { body: { identifier: p.email, password: `guess ${k}` } });
  expect((await bapi(lockout.i, 'GET', `/v1/users/${p.id}`)).body.locked).toBe(true);
  const b = browserOf(h, lockout.i);
  const out = await DRIVERS[way](lockout, b, p);
  if (expected === 'signed_in') await expectSignedIn(out, lockout, b);
  else await expectRefused(out, expected, lockout, b);
});

eachWay(
  'totp',
  'a user with TOTP is asked for it: the session starts pending (impersonation and a passkey excepted)',
  async (way, expected) => {
    const p = await plain.person({ way });
    await enrollTotp(h, plain.i.instanceId, p.id);
    const b = browserOf(h, plain.i);
    const out = await DRIVERS[way](plain, b, p);
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    const session = await sessionOf(plain, b);
    expect(session?.status).toBe(expected === 'active' ? 'active' : 'pending');
    if (expected === 'needs_second_factor') {
      expect(out.body.response.status).toBe('needs_second_factor');
      expect(out.body.response.supported_second_factors).toContainEqual({ strategy: 'totp' });
    }
  },
);

eachWay(
  'mfa_required',
  'mfa_required: a user without a factor gets a pending session with setup_mfa (impersonation and a passkey excepted)',
  async (way, expected) => {
    const p = isSignUp(way) ? (null as unknown as Person) : await mfa.person({ way });
    const b = browserOf(h, mfa.i);
    const out = await DRIVERS[way](mfa, b, p);
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    const client = (await b.call('GET', '/v1/client')).body;
    if (expected === 'active') expect(client.sessions[0]).toMatchObject({ status: 'active' });
    else expect(client.sessions[0]).toMatchObject({ status: 'pending', tasks: [{ key: 'setup_mfa' }] });
  },
);

eachWay(
  'sso_only',
  'SSO only belongs to the user: password, code, passkey and social ways are refused whatever identifier was typed',
  async (way, expected) => {
    const p = await plain.person({ way, ssoAddress: true });
    const b = browserOf(h, plain.i);
    const out = await DRIVERS[way](plain, b, p);
    if (expected !== 'signed_in') return expectRefused(out, expected, plain, b);
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(await sessionOf(plain, b)).not.toBeNull();
  },
);

eachWay('rotation', 'the client token is rotated at sign-in: the token held before no longer names the client', async (way) => {
  const p = isSignUp(way) ? (null as unknown as Person) : await plain.person({ way });
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

it('SSO only: a social sign-up with an address at an SSO domain is refused and creates nobody', async () => {
  const email = `newcomer${++n}@${SAML_DOMAIN}`;
  const sub = `sub-new-${n}`;
  idp.accounts.set(sub, { email, email_verified: true });
  const b = browserOf(h, plain.i);
  const out = await DRIVERS.social(plain, b, { sub } as Person);
  expect(out).toMatchObject({ status: 403, body: { errors: [{ meta: { reason: 'sso_required' } }] } });
  expect(await sessionOf(plain, b)).toBeNull();
  const found = await bapi(plain.i, 'GET', `/v1/users?email_address=${encodeURIComponent(email)}`);
  expect(found.body.data ?? found.body).toEqual([]);
});

it('SSO only: a password sign-up with an address at an SSO domain is refused when made, and creates nobody', async () => {
  const email = `signup${++n}@${SAML_DOMAIN.toUpperCase()}`;
  const b = browserOf(h, plain.i);
  const out = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, password: PASSWORD } });
  expect(out).toMatchObject({ status: 403, body: { errors: [{ code: 'FORBIDDEN', meta: { reason: 'sso_required' } }] } });
  expect(await sessionOf(plain, b)).toBeNull();
});

it('SSO only: a sign-up made before its domain gained a connection is refused at its code, and creates nobody', async () => {
  const domain = `late${++n}.test`;
  const email = `early@${domain}`;
  const b = browserOf(h, plain.i);
  const created = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, password: PASSWORD } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.response?.id ?? created.body.id;
  expect((await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } })).status).toBe(200);
  const code = await codeSentTo(h, email);
  await connection(plain.i, domain, 'saml');
  const out = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code } });
  expect(out).toMatchObject({ status: 403, body: { errors: [{ meta: { reason: 'sso_required' } }] } });
  expect(await sessionOf(plain, b)).toBeNull();
  const found = await bapi(plain.i, 'GET', `/v1/users?email_address=${encodeURIComponent(email)}`);
  expect(found.body.data ?? found.body).toEqual([]);
});

describe('the answer is bound to the browser that asked (ways that leave the browser, and a passkey’s challenge)', () => {
  /** A victim's browser that holds a client of its own. */
  const victimOf = async (w: World) => {
    const victim = browserOf(h, w.i);
    expect((await victim.call('POST', '/v1/client/sign_ins', { body: { identifier: `someone${++n}@example.com` } })).status).toBe(200);
    return victim;
  };

  it('saml: the IdP’s response posted by another browser signs in nobody (flow_binding_mismatch)', async () => {
    const p = await plain.person({ way: 'saml' });
    const attacker = browserOf(h, plain.i);
    const started = await startSso(attacker, p.ssoEmail!);
    const response = await plain.saml.response(await plain.saml.requestIdOf(started.idpUrl), { email: p.ssoEmail! });
    const victim = await victimOf(plain);
    const out = await pageRefusal(await plain.saml.postAcs(response, victim));
    expect(out).toMatchObject({ status: 403, body: { errors: [{ meta: { reason: 'flow_binding_mismatch' } }] } });
    expect(await sessionOf(plain, attacker)).toBeNull();
    expect(await sessionOf(plain, victim)).toBeNull();
  });

  it('oidc_sso: the IdP’s redirect followed by another browser signs in nobody (flow_binding_mismatch)', async () => {
    const p = await plain.person({ way: 'oidc_sso' });
    const attacker = browserOf(h, plain.i);
    const started = await startSso(attacker, p.ssoEmail!);
    idp.loginAs = p.ssoSub;
    const back = await browseUntil(started.idpUrl, plain.oidcCallback);
    const victim = await victimOf(plain);
    const out = await pageRefusal(await h.request('GET', back.pathname + back.search, { headers: { cookie: victim.cookieHeader()! } }));
    expect(out).toMatchObject({ status: 403, body: { errors: [{ meta: { reason: 'flow_binding_mismatch' } }] } });
    expect(await sessionOf(plain, attacker)).toBeNull();
    expect(await sessionOf(plain, victim)).toBeNull();
  });

  /** The provider's answer to `attacker`'s flow, opened by another browser: 403 flow_binding_mismatch, and neither is signed in. */
  async function expectCallbackElsewhereRefused(back: URL, attacker: FapiTestClient) {
    const victim = browserOf(h, plain.i);
    const res = await h.request('GET', `/fapi/${plain.i.instanceId}/v1/oauth_callback${back.search}`);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('flow_binding_mismatch');
    expect(await sessionOf(plain, attacker)).toBeNull();
    expect(await sessionOf(plain, victim)).toBeNull();
  }

  it('social: the provider’s answer carried to another browser signs in nobody (flow_binding_mismatch)', async () => {
    const p = await plain.person();
    const attacker = browserOf(h, plain.i);
    const started = await attacker.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_acme', redirect_url: APP } });
    idp.loginAs = p.sub;
    const back = await browseUntil(started.body.response.first_factor_verification.external_verification_redirect_url, callbackOf(plain.i));
    await expectCallbackElsewhereRefused(back, attacker);
  });

  it('mock social: the mock page’s answer carried to another browser signs in nobody (flow_binding_mismatch)', async () => {
    const p = await plain.person();
    const attacker = browserOf(h, plain.i);
    const started = await attacker.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_mock', redirect_url: APP } });
    const page = new URL(started.body.response.first_factor_verification.external_verification_redirect_url);
    const cookie = attacker.cookieHeader();
    const posted = await h.request('POST', page.pathname, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: page.origin, ...(cookie ? { cookie } : {}) },
      raw: new URLSearchParams({ state: page.searchParams.get('state')!, decision: 'allow', email: p.email }).toString(),
    });
    expect(posted.status).toBe(303);
    const back = new URL(posted.headers.get('location')!);
    await expectCallbackElsewhereRefused(back, attacker);
  });

  it('passkey: the answer to one browser’s challenge, carried to another browser, signs in nobody', async () => {
    const p = await plain.person({ way: 'passkey' });
    const asked = browserOf(h, plain.i);
    const started = await asked.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    const answer = p.authenticator.assert(passkeyOptionsOf(started), TEST_ORIGIN);
    const id = started.body.response.id as string;
    const other = await victimOf(plain);
    // To the attempt it answers: not the other browser's (404); to the other browser's own attempt: another challenge.
    expect(
      (
        await other.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, {
          body: { strategy: 'passkey', public_key_credential: answer },
        })
      ).status,
    ).toBe(404);
    const own = await other.call('POST', '/v1/client/sign_ins', { body: { strategy: 'passkey' } });
    const swapped = await other.call('POST', `/v1/client/sign_ins/${own.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'passkey', public_key_credential: answer },
    });
    expect(swapped).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'PASSKEY_INVALID', meta: { reason: 'verification_failed' } }] },
    });
    expect(await sessionOf(plain, other)).toBeNull();
    expect(await sessionOf(plain, asked)).toBeNull();
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

describe('SSO asks the second factor like every way in (the samlify IdP, the OIDC IdP)', () => {
  for (const way of SSO_WAYS) {
    it(`${way}: a user with TOTP gets a pending session and the attempt needs_second_factor; the TOTP code activates it`, async () => {
      const p = await plain.person({ way });
      const { totp } = await enrollTotp(h, plain.i.instanceId, p.id);
      const b = browserOf(h, plain.i);
      const out = await DRIVERS[way](plain, b, p);
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      expect(out.body.response).toMatchObject({
        status: 'needs_second_factor',
        supported_second_factors: expect.arrayContaining([{ strategy: 'totp' }]),
      });
      expect((await sessionOf(plain, b))?.status).toBe('pending');
      const done = await b.call('POST', `/v1/client/sign_ins/${out.body.response.id}/attempt_second_factor`, {
        body: { strategy: 'totp', code: totp.generate({ timestamp: h.clock.now() }) },
      });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.response.status).toBe('complete');
      expect(await sessionOf(plain, b)).toMatchObject({ status: 'active', user_id: p.id });
    });

    it(`${way}: a connection that declares idp_enforces_mfa (audited) starts the session active at once`, async () => {
      const id = enforcing.connections[way];
      const patched = await bapi(enforcing.i, 'PATCH', `/v1/sso_connections/${id}`, { idp_enforces_mfa: true });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.idp_enforces_mfa).toBe(true);
      const log = await bapi(enforcing.i, 'GET', `/v1/audit_logs?target=${id}&action=sso_connection.updated`);
      expect(log.body.data).toHaveLength(1);
      expect(log.body.data[0]).toMatchObject({ action: 'sso_connection.updated', target: id, actor: `key:${enforcing.i.keyId}` });

      const p = await enforcing.person({ way });
      await enrollTotp(h, enforcing.i.instanceId, p.id);
      const b = browserOf(h, enforcing.i);
      const out = await DRIVERS[way](enforcing, b, p);
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      expect(out.body.response.status).toBe('complete');
      expect(await sessionOf(enforcing, b)).toMatchObject({ status: 'active', user_id: p.id });
    });

    it(`${way}: under mfa_required a user with no factor gets a pending session with the setup_mfa task`, async () => {
      const p = await mfa.person({ way });
      const b = browserOf(h, mfa.i);
      const out = await DRIVERS[way](mfa, b, p);
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      expect((await b.call('GET', '/v1/client')).body.sessions).toMatchObject([
        { status: 'pending', user_id: p.id, tasks: [{ key: 'setup_mfa' }] },
      ]);
    });
  }
});
