import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type StartedApi } from '../../test-support/api-process';
import { loopbackProxy, type LoopbackProxy } from '../../test-support/loopback-proxy';
import {
  authenticateRequest,
  createBapiClient,
  createTokenVerifier,
  JwksUnavailableError,
  LatchkeyApiError,
  LatchkeyNetworkError,
  latchkeyExpress,
  latchkeyHono,
  verifyToken,
  type BapiClient,
  type RequestState,
} from '../src/index';
import { createNextAuth } from '../src/next';

/**
 * The SDK as a customer runs it: the API started as `npm run api` (a child process on a free
 * port, the embedded store), and the SDK with its default transport (no injected fetch). The
 * key set is fetched over HTTP; faults come from a loopback proxy in front of the API.
 */
let api: StartedApi;
let bapi: BapiClient;
beforeAll(async () => {
  api = await startApi();
  bapi = createBapiClient({ secretKey: api.secretKey, apiUrl: api.url });
}, 120_000);
afterAll(() => api?.stop());

let n = 0;
async function sessionJwt() {
  const user = await bapi.users.create({ email_address: [`sockets${n++}@example.com`] });
  const session = await bapi.sessions.create({ user_id: user.id });
  return { userId: user.id, sessionId: session.id, jwt: session.jwt };
}

/** A proxy in front of the API, and the key set's URL through it. */
async function proxied() {
  const proxy = await loopbackProxy(api.url);
  const jwksUrl = `${proxy.url}${new URL(api.fapiUrl).pathname}/.well-known/jwks.json`;
  const jwksFetches = () => proxy.seen.filter((r) => r.path.endsWith('/.well-known/jwks.json')).length;
  return { proxy, jwksUrl, jwksFetches };
}

