import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { logSink } from '../testing/log-sink';

const { lines, sink } = logSink();

const h = sharedHarness({ env: { LOG_LEVEL: 'info' }, logDestination: sink });
let secret: string;
beforeAll(async () => {
  ({ secret } = await h.createInstance());
});

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
    await h.request('POST', '/v1/users', {
      key: secret,
      raw: `{"email_address": "${secret}"`,
      headers: { 'content-type': 'application/json' },
    });
    // Even a log call made by our own code with a secret in it is scrubbed.
    h.runtime.deps.logger.error({ err: new Error(`boom ${secret}`), detail: { token: 'abc', note: secret } }, `failed for ${secret}`);
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(all).not.toContain(secret.slice('sk_test_'.length));
    expect(all).not.toContain(password);
  });

  it('logs an Error with its type, message, stack and cause, credentials scrubbed', async () => {
    lines.length = 0;
    const bearer = 'eyJhbGciOiJSUzI1NiJ9-not-a-real-token-0123456789';
    const cause = Object.assign(new Error(`connect failed for ${secret}`), { code: 'ECONNREFUSED' });
    const err = new TypeError(`boom with ${secret} and Bearer ${bearer}`, { cause });
    h.runtime.deps.logger.error({ err, detail: { error: new RangeError(`nested ${secret}`) } }, 'unhandled error');
    h.runtime.deps.logger.error(new Error(`bare ${secret}`));

    expect(lines).toHaveLength(2);
    const all = lines.join('\n');
    expect(all).not.toContain(secret.slice('sk_test_'.length));
    expect(all).not.toContain(bearer);
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first.err).toMatchObject({ type: 'TypeError', message: 'boom with sk_test_[REDACTED] and Bearer [REDACTED]' });
    expect(first.err.stack).toMatch(/^TypeError: boom with sk_test_\[REDACTED\] and Bearer \[REDACTED\]\n\s+at /);
    expect(first.err.cause).toMatchObject({ type: 'Error', code: 'ECONNREFUSED', message: 'connect failed for sk_test_[REDACTED]' });
    expect(first.err.cause.stack).toContain('\n    at ');
    expect(first.detail.error).toMatchObject({ type: 'RangeError', message: 'nested sk_test_[REDACTED]' });
    // An Error logged on its own: pino takes the line's message from it, scrubbed too.
    expect(second).toMatchObject({ msg: 'bare sk_test_[REDACTED]', err: { type: 'Error', message: 'bare sk_test_[REDACTED]' } });
  });

  it('an unexpected error in a handler: a 500 with a trace id, and an "unhandled error" line with message and stack', async () => {
    // Take the users table away, so that the route's query fails the way a lost database would.
    await h.runtime.deps.db.execute(sql.raw('ALTER TABLE users RENAME TO users_away'));
    let res: Response;
    try {
      lines.length = 0;
      res = await h.request('GET', '/v1/users?limit=1', { key: secret });
    } finally {
      await h.runtime.deps.db.execute(sql.raw('ALTER TABLE users_away RENAME TO users'));
    }
    expect(res.status).toBe(500);
    const body = (await res.json()) as { errors: { code: string; message: string }[]; trace_id: string };
    expect(body.errors[0]!.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toContain('users');

    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(entry).toBeDefined();
    expect(entry.req_id).toBe(body.trace_id);
    expect(typeof entry.err.type).toBe('string');
    expect(entry.err.message).toMatch(/users/);
    expect(entry.err.stack).toContain('\n    at ');
    expect(lines.join('\n')).not.toContain(secret.slice('sk_test_'.length));
  });
});
