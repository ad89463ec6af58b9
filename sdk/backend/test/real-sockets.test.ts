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

describe('the backend API client through a misbehaving network', () => {
  let proxy: LoopbackProxy;
  beforeAll(async () => {
    proxy = await loopbackProxy(api.url);
  });
  afterAll(() => proxy?.down());

  it('retries a lost answer, a 429 with Retry-After, a 503 and a closed socket with one Idempotency-Key: one user is created', async () => {
    const client = createBapiClient({ secretKey: api.secretKey, apiUrl: proxy.url, timeoutMs: 1_500, baseDelayMs: 20, maxRetries: 4 });
    proxy.seen.length = 0;
    proxy.fail({ kind: 'drop' }, { kind: 'status', status: 429, headers: { 'retry-after': '1' } }, { kind: 'status', status: 503 }, { kind: 'close' });
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
    const err = await client.users.list().firstPage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatchkeyApiError);
    expect(err).toMatchObject({ status: 503, retryAfter: 0 });

    const gone = await loopbackProxy(api.url);
    await gone.down();
    const refused = createBapiClient({ secretKey: api.secretKey, apiUrl: gone.url, baseDelayMs: 10, maxRetries: 1 });
    await expect(refused.users.list().firstPage()).rejects.toBeInstanceOf(LatchkeyNetworkError);
  });
});
