import * as client from 'openid-client';
import type { FapiTestClient } from './fapi-client';
import type { TestHarness } from './harness';
import type { TestInstance } from './auth-flows';

/** Helpers for OpenID Provider tests: a real relying party (openid-client) talking to the in-process provider. */

/** A fetch for openid-client that sends every request into the harness (the provider lives at http://localhost:3000). */
function harnessFetch(h: TestHarness): client.CustomFetch {
  return async (url, options) => {
    const u = new URL(url);
    const headers: Record<string, string> = {};
    new Headers(options.headers as HeadersInit).forEach((v, k) => (headers[k] = v));
    const raw = options.body === undefined || options.body === null ? undefined : String(options.body);
    return h.request(options.method ?? 'GET', `${u.pathname}${u.search}`, { headers, raw });
  };
}

export const fapiUrlOf = (i: TestInstance) => `http://localhost:3000/fapi/${i.instanceId}`;

/** An OAuth application created over BAPI; `client_secret` is null for a public one. */
export async function createOAuthApp(h: TestHarness, i: TestInstance, body: Record<string, unknown> = {}) {
  const res = await h.call('POST', '/v1/oauth_applications', {
    key: i.secret,
    body: { name: 'Acme RP', redirect_uris: ['https://rp.example.com/callback'], ...body },
  });
  if (res.status !== 201) throw new Error(`creating the app failed: ${JSON.stringify(res.body)}`);
  return res.body as { client_id: string; client_secret: string | null; redirect_uris: string[] } & Record<string, unknown>;
}

/** openid-client's configuration for an app, discovered from the provider, with its non-repudiation checks on. */
export async function relyingParty(
  h: TestHarness,
  i: TestInstance,
  app: { client_id: string; client_secret: string | null },
  auth?: client.ClientAuth,
) {
  const clientAuth = auth ?? (app.client_secret ? client.ClientSecretBasic(app.client_secret) : client.None());
  const config = await client.discovery(new URL(fapiUrlOf(i)), app.client_id, undefined, clientAuth, {
    [client.customFetch]: harnessFetch(h),
    execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
  });
  config[client.customFetch] = harnessFetch(h);
  return config;
}

/** A browser request to the provider, carrying the FAPI cookie of `b` (as a browser would: it is scoped to the fapi_url). */
export async function browserGet(h: TestHarness, b: FapiTestClient | null, url: string | URL) {
  const u = new URL(url);
  const headers: Record<string, string> = {};
  if (b?.token) headers.cookie = `__client=${b.token}`;
  return h.request('GET', `${u.pathname}${u.search}`, { headers });
}

/** Posts a form of the provider's page as the browser (same origin), e.g. the consent decision. */
export async function browserPost(
  h: TestHarness,
  b: FapiTestClient | null,
  path: string,
  form: Record<string, string>,
  origin = 'http://localhost:3000',
) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', origin };
  if (b?.token) headers.cookie = `__client=${b.token}`;
  return h.request('POST', path, { headers, raw: new URLSearchParams(form).toString() });
}

/** The hidden fields of the consent page's form. */
export function consentForm(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  const unescape = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) out[unescape(m[1]!)] = unescape(m[2]!);
  return out;
}

/** Starts a code flow with PKCE: the authorization URL and what the RP keeps to check the answer. */
export async function startCodeFlow(config: client.Configuration, extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'https://rp.example.com/callback',
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { url, verifier, state, nonce };
}