describe('token verification with the default fetch', () => {
  it('verifyToken, authenticateRequest, Express, Hono and Next.js accept a valid token from the publishable key alone', async () => {
    const { userId, sessionId, jwt } = await sessionJwt();
    const publishableKey = api.publishableKey;
    await expect(verifyToken(jwt, { publishableKey })).resolves.toMatchObject({ userId, sessionId, sessionStatus: 'active' });
    await expect(verifyToken(jwt, { issuer: api.fapiUrl })).resolves.toMatchObject({ userId });
    const request = new Request('https://app.example.com/api', { headers: { authorization: `Bearer ${jwt}` } });
    expect(await authenticateRequest(request, { publishableKey })).toMatchObject({ status: 'signed-in', auth: { userId } });
    expect(await createNextAuth({ publishableKey }).auth(request)).toMatchObject({ status: 'signed-in' });

    const app = express();
    app.get('/me', latchkeyExpress({ publishableKey, requireAuth: true }), (req, res) => {
      res.json({ userId: (req as unknown as { auth: RequestState }).auth.auth?.userId });
    });
    const server = createServer(app).listen(0, '127.0.0.1');
    try {
      await new Promise((r) => server.once('listening', r));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const me = await fetch(`${base}/me`, { headers: { cookie: `__session=${jwt}` } });
      expect([me.status, await me.json()]).toEqual([200, { userId }]);
    } finally {
      server.close();
    }
    const hono = new Hono<{ Variables: { latchkey: RequestState } }>();
    hono.use('*', latchkeyHono({ publishableKey, requireAuth: true }));
    hono.get('/me', (c) => c.json({ userId: c.get('latchkey').auth?.userId }));
    const res = await hono.request('/me', { headers: { authorization: `Bearer ${jwt}` } });
    expect([res.status, await res.json()]).toEqual([200, { userId }]);
  });

  it('options passed as undefined keep their defaults', async () => {
    const { userId, jwt } = await sessionJwt();
    const v = createTokenVerifier({
      publishableKey: api.publishableKey,
      fetch: undefined,
      clockSkew: undefined,
      now: undefined,
      jwksUrl: undefined,
      jwks: { timeoutMs: undefined, ttlMs: undefined, cooldownMs: undefined, maxStaleMs: undefined },
    });
    await expect(v.verify(jwt)).resolves.toMatchObject({ userId });
    expect(v.jwks.fetchCount.value).toBe(1);
  });

  it('a warm verifier sees a key rotation: one refetch for the new kid, over HTTP', async () => {
    const { proxy, jwksUrl, jwksFetches } = await proxied();
    try {
      const v = createTokenVerifier({ publishableKey: api.publishableKey, jwksUrl, jwks: { cooldownMs: undefined } });
      await v.verify((await sessionJwt()).jwt);
      await v.verify((await sessionJwt()).jwt);
      expect(jwksFetches()).toBe(1);
      // The next key is published ahead of use: the first rotation needs no refetch, the second does.
      await bapi.jwks.rotate();
      await bapi.jwks.rotate();
      const after = await sessionJwt();
      await expect(v.verify(after.jwt)).resolves.toMatchObject({ userId: after.userId });
      expect(jwksFetches()).toBe(2);
    } finally {
      await proxy.down();
    }
  });

  it('serves the stale key set while the key-set endpoint is down (stale-if-error), and says so when nothing is cached', async () => {
    const { proxy, jwksUrl, jwksFetches } = await proxied();
    const v = createTokenVerifier({ publishableKey: api.publishableKey, jwksUrl, jwks: { ttlMs: 200 } });
    const { userId, jwt } = await sessionJwt();
    await v.verify(jwt);
    expect(jwksFetches()).toBe(1);
    await proxy.down();
    await new Promise((r) => setTimeout(r, 250));
    await expect(v.verify(jwt)).resolves.toMatchObject({ userId });
    expect(v.jwks.fetchCount.value).toBe(2); // it tried, and fell back on the copy it had
    const cold = createTokenVerifier({ publishableKey: api.publishableKey, jwksUrl });
    const err = await cold.verify(jwt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JwksUnavailableError);
    expect((err as JwksUnavailableError).cause).toBeInstanceOf(Error);
  });

  it('refetches a key set once its ttlMs has passed', async () => {
    const { proxy, jwksUrl, jwksFetches } = await proxied();
    try {
      const v = createTokenVerifier({ publishableKey: api.publishableKey, jwksUrl, jwks: { ttlMs: 150 } });
      const { jwt } = await sessionJwt();
      await v.verify(jwt);
      await v.verify(jwt);
      expect(jwksFetches()).toBe(1);
      await new Promise((r) => setTimeout(r, 200));
      await v.verify(jwt);
      expect(jwksFetches()).toBe(2);
    } finally {
      await proxy.down();
    }
  });

  it('verifyToken and authenticateRequest keep one verifier per configuration, jwks options included', async () => {
    const { proxy, jwksUrl, jwksFetches } = await proxied();
    try {
      const { jwt } = await sessionJwt();
      const publishableKey = api.publishableKey;
      await verifyToken(jwt, { publishableKey, jwksUrl });
      await verifyToken(jwt, { publishableKey, jwksUrl, jwks: { ttlMs: undefined } });
      expect(jwksFetches()).toBe(1);
      // Another configuration: its own verifier and key set, never the first one's.
      await verifyToken(jwt, { publishableKey, jwksUrl, jwks: { ttlMs: 1_000 } });
      expect(jwksFetches()).toBe(2);
      const req = { headers: { authorization: `Bearer ${jwt}` } };
      await authenticateRequest(req, { publishableKey, jwksUrl, jwks: { cooldownMs: 1_000 } });
      await authenticateRequest(req, { publishableKey, jwksUrl, jwks: { cooldownMs: 1_000 } });
      expect(jwksFetches()).toBe(3);
      await authenticateRequest(req, { publishableKey, jwksUrl, jwks: { cooldownMs: 2_000 } });
      expect(jwksFetches()).toBe(4);
    } finally {
      await proxy.down();
    }
  });
});

