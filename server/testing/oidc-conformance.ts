import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import { startApiServer, type ApiServer } from './api-server';
import type { HarnessOptions, TestInstance } from './harness';

/**
 * The OpenID Foundation conformance suite's OP tests, played as the suite plays them: an RP
 * talking to a started server over a real socket (fetch, no in-process calls), a browser
 * with a cookie jar that follows the provider's redirects, and the user it drives (who signs
 * in through the FAPI, as the hosted sign-in page does, and allows the consent page). Each
 * module's conditions are assertions; a condition the suite raises as a WARNING fails the
 * test too (docs/oidc-provider.md, "Conformance").
 */

export const REDIRECT_URI = 'https://rp.conformance.test/callback';
export const POST_LOGOUT_REDIRECT_URI = 'https://rp.conformance.test/logged-out';
export const PASSWORD = 'conformance suite password 1';

export interface Op {
  server: ApiServer;
  instance: TestInstance;
  /** The issuer, `{PUBLIC_URL}/fapi/<instance>`, a real socket's address. */
  issuer: string;
  discovery: Record<string, unknown> & {
    authorization_endpoint: string;
    token_endpoint: string;
    userinfo_endpoint: string;
    jwks_uri: string;
    end_session_endpoint: string;
  };
  /** The suite's static client (client_secret_basic / _post) and a second one. */
  client: StaticClient;
  client2: StaticClient;
  user: { id: string; email: string; password: string };
  close(): Promise<void>;
}

export interface StaticClient {
  client_id: string;
  client_secret: string;
}

