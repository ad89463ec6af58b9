import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * Identity providers on loopback for social sign-in tests: a real OpenID Provider
 * (`oidc-provider`) whose login interaction signs in whoever `loginAs` names, and a small
 * fake of GitHub's OAuth 2.0 endpoints and REST API.
 */

export interface IdpAccount {
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

/** oidc-provider ships no types (bench/oidc-provider-module.d.ts declares its constructor): what these tests use. */
interface OidcProvider {
  callback(): http.RequestListener;
  interactionDetails(req: http.IncomingMessage, res: http.ServerResponse): Promise<{ params: Record<string, unknown> }>;
  interactionFinished(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    result: Record<string, unknown>,
    opts: Record<string, unknown>,
  ): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => { addOIDCScope(scope: string): void; save(): Promise<string> };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface OidcClientSpec {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/**
 * An OpenID Provider on loopback, in two steps: it listens at once (its issuer is known, to
 * register it with us), and answers once `serve` names its client (whose redirect URIs are
 * known only once registered). Its login interaction signs in whoever `loginAs` names, with
 * the claims of `accounts`.
 */
export async function openOidcIdp() {
  const accounts = new Map<string, IdpAccount>();
  const state = { loginAs: '' };
  let handler: http.RequestListener = (_req, res) => {
    res.statusCode = 503;
    res.end('not serving yet');
  };
  const server = http.createServer((req, res) => handler(req, res));
  const issuer = await listen(server);
  function serve(opts: OidcClientSpec) {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: opts.clientId,
          client_secret: opts.clientSecret,
          redirect_uris: opts.redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub, ...accounts.get(sub) }) }),
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      cookies: { keys: [randomBytes(16).toString('hex')] },
    }) as unknown as OidcProvider;
    const callback = provider.callback();
    handler = (req, res) => {
      if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
      void (async () => {
        const details = await provider.interactionDetails(req, res);
        const accountId = state.loginAs;
        const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
      })().catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    };
  }
  return {
    issuer,
    accounts,
    serve,
    /** The account the next login interaction signs in. */
    set loginAs(sub: string) {
      state.loginAs = sub;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type OidcIdp = Awaited<ReturnType<typeof openOidcIdp>>;

/** An OpenID Provider on loopback serving one client at once. */
export async function startOidcIdp(opts: OidcClientSpec): Promise<OidcIdp> {
  const idp = await openOidcIdp();
  idp.serve(opts);
  return idp;
}

export interface FakeGitHubUser {
  id: number;
  login: string;
  name: string;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

export async function startFakeGitHub(opts: { clientId: string; clientSecret: string }) {
  const codes = new Map<string, { challenge: string; user: FakeGitHubUser; redirectUri: string }>();
  const tokens = new Map<string, FakeGitHubUser>();
  const state = { loginAs: null as FakeGitHubUser | null };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://github.test');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== opts.clientId || q.get('code_challenge_method') !== 'S256' || !state.loginAs)
        return json(400, { error: 'bad_request' });
      const code = randomBytes(8).toString('hex');
      codes.set(code, { challenge: q.get('code_challenge')!, user: state.loginAs, redirectUri: q.get('redirect_uri')! });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: back.href });
      return void res.end();
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const f = new URLSearchParams(raw);
        const entry = codes.get(f.get('code') ?? '');
        codes.delete(f.get('code') ?? '');
        const challenge = createHash('sha256')
          .update(f.get('code_verifier') ?? '')
          .digest('base64url');
        if (f.get('client_id') !== opts.clientId || f.get('client_secret') !== opts.clientSecret)
          return json(401, { error: 'invalid_client' });
        if (!entry || entry.challenge !== challenge || entry.redirectUri !== f.get('redirect_uri'))
          return json(400, { error: 'invalid_grant' });
        const token = `gho_${randomBytes(12).toString('hex')}`;
        tokens.set(token, entry.user);
        json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      });
      return;
    }
    const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!user) return json(401, { message: 'Bad credentials' });
    if (url.pathname === '/api/user') return json(200, { id: user.id, login: user.login, name: user.name });
    if (url.pathname === '/api/user/emails') return json(200, user.emails);
    // The same person as Discord (/users/@me) and Facebook's Graph API (/me) answer them.
    const primary = user.emails.find((e) => e.primary);
    const [first, ...rest] = user.name.split(' ');
    if (url.pathname === '/api/users/@me')
      return json(200, {
        id: String(user.id),
        username: user.login,
        global_name: user.name,
        email: primary?.email,
        verified: primary?.verified,
      });
    if (url.pathname === '/api/me')
      return json(200, {
        id: String(user.id),
        first_name: first,
        last_name: rest.join(' '),
        ...(primary?.verified ? { email: primary.email } : {}),
      });
    json(404, { message: 'Not Found' });
  });
  const base = await listen(server);
  return {
    base,
    endpoints: {
      authorization_endpoint: `${base}/login/oauth/authorize`,
      token_endpoint: `${base}/login/oauth/access_token`,
      api_base_url: `${base}/api`,
    },
    set loginAs(user: FakeGitHubUser) {
      state.loginAs = user;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Like browseUntil, for a provider that posts its answer back (response_mode form_post): the
 * fields of the auto-submitting form aimed at `stopAt`.
 */
export async function browseUntilFormPost(start: string, stopAt: string): Promise<URLSearchParams> {
  const jar = new Map<string, string>();
  let url = start;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (location) {
      url = new URL(location, url).href;
      continue;
    }
    const html = await res.text();
    if (!html.includes(`action="${stopAt}"`))
      throw new Error(`The provider answered ${res.status} without a form to ${stopAt}: ${html.slice(0, 500)}`);
    const fields = new URLSearchParams();
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields.set(m[1]!, m[2]!);
    return fields;
  }
  throw new Error('Too many redirects at the provider.');
}

/**
 * A browser at the identity provider: follows its redirects (keeping its cookies) until it
 * is sent back to `stopAt`, and returns that URL.
 */
export async function browseUntil(start: string, stopAt: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let i = 0; i < 20; i++) {
    if (url.startsWith(stopAt)) return new URL(url);
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`The provider answered ${res.status} without a redirect: ${(await res.text()).slice(0, 500)}`);
    url = new URL(location, url).href;
  }
  throw new Error('Too many redirects at the provider.');
}
