import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../../../server/testing/harness';
import { inProcessFetch } from '../../test-support/in-process';
import { authenticateRequest, createBapiClient, createTokenVerifier, latchkeyExpress, latchkeyHono, type RequestState } from '../src/index';
import { createNextAuth } from '../src/next';

const h = sharedHarness();
const i = sharedInstance(h);

const api = () => createBapiClient({ secretKey: i.secret, apiUrl: 'http://localhost:3000', fetch: inProcessFetch(h), sleep: async () => {} });
const auth = (extra = {}) => ({ publishableKey: i.publishableKey, fetch: inProcessFetch(h), ...extra });

async function signedInUser(email: string) {
  const user = await api().users.create({ email_address: [email] } as never);
  const session = await api().sessions.create({ user_id: user.id });
  return { user, session };
}

describe('@latchkey/backend against the API', () => {
  it('creates users and iterates every one of them across pages', async () => {
    const made = [];
    for (let n = 0; n < 5; n++) made.push((await api().users.create({ email_address: [`it${n}@example.com`] } as never)).id);
    const seen: string[] = [];
    for await (const u of api().users.list({ limit: 2 })) seen.push(u.id);
    expect(seen).toEqual(expect.arrayContaining(made));
    expect(new Set(seen).size).toBe(seen.length);
    const fetched = await api().users.get(made[0]!);
    expect(fetched).toMatchObject({ object: 'user', id: made[0] });
  });

  it('reports an API error with its code, status and trace id', async () => {
    const err = await api().users.get('user_01HZZZZZZZZZZZZZZZZZZZZZZZ').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 404, code: expect.any(String), traceId: expect.any(String) });
  });

  it('verifies a minted session JWT offline against the instance JWKS, from the publishable key', async () => {
    const { user, session } = await signedInUser('verify@example.com');
    const v = createTokenVerifier(auth());
    const claims = await v.verify(session.jwt);
    expect(claims).toMatchObject({ userId: user.id, sessionId: session.id, sessionStatus: 'active', actor: null });
    expect(v.jwks.fetchCount.value).toBe(1);
  });

  it('follows a signing key rotation through the JWKS endpoint', async () => {
    const v = createTokenVerifier(auth());
    const before = await signedInUser('rot1@example.com');
    await v.verify(before.session.jwt);
    // The next key is published ahead of use: one rotation needs no refetch, the second does.
    await api().jwks.rotate();
    const middle = await signedInUser('rot1b@example.com');
    await v.verify(middle.session.jwt);
    expect(v.jwks.fetchCount.value).toBe(1);
    await api().jwks.rotate();
    const after = await signedInUser('rot2@example.com');
    await expect(v.verify(after.session.jwt)).resolves.toMatchObject({ userId: after.user.id });
    expect(v.jwks.fetchCount.value).toBe(2);
    // Another instance's token: a kid this instance never published.
    const other = await h.createInstance();
    const foreign = await createBapiClient({ secretKey: other.secret, apiUrl: 'http://localhost:3000', fetch: inProcessFetch(h) }).users.create({ email_address: ['f@example.com'] } as never);
    const foreignSession = await createBapiClient({ secretKey: other.secret, apiUrl: 'http://localhost:3000', fetch: inProcessFetch(h) }).sessions.create({ user_id: foreign.id });
    await expect(v.verify(foreignSession.jwt)).rejects.toMatchObject({ reason: 'wrong_issuer' });
  });

  it('authenticateRequest: bearer header, __session cookie, nothing, and a stale cookie', async () => {
    const { user, session } = await signedInUser('authreq@example.com');
    const bearer = await authenticateRequest(new Request('https://app.example.com/api', { headers: { authorization: `Bearer ${session.jwt}` } }), auth());
    expect(bearer).toMatchObject({ status: 'signed-in', source: 'header', auth: { userId: user.id } });
    const cookie = await authenticateRequest({ headers: { cookie: `theme=dark; __session=${session.jwt}` } }, auth());
    expect(cookie).toMatchObject({ status: 'signed-in', source: 'cookie' });
    expect(await authenticateRequest({ headers: {} }, auth())).toMatchObject({ status: 'signed-out', reason: 'no-token' });
    const later = () => Date.now() + 24 * 3600_000;
    expect(await authenticateRequest({ headers: { cookie: `__session=${session.jwt}` } }, auth({ now: later }))).toMatchObject({ status: 'handshake', reason: 'expired' });
    expect(await authenticateRequest({ headers: { authorization: `Bearer ${session.jwt}` } }, auth({ now: later }))).toMatchObject({ status: 'signed-out', reason: 'expired' });
  });

  it('protects an Express app and a Hono app, and serves Next.js auth()', async () => {
    const { user, session } = await signedInUser('mw@example.com');
    const app = express();
    app.use(latchkeyExpress({ ...auth(), requireAuth: true }));
    app.get('/me', (req, res) => {
      res.json({ userId: (req as unknown as { auth: RequestState }).auth.auth?.userId });
    });
    const server = createServer(app).listen(0);
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const ok = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${session.jwt}` } });
      expect([ok.status, await ok.json()]).toEqual([200, { userId: user.id }]);
      const no = await fetch(`${base}/me`);
      expect(no.status).toBe(401);
      expect(await no.json()).toMatchObject({ errors: [{ code: 'UNAUTHENTICATED' }] });
    } finally {
      server.close();
    }

    const hono = new Hono<{ Variables: { latchkey: RequestState } }>();
    hono.use('*', latchkeyHono({ ...auth(), requireAuth: true }));
    hono.get('/me', (c) => c.json({ userId: c.get('latchkey').auth?.userId }));
    const res = await hono.request('/me', { headers: { authorization: `Bearer ${session.jwt}` } });
    expect([res.status, await res.json()]).toEqual([200, { userId: user.id }]);
    expect((await hono.request('/me')).status).toBe(401);

    const next = createNextAuth({ ...auth(), signInUrl: 'https://accounts.example.com/sign-in' });
    expect(await next.auth(new Request('https://app.example.com/api/x', { headers: { authorization: `Bearer ${session.jwt}` } }))).toMatchObject({ status: 'signed-in' });
    const mw = next.middleware({ protect: (u) => u.pathname.startsWith('/dashboard') });
    expect(await mw(new Request('https://app.example.com/'))).toBeUndefined();
    const redirect = await mw(new Request('https://app.example.com/dashboard'));
    expect(redirect?.status).toBe(307);
    expect(redirect?.headers.get('location')).toContain('redirect_url=https%3A%2F%2Fapp.example.com%2Fdashboard');
  });
});