describe('requests and their states', () => {
  it('authenticateRequest: bearer header, __session cookie, nothing, and a stale cookie', async () => {
    const { userId, jwt } = await sessionJwt();
    const publishableKey = api.publishableKey;
    const bearer = await authenticateRequest(new Request('https://app.example.com/api', { headers: { authorization: `Bearer ${jwt}` } }), {
      publishableKey,
    });
    expect(bearer).toMatchObject({ status: 'signed-in', source: 'header', auth: { userId } });
    expect(await authenticateRequest({ headers: { cookie: `theme=dark; __session=${jwt}` } }, { publishableKey })).toMatchObject({
      status: 'signed-in',
      source: 'cookie',
    });
    expect(await authenticateRequest({ headers: {} }, { publishableKey })).toMatchObject({ status: 'signed-out', reason: 'no-token' });
    // A day later (the clock given, the transport the default one).
    const later = () => Date.now() + 24 * 3600_000;
    expect(await authenticateRequest({ headers: { cookie: `__session=${jwt}` } }, { publishableKey, now: later })).toMatchObject({
      status: 'handshake',
      reason: 'expired',
    });
    expect(await authenticateRequest({ headers: { authorization: `Bearer ${jwt}` } }, { publishableKey, now: later })).toMatchObject({
      status: 'signed-out',
      reason: 'expired',
    });
  });

  it('Next.js middleware: a signed-in request passes, a signed-out page visit goes to sign-in, a signed-out API call gets 401', async () => {
    const { jwt } = await sessionJwt();
    const next = createNextAuth({ publishableKey: api.publishableKey, signInUrl: 'https://accounts.example.com/sign-in' });
    const mw = next.middleware({ protect: (u) => u.pathname.startsWith('/dashboard') || u.pathname.startsWith('/api') });
    expect(await mw(new Request('https://app.example.com/'))).toBeUndefined();
    expect(await mw(new Request('https://app.example.com/dashboard', { headers: { cookie: `__session=${jwt}` } }))).toBeUndefined();
    const redirect = await mw(new Request('https://app.example.com/dashboard'));
    expect(redirect?.status).toBe(307);
    expect(redirect?.headers.get('location')).toBe(
      'https://accounts.example.com/sign-in?redirect_url=https%3A%2F%2Fapp.example.com%2Fdashboard',
    );
    const refused = await mw(new Request('https://app.example.com/api/x'));
    expect(refused?.status).toBe(401);
    expect(await refused?.json()).toMatchObject({ errors: [{ code: 'UNAUTHENTICATED' }] });
  });
});

describe('the backend API client', () => {
  it('creates users and iterates every one of them across pages', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await bapi.users.create({ email_address: [`paged${i}@example.com`] })).id);
    const seen: string[] = [];
    for await (const u of bapi.users.list({ limit: 2 })) seen.push(u.id);
    expect(seen).toEqual(expect.arrayContaining(made));
    expect(new Set(seen).size).toBe(seen.length);
    expect(await bapi.users.get(made[0]!)).toMatchObject({ object: 'user', id: made[0] });
  });

  it('reports an API error with its code, status and trace id', async () => {
    const err = await bapi.users.get('user_01HZZZZZZZZZZZZZZZZZZZZZZZ').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatchkeyApiError);
    expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND', traceId: expect.stringMatching(/^req_/) });
  });
});

describe('the backend API client through a misbehaving network', () => {
  let proxy: LoopbackProxy;
  beforeAll(async () => {
    proxy = await loopbackProxy(api.url);
  });
  afterAll(() => proxy?.down());

  it('retries a lost answer, a 429 with Retry-After, a 503 and a closed socket with one Idempotency-Key: one user is created', async () => {
    const client = createBapiClient({ secretKey: api.secretKey, apiUrl: proxy.url, timeoutMs: 1_500, baseDelayMs: 20, maxRetries: 4 });
    proxy.seen.length = 0;
    proxy.fail(
      { kind: 'drop' },
      { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
      { kind: 'status', status: 503 },
      { kind: 'close' },
    );
    const email = 'retried@example.com';
    const user = await client.users.create({ email_address: [email] });
    const attempts = proxy.seen.filter((r) => r.method === 'POST' && r.path === '/v1/users');
    expect(attempts.map((r) => r.fault)).toEqual(['drop', 'status', 'status', 'close', 'passed']);
    expect(new Set(attempts.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(attempts[0]!.idempotencyKey).toMatch(/\S/);
    // Never sooner than the server's Retry-After.
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(1_000);
    // The first attempt reached the API (only its answer was lost): the retry got that user back.
    const listed = await bapi.users.list({ email_address: email }).toArray();
    expect(listed.map((u) => u.id)).toEqual([user.id]);
  }, 30_000);

  it('gives up after its retries with the last answer, or a network error when the port refuses', async () => {
    const client = createBapiClient({ secretKey: api.secretKey, apiUrl: proxy.url, baseDelayMs: 10, maxRetries: 2 });
    proxy.fail(...Array.from({ length: 3 }, () => ({ kind: 'status', status: 503, headers: { 'retry-after': '0' } }) as const));
    const err = await client.users
      .list()
      .firstPage()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatchkeyApiError);
    expect(err).toMatchObject({ status: 503, retryAfter: 0 });

    const gone = await loopbackProxy(api.url);
    await gone.down();
    const refused = createBapiClient({ secretKey: api.secretKey, apiUrl: gone.url, baseDelayMs: 10, maxRetries: 1 });
    await expect(refused.users.list().firstPage()).rejects.toBeInstanceOf(LatchkeyNetworkError);
  });
});