/** Starts the API on a real socket with one instance, the suite's two clients and a user with every standard claim. */
export async function startOp(o: HarnessOptions = {}): Promise<Op> {
  // Each browser is its own visitor (per-IP limits), told by its user agent's tag, as in clerk-browser.ts.
  const server = await startApiServer({
    ...o,
    beforeRequest: (req: IncomingMessage) => {
      const n = /ConformanceVisitor\/(\d+)/.exec(req.headers['user-agent'] ?? '')?.[1];
      if (n)
        Object.defineProperty(req.socket, 'remoteAddress', {
          value: `10.78.${Math.floor(Number(n) / 250)}.${(Number(n) % 250) + 1}`,
          configurable: true,
        });
    },
  });
  const { h } = server;
  const instance = await h.createInstance();
  const issuer = `${server.apiUrl}/fapi/${instance.instanceId}`;
  const bapi = async (path: string, body: unknown) => {
    const res = await fetch(`${server.apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${instance.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const app = (name: string) =>
    bapi('/v1/oauth_applications', {
      name,
      redirect_uris: [REDIRECT_URI],
      post_logout_redirect_uris: [POST_LOGOUT_REDIRECT_URI],
      scopes: ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'],
    }) as Promise<StaticClient & Record<string, unknown>>;
  const client = await app('Conformance RP');
  const client2 = await app('Conformance RP 2');
  const email = 'certification@conformance.test';
  const user = await bapi('/v1/users', {
    email_address: [email],
    phone_number: ['+14155550123'],
    username: 'conformance',
    first_name: 'Grace',
    last_name: 'Hopper',
    password: PASSWORD,
    locale: 'en',
    public_metadata: {
      middle_name: 'Brewster',
      nickname: 'Amazing Grace',
      profile: 'https://people.conformance.test/grace',
      picture: 'https://people.conformance.test/grace.png',
      website: 'https://grace.conformance.test',
      gender: 'female',
      birthdate: '1906-12-09',
      zoneinfo: 'America/New_York',
      address: {
        formatted: '1 Navy Way\nArlington, VA 22202\nUS',
        street_address: '1 Navy Way',
        locality: 'Arlington',
        region: 'VA',
        postal_code: '22202',
        country: 'US',
      },
    },
  });
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Op['discovery'];
  return {
    server,
    instance,
    issuer,
    discovery,
    client: { client_id: client.client_id, client_secret: client.client_secret },
    client2: { client_id: client2.client_id, client_secret: client2.client_secret },
    user: { id: user.id as string, email, password: PASSWORD },
    close: () => server.close(),
  };
}

/** The suite's random values: state, nonce, PKCE verifier (base64url of random bytes). */
export const random = (bytes = 16) => randomBytes(bytes).toString('base64url');
export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** What came back to the RP's redirect_uri: its parameters, and how (query or form post). */
export interface Callback {
  kind: 'callback';
  params: Record<string, string>;
  via: 'query' | 'form_post';
  /** Whether the hosted sign-in was asked for on the way, and with which query. */
  signIns: URL[];
}
export interface ErrorPage {
  kind: 'error-page';
  status: number;
  html: string;
}

/**
 * A browser with a cookie jar (the FAPI's `__client`), driven by a user who signs in when the
 * provider sends them to the hosted sign-in page and allows the consent page.
 */
let visitors = 0;

export class Browser {
  private readonly jar = new Map<string, string>();
  private readonly userAgent = `Mozilla/5.0 ConformanceVisitor/${++visitors}`;
  constructor(
    private readonly op: Op,
    private readonly signInAs: { email: string; password: string } = op.user,
  ) {}

  get cookie() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(c) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        'user-agent': this.userAgent,
        ...(this.jar.size ? { cookie: this.cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    this.keep(res);
    return res;
  }

  /** The user signs in through the FAPI, as the hosted sign-in page does (a new session on this browser's client). */
  async signIn() {
    const fapi = this.op.issuer;
    const res = await this.request(
      'POST',
      `${fapi}/v1/client/sign_ins`,
      { identifier: this.signInAs.email, strategy: 'password', password: this.signInAs.password },
      {
        origin: new URL(fapi).origin,
        'x-publishable-key': this.op.instance.publishableKey,
      },
    );
    const body = (await res.json()) as { response: { status: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.response.status).toBe('complete');
  }

  /**
   * Follows an authorization request (GET, or POST with `form`) to the RP's callback or an
   * error page: the hosted sign-in is played by signing in, then going back where it says;
   * the consent page is allowed.
   */
  async authorize(url: string, opts: { form?: Record<string, string>; consent?: 'allow' | 'deny' } = {}): Promise<Callback | ErrorPage> {
    const signIns: URL[] = [];
    let res = opts.form
      ? await this.request('POST', url, opts.form, { origin: 'https://rp.conformance.test' })
      : await this.request('GET', url);
    for (let hops = 0; hops < 10; hops++) {
      if (res.status === 302 || res.status === 303) {
        const location = new URL(res.headers.get('location')!);
        if (location.href.startsWith(REDIRECT_URI))
          return { kind: 'callback', params: Object.fromEntries(location.searchParams), via: 'query', signIns };
        if (location.pathname.endsWith('/sign-in')) {
          signIns.push(location);
          await this.signIn();
          res = await this.request('GET', location.searchParams.get('redirect_url')!);
          continue;
        }
        res = await this.request('GET', location.href);
        continue;
      }
      const html = await res.text();
      if (res.status !== 200) return { kind: 'error-page', status: res.status, html };
      const form = parseForm(html);
      if (form.action.startsWith(REDIRECT_URI)) return { kind: 'callback', params: form.fields, via: 'form_post', signIns };
      if (form.action.endsWith('/oauth2/consent')) {
        res = await this.request(
          'POST',
          form.action,
          { ...form.fields, decision: opts.consent ?? 'allow' },
          { origin: new URL(this.op.issuer).origin },
        );
        continue;
      }
      throw new Error(`unexpected page: ${html.slice(0, 300)}`);
    }
    throw new Error('too many redirects');
  }
}

/** The form of one of the provider's pages: its action and hidden fields. */
export function parseForm(html: string) {
  const unescape = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const action = /<form method="post" action="([^"]+)"/.exec(html);
  if (!action) throw new Error(`no form: ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[unescape(m[1]!)] = unescape(m[2]!);
  return { action: unescape(action[1]!), fields };
}

/** The suite's authorization request (CreateAuthorizationEndpointRequestFromClientInformation + state + nonce). */
export function authorizationRequest(op: Op, extra: Record<string, string | undefined> = {}, client: StaticClient = op.client) {
  const params: Record<string, string> = {
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    response_type: 'code',
    state: random(),
    nonce: random(),
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete params[k];
    else params[k] = v;
  }
  const url = new URL(op.discovery.authorization_endpoint);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { params, url: url.toString() };
}

/** CheckMatchingCallbackParameters, CheckIfAuthorizationEndpointError, CheckMatchingStateParameter, the RFC 9207 iss; the code. */
export function expectCode(op: Op, answer: Callback | ErrorPage, state: string | undefined): string {
  expect(answer.kind, answer.kind === 'error-page' ? answer.html : '').toBe('callback');
  const cb = answer as Callback;
  expect(cb.params.error, cb.params.error_description).toBeUndefined();
  expect(cb.params.state).toBe(state);
  expect(cb.params.iss).toBe(op.issuer);
  expect(cb.params.code).toMatch(/^oac_/);
  return cb.params.code!;
}

/** An error at the redirect_uri (with state and iss), as the suite's CheckErrorFromAuthorizationEndpoint… conditions read it. */
export function expectCallbackError(op: Op, answer: Callback | ErrorPage, state: string | undefined, errors: string[]) {
  expect(answer.kind, answer.kind === 'error-page' ? answer.html : '').toBe('callback');
  const cb = answer as Callback;
  expect(errors).toContain(cb.params.error);
  expect(cb.params.code).toBeUndefined();
  if (state !== undefined) expect(cb.params.state).toBe(state);
  expect(cb.params.iss).toBe(op.issuer);
  // ValidateErrorDescriptionFromAuthorizationEndpoint: printable ASCII but " and \.
  if (cb.params.error_description !== undefined) expect(cb.params.error_description).toMatch(/^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/);
  return cb;
}

interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
}

/** The token endpoint with client_secret_basic (default) or client_secret_post. */
export async function callToken(
  op: Op,
  body: Record<string, string>,
  opts: { auth?: 'client_secret_basic' | 'client_secret_post'; client?: StaticClient } = {},
) {
  const c = opts.client ?? op.client;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const form = { ...body };
  if ((opts.auth ?? 'client_secret_basic') === 'client_secret_basic') {
    const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${enc(c.client_id)}:${enc(c.client_secret)}`).toString('base64')}`;
  } else {
    form.client_id = c.client_id;
    form.client_secret = c.client_secret;
  }
  const res = await fetch(op.discovery.token_endpoint, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  const json = (await res.json()) as TokenResponse & { error?: string; error_description?: string };
  // ValidateErrorDescriptionFromTokenEndpointResponseError: printable ASCII but " and \.
  if (json.error_description !== undefined) expect(json.error_description).toMatch(/^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/);
  return { status: res.status, headers: res.headers, body: json };
}

/** CallTokenEndpoint … CheckForAccessTokenValue, ExtractExpiresIn/ValidateExpiresIn, token_type Bearer, Cache-Control: no-store. */
export async function exchangeCode(op: Op, code: string, extra: Record<string, string> = {}, opts: Parameters<typeof callToken>[2] = {}) {
  const res = await callToken(op, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...extra }, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body.access_token).toEqual(expect.any(String));
  expect(res.body.token_type.toLowerCase()).toBe('bearer');
  expect(Number.isInteger(res.body.expires_in) && res.body.expires_in > 0).toBe(true);
  return res.body;
}

let jwksCache: { issuer: string; set: JSONWebKeySet } | null = null;
export async function serverJwks(op: Op, fresh = false): Promise<JSONWebKeySet> {
  if (!fresh && jwksCache?.issuer === op.issuer) return jwksCache.set;
  const set = (await (await fetch(op.discovery.jwks_uri)).json()) as JSONWebKeySet;
  jwksCache = { issuer: op.issuer, set };
  return set;
}

/**
 * ValidateIdToken, ValidateIdTokenNonce, ValidateIdTokenACRClaimAgainstRequest,
 * ValidateIdTokenSignature(UsingKid), CheckForSubjectInIdToken: the suite's ID token checks.
 */
export async function validateIdToken(
  op: Op,
  idToken: string | undefined,
  expected: { nonce?: string; client?: StaticClient; maxAgeRequested?: boolean; acrRequested?: string[] },
) {
  expect(idToken, 'an id_token').toEqual(expect.any(String));
  const header = decodeProtectedHeader(idToken!);
  expect(header.alg).toBe('RS256');
  expect(header.kid, 'ValidateIdTokenSignatureUsingKid: a kid').toEqual(expect.any(String));
  const keys = await serverJwks(op, true);
  expect(keys.keys.filter((k) => k.kid === header.kid)).toHaveLength(1);
  const c = expected.client ?? op.client;
  const { payload } = await jwtVerify(idToken!, createLocalJWKSet(keys), {
    issuer: op.issuer,
    audience: c.client_id,
    currentDate: new Date(op.server.h.clock.now()),
  });
  expect(payload.sub).toEqual(expect.any(String));
  expect(payload.sub!.length).toBeLessThanOrEqual(255);
  expect(typeof payload.iat).toBe('number');
  expect(typeof payload.exp).toBe('number');
  expect(payload.exp! > payload.iat!).toBe(true);
  // Not issued in the future, and not too long ago (the suite allows 5 minutes of skew).
  const now = Math.floor(op.server.h.clock.now() / 1000);
  expect(payload.iat!).toBeLessThanOrEqual(now + 300);
  expect(payload.iat!).toBeGreaterThan(now - 300);
  if (Array.isArray(payload.aud) && payload.aud.length > 1) expect(payload.azp).toBe(c.client_id);
  if (payload.azp !== undefined) expect(payload.azp).toBe(c.client_id);
  if (expected.nonce !== undefined) expect(payload.nonce).toBe(expected.nonce);
  else expect(payload.nonce).toBeUndefined();
  if (expected.maxAgeRequested) expect(typeof payload.auth_time).toBe('number');
  if (payload.auth_time !== undefined) expect(payload.auth_time as number).toBeLessThanOrEqual(now + 300);
  if (payload.acr !== undefined) expect(typeof payload.acr).toBe('string');
  if (expected.acrRequested) expect(expected.acrRequested).toContain(payload.acr);
  if (payload.amr !== undefined)
    expect(Array.isArray(payload.amr) && (payload.amr as unknown[]).every((v) => typeof v === 'string')).toBe(true);
  return payload;
}

/** CallUserInfoEndpointWithBearerToken (GET, header), or POST with the token in the header or the form body. */
export async function callUserInfo(op: Op, accessToken: string, how: 'get' | 'post-header' | 'post-body' = 'get') {
  const url = op.discovery.userinfo_endpoint;
  const res =
    how === 'get'
      ? await fetch(url, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } })
      : how === 'post-header'
        ? await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } })
        : await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
            body: new URLSearchParams({ access_token: accessToken }).toString(),
          });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as Record<string, unknown>;
}

