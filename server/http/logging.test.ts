import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../testing/harness';

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let h: TestHarness;
let secret: string;
beforeAll(async () => {
  h = await createHarness({ env: { LOG_LEVEL: 'info' }, logDestination: sink });
  ({ secret } = await h.createInstance());
});
afterAll(() => h.close());

describe('request logs', () => {
  it('writes one structured line per request with the route pattern and request id', async () => {
    lines.length = 0;
    const res = await h.request('GET', '/v1/users/user_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: secret });
    const body = (await res.json()) as { trace_id: string };
    const entries = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ surface: 'bapi', method: 'GET', route: '/v1/users/:id', status: 404 });
    expect(typeof entries[0].duration_ms).toBe('number');
    expect(entries[0].req_id).toBe(res.headers.get('x-request-id'));
    expect(body.trace_id).toBe(entries[0].req_id);
  });

  it('never carries a secret key, password or token, wherever the request put it', async () => {
    lines.length = 0;
    const password = 'hunter2-but-longer-42';
    await h.request('POST', '/v1/users', { key: secret, body: { email_address: ['log@example.com'], password } });
    await h.request('GET', `/v1/users?query=${encodeURIComponent(secret)}`, { key: secret });
    await h.request('GET', '/v1/users', { headers: { authorization: `Bearer ${secret}x` } });
    await h.request('GET', '/v1/users', { headers: { authorization: `Basic ${secret}` } });
    await h.request('POST', '/v1/users', { key: secret, raw: `{"email_address": "${secret}"`, headers: { 'content-type': 'application/json' } });
    // Even a log call made by our own code with a secret in it is scrubbed.
    h.runtime.deps.logger.error({ err: new Error(`boom ${secret}`), detail: { token: 'abc', note: secret } }, `failed for ${secret}`);
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(all).not.toContain(secret.slice('sk_test_'.length));
    expect(all).not.toContain(password);
  });
});
