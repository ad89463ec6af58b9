import { describe, expect, it } from 'vitest';
import { sharedHarness } from '../../testing/harness';

const METRICS_TOKEN = 'metrics-token-0123456789';
const h = sharedHarness({ env: { METRICS_TOKEN } });

describe('operations endpoints', () => {
  it('reports the process up and the database reachable', async () => {
    expect((await h.call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await h.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });

  it('protects /metrics with METRICS_TOKEN and counts requests by route pattern', async () => {
    const { secret } = await h.createInstance();
    await h.request('GET', '/v1/users/user_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: secret });
    expect((await h.request('GET', '/metrics')).status).toBe(401);
    expect((await h.request('GET', '/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    const res = await h.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/latchkey_http_requests_total\{surface="bapi",route="\/v1\/users\/:id",method="GET",status="404"\} 1/);
    expect(text).toContain('latchkey_http_request_duration_seconds_bucket');
  });

  it('hides the CLI bridge from anyone without the server’s token', async () => {
    const res = await h.call('POST', '/internal/cli', { body: { argv: ['instance', 'list'] }, headers: { authorization: 'Bearer guess' } });
    expect(res.status).toBe(404);
  });
});