/** pyoidc's scope → standard claims table the suite checks the UserInfo answer against (VerifyScopesReturnedInUserInfoClaims). */
const SCOPE_STANDARD_CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  profile: [
    'name',
    'given_name',
    'family_name',
    'middle_name',
    'nickname',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
    'preferred_username',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
  offline_access: [],
};

/**
 * ValidateUserInfoStandardClaims, EnsureUserInfoContainsSub, EnsureUserInfoBirthDateValid,
 * EnsureUserInfoUpdatedAtValid, VerifyUserInfoAndIdTokenInTokenEndpointSameSub, and
 * VerifyScopesReturnedInUserInfoClaims (a WARNING in the suite: a failure here).
 */
export function validateUserInfo(userinfo: Record<string, unknown>, idToken: JWTPayload | null, scope: string) {
  expect(userinfo.sub).toEqual(expect.any(String));
  if (idToken) expect(userinfo.sub).toBe(idToken.sub);
  const strings = [
    'name',
    'given_name',
    'family_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'email',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'phone_number',
  ];
  for (const k of strings) if (k in userinfo) expect(typeof userinfo[k], k).toBe('string');
  for (const k of ['email_verified', 'phone_number_verified']) if (k in userinfo) expect(typeof userinfo[k], k).toBe('boolean');
  if ('updated_at' in userinfo) expect(Number.isInteger(userinfo.updated_at)).toBe(true);
  if ('birthdate' in userinfo) expect(userinfo.birthdate).toMatch(/^(\d{4})(-\d{2}-\d{2})?$/);
  if ('address' in userinfo) {
    expect(typeof userinfo.address).toBe('object');
    for (const v of Object.values(userinfo.address as object)) expect(typeof v).toBe('string');
  }
  const expected = scope.split(' ').flatMap((s) => SCOPE_STANDARD_CLAIMS[s] ?? []);
  expect(Object.keys(userinfo)).toEqual(expect.arrayContaining(expected));
}

/** The full code flow of oidcc-server and its kin: authorize, callback checks, token, ID token; returns what the rest of a module needs. */
export async function codeFlow(
  op: Op,
  browser: Browser,
  extra: Record<string, string | undefined> = {},
  opts: { tokenAuth?: 'client_secret_basic' | 'client_secret_post'; form?: boolean; client?: StaticClient; verifier?: string } = {},
) {
  const req = authorizationRequest(op, extra, opts.client);
  const answer = opts.form
    ? await browser.authorize(op.discovery.authorization_endpoint, { form: req.params })
    : await browser.authorize(req.url);
  const code = expectCode(op, answer, req.params.state);
  if (req.params.response_mode === 'form_post') expect((answer as Callback).via).toBe('form_post');
  else expect((answer as Callback).via).toBe('query');
  const tokens = await exchangeCode(op, code, opts.verifier ? { code_verifier: opts.verifier } : {}, {
    auth: opts.tokenAuth,
    client: opts.client,
  });
  const idToken = await validateIdToken(op, tokens.id_token, {
    nonce: req.params.nonce,
    client: opts.client,
    maxAgeRequested: req.params.max_age !== undefined,
  });
  return { req, answer: answer as Callback, code, tokens, idToken };
}
