import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestHarness } from './harness';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/**
 * A fake LTI 1.3 platform (an LMS) on a local port, built on jose: its own RSA keys and
 * JWKS, and an OIDC authorization endpoint that answers a login's redirect the way a
 * platform does — an auto-submitting form that posts the signed id_token and the state to
 * the redirect_uri (response_mode=form_post). `claims` shapes the next id_token, so tests
 * can make every bad launch of the certification list.
 */
export interface FakePlatform {
  issuer: string;
  clientId: string;
  deploymentId: string;
  authorizationEndpoint: string;
  jwksUri: string;
  /** Number of JWKS fetches served. */
  jwksFetches: number;
  /** Changes the next id_tokens: a function of the standard claims. */
  claims: (c: Record<string, unknown>) => Record<string, unknown>;
  /** How the next id_tokens are signed: `kid` (null: none), `key` (another private key). */
  signing: { kid?: string | null; key?: CryptoKey };
  /** The last authorization request's query. */
  lastAuthorization: URLSearchParams | null;
  sign(payload: JWTPayload, opts?: { kid?: string | null; key?: CryptoKey; exp?: number; iat?: number }): Promise<string>;
  /** Signs a launch for an authorization request (its nonce, the platform's standard claims). */
  launchToken(auth: URLSearchParams, sub?: string): Promise<string>;
  close(): Promise<void>;
}

const KID = 'platform-key-1';
const LTI = 'https://purl.imsglobal.org/spec/lti/claim';

export async function startFakePlatform(opts: { clientId?: string; deploymentId?: string; targetLinkUri: string }): Promise<FakePlatform> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', platform.issuer);
    if (url.pathname === '/jwks') {
      platform.jwksFetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    if (url.pathname === '/authorize') {
      platform.lastAuthorization = url.searchParams;
      const idToken = await platform.launchToken(url.searchParams);
      const fields = { id_token: idToken, state: url.searchParams.get('state') ?? '' };
      const inputs = Object.entries(fields)
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
        .join('');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<form method="post" action="${url.searchParams.get('redirect_uri')}">${inputs}</form><script>document.forms[0].submit()</script>`,
      );
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const platform: FakePlatform = {
    issuer: base,
    clientId: opts.clientId ?? 'tool-client-1',
    deploymentId: opts.deploymentId ?? 'deployment-1',
    authorizationEndpoint: `${base}/authorize`,
    jwksUri: `${base}/jwks`,
    jwksFetches: 0,
    claims: (c) => c,
    signing: {},
    lastAuthorization: null,
    async sign(payload, o = {}) {
      const kid = o.kid === undefined ? KID : o.kid;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT(payload)
        .setProtectedHeader(kid === null ? { alg: 'RS256' } : { alg: 'RS256', kid })
        .setIssuedAt(o.iat ?? now)
        .setExpirationTime(o.exp ?? now + 300)
        .sign(o.key ?? privateKey);
    },
    async launchToken(auth, sub = 'learner-1') {
      const standard: Record<string, unknown> = {
        iss: platform.issuer,
        aud: platform.clientId,
        sub,
        nonce: auth.get('nonce'),
        email: 'learner@school.example',
        given_name: 'Lee',
        family_name: 'Learner',
        picture: 'https://school.example/lee.png',
        [`${LTI}/message_type`]: 'LtiResourceLinkRequest',
        [`${LTI}/version`]: '1.3.0',
        [`${LTI}/deployment_id`]: platform.deploymentId,
        [`${LTI}/target_link_uri`]: opts.targetLinkUri,
        [`${LTI}/resource_link`]: { id: 'link-42', title: 'Week 1 quiz' },
        [`${LTI}/context`]: { id: 'course-7', title: 'Biology 101', label: 'BIO101' },
        [`${LTI}/roles`]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
      };
      const { exp, iat, ...claims } = platform.claims(standard) as Record<string, unknown> & { exp?: number; iat?: number };
      return platform.sign(claims as JWTPayload, { ...platform.signing, exp, iat });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return platform;
}

/** What the platform's authorization answered: the form it posts back to the launch URL, and the state cookie the login set. */
export interface Authorized {
  location: URL;
  stateCookie: string;
  idToken: string;
  state: string;
}

/**
 * The launch dance between `platform` and one instance's tool, over HTTP: the platform
 * starts a login (GET {fapi_url}/lti/login), its authorization endpoint (real HTTP to the
 * fake) answers the form it posts back, and the browser posts it to the launch URL.
 */
export function ltiLaunches(h: TestHarness, instanceId: string, platform: FakePlatform, targetLinkUri: string) {
  const fapi = `/fapi/${instanceId}`;
  /** The platform starts a launch: GET {fapi_url}/lti/login. */
  function login(params: Record<string, string> = {}, cookie?: string) {
    const q = new URLSearchParams({
      iss: platform.issuer,
      login_hint: 'lh-1',
      target_link_uri: targetLinkUri,
      client_id: platform.clientId,
      ...params,
    });
    return h.request('GET', `${fapi}/lti/login?${q}`, cookie ? { headers: { cookie } } : {});
  }
  /** Login, then the platform's authorization answer: the form it posts back. */
  async function authorize(params: Record<string, string> = { lti_message_hint: 'mh-1' }): Promise<Authorized & { setCookie: string[] }> {
    // The platform's clock agrees with the tool's (the harness clock), however long the file has run.
    const shape = platform.claims;
    const iat = Math.floor(h.clock.now() / 1000);
    platform.claims = (c) => ({ iat, exp: iat + 300, ...shape(c) });
    try {
      return await authorizeNow(params);
    } finally {
      platform.claims = shape;
    }
  }
  async function authorizeNow(params: Record<string, string>): Promise<Authorized & { setCookie: string[] }> {
    const res = await login(params);
    if (res.status !== 302) throw new Error(`LTI login answered ${res.status}: ${await res.text()}`);
    const location = new URL(res.headers.get('location')!);
    const page = await (await fetch(location)).text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;
    const setCookie = res.headers.getSetCookie();
    const stateCookie = setCookie.find((c) => c.startsWith('lti_state_'))!.split(';')[0]!;
    return { location, stateCookie, idToken: field('id_token'), state: field('state'), setCookie };
  }
  /** The form post of the platform's page inside the LMS: cross-site, with the cookies the browser sends (none: a browser that blocks them). */
  function launch(form: Record<string, string>, cookie?: string) {
    return h.request('POST', `${fapi}/lti/launch`, {
      raw: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: platform.issuer, ...(cookie ? { cookie } : {}) },
    });
  }
  /** A launch as `claims` shape the next id_token (a learner: sub, email): authorize, then post. */
  async function launchAs(claims: Record<string, unknown>, cookie?: (a: Authorized) => string | undefined) {
    const shape = platform.claims;
    platform.claims = (c) => ({ ...c, ...claims });
    try {
      const a = await authorize();
      return await launch({ id_token: a.idToken, state: a.state }, cookie?.(a));
    } finally {
      platform.claims = shape;
    }
  }
  return { login, authorize, launch, launchAs };
}
