import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../testing/harness';
import { createOAuthApp } from '../testing/oidc';

let h: TestHarness;
let inst: Awaited<ReturnType<TestHarness['createInstance']>>;
beforeAll(async () => {
  h = await createHarness({ env: { OAUTH_TOKEN_RATE_LIMIT: '2', TRUST_PROXY: '1' } });
  inst = await h.createInstance();
});
afterAll(() => h.close());

async function token(app: { client_id: string; client_secret: string | null }, ip: string) {
  const res = await h.request('POST', `/fapi/${inst.instanceId}/oauth2/token`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
    raw: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret! }).toString(),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

describe('token endpoint limits', () => {
  it('limits requests per IP and per client, with Retry-After', async () => {
    const a = await createOAuthApp(h, inst, { scopes: ['api'] });
    const b = await createOAuthApp(h, inst, { scopes: ['api'] });
    expect((await token(a, '198.51.100.1')).status).toBe(200);
    expect((await token(b, '198.51.100.1')).status).toBe(200);
    const perIp = await token(b, '198.51.100.1');
    expect(perIp.status).toBe(429);
    expect(Number(perIp.retryAfter)).toBeGreaterThan(0);
    expect(perIp.body.error).toBe('slow_down');

    expect((await token(a, '198.51.100.2')).status).toBe(200);
    const perClient = await token(a, '198.51.100.3');
    expect(perClient.status).toBe(429);
    h.clock.advance(10_000);
    expect((await token(a, '198.51.100.4')).status).toBe(200);
  });
});
