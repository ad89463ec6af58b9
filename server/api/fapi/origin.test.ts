import { beforeAll, describe, expect, it } from 'vitest';
import { fapiClient } from '../../testing/fapi-client';
import { createTestUser, setSettings, signedInClient } from '../../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);
let userId: string;

beforeAll(async () => {
  await setSettings(h, A.instanceId, { allowed_origins: ['https://app.example.com', 'http://localhost:5173/'] });
  userId = await createTestUser(h, A, { email_address: ['origin@example.com'] });
});

const fapi = (path: string) => `/fapi/${A.instanceId}${path}`;

describe('CSRF: cookie-authenticated writes check Origin', () => {
  it('refuses a cross-origin POST carrying the client cookie with 403 ORIGIN_NOT_ALLOWED', async () => {
    const { b, sessionId } = await signedInClient(h, A, userId);
    const evil = await b.call('POST', `/v1/client/sessions/${sessionId}/end`, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body.errors[0]).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED', meta: { origin: 'https://evil.example' } });
    // Nothing happened: the session is still live.
    expect((await b.call('GET', '/v1/client')).body.session.id).toBe(sessionId);

    for (const origin of [null, 'null', 'https://app.example.com.evil.example', 'http://app.example.com', 'https://localhost:3000']) {
      const res = await b.call('DELETE', '/v1/client', { origin });
      expect(res.status, String(origin)).toBe(403);
    }
    const patch = await b.call('PATCH', '/v1/me', { origin: 'https://evil.example', body: { first_name: 'Mallory' } });
    expect(patch.status).toBe(403);
  });

  it('accepts the fapi_url’s own origin and the allowed origins, or a Referer naming one', async () => {
    const { b, sessionId } = await signedInClient(h, A, userId);
    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`, { origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`, { origin: 'https://app.example.com' })).status).toBe(200);
    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`, { origin: 'http://localhost:5173' })).status).toBe(200);
    const referer = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`, {
      origin: null,
      headers: { referer: 'https://app.example.com/account?tab=1' },
    });
    expect(referer.status).toBe(200);
    const foreignReferer = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`, {
      origin: null,
      headers: { referer: 'https://evil.example/page' },
    });
    expect(foreignReferer.status).toBe(403);
    // Reads are not checked.
    expect((await b.call('GET', '/v1/client', { headers: { origin: 'https://evil.example' } })).status).toBe(200);
  });

  it('refuses a cross-origin sign-in even without a cookie (login CSRF); a cookieless request naming no origin passes', async () => {
    const ticket = (await h.call('POST', '/v1/sign_in_tokens', { key: A.secret, body: { user_id: userId } })).body.token;
    const fresh = fapiClient(h, A.instanceId, { publishableKey: A.publishableKey, origin: 'https://evil.example' });
    const res = await fresh.signInWithTicket(ticket);
    expect(res.status).toBe(403);
    expect(res.body.errors[0].code).toBe('ORIGIN_NOT_ALLOWED');
    expect(res.setCookie).toBeNull();
    const server = fapiClient(h, A.instanceId, { publishableKey: A.publishableKey });
    expect((await server.signInWithTicket(ticket, { origin: null })).status).toBe(200);
  });

  it('does not apply to native (bearer) requests', async () => {
    const { b, sessionId } = await signedInClient(h, A, userId, { native: true });
    const res = await h.call('POST', fapi(`/v1/client/sessions/${sessionId}/tokens`), {
      headers: { authorization: `Bearer ${b.token}`, origin: 'https://evil.example' },
    });
    expect(res.status).toBe(200);
  });
});

describe('CORS on the FAPI', () => {
  it('echoes an allowed origin with credentials and answers preflights', async () => {
    const pre = await h.request('OPTIONS', fapi('/v1/client/sign_ins'), {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toContain('content-type');

    const get = await h.request('GET', fapi('/v1/client'), {
      headers: { origin: 'https://app.example.com', 'x-publishable-key': A.publishableKey },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(get.headers.get('access-control-allow-credentials')).toBe('true');
    expect(get.headers.get('access-control-expose-headers')).toContain('authorization');
    expect(get.headers.get('vary')).toContain('Origin');
    // Error answers carry them too, so the page can read the error.
    const err = await h.request('GET', fapi('/v1/nothing'), { headers: { origin: 'https://app.example.com' } });
    expect(err.status).toBe(404);
    expect(err.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('gives a foreign origin no CORS headers', async () => {
    const pre = await h.request('OPTIONS', fapi('/v1/client'), {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'DELETE' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const get = await h.request('GET', fapi('/v1/client'), {
      headers: { origin: 'https://evil.example', 'x-publishable-key': A.publishableKey },
    });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('stays off the backend API', async () => {
    const res = await h.request('GET', '/v1/users', { key: A.secret, headers: { origin: 'https://app.example.com' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await h.request('OPTIONS', '/v1/users', { headers: { origin: 'https://app.example.com' } });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });
});
