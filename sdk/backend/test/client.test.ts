import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  createBapiClient,
  LatchkeyApiError,
  LatchkeyNetworkError,
  verifyWebhook,
  WebhookVerificationError,
} from '../src/index';

/** A fake API answering from a script of responses, recording each request. */
function scripted(...answers: (() => Response)[]) {
  const seen: Request[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(new Request(input, init));
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return next();
  }) as typeof globalThis.fetch;
  return { seen, fetch };
}

const rateLimited = (retryAfter: string) => () =>
  Response.json(
    { errors: [{ code: 'RATE_LIMITED', message: 'Slow down', meta: { retry_after: Number(retryAfter) } }], trace_id: 'tr_1' },
    { status: 429, headers: { 'retry-after': retryAfter } },
  );

function client(fetch: typeof globalThis.fetch, sleeps: number[] = [], extra = {}) {
  return createBapiClient({
    secretKey: 'sk_test_abc',
    apiUrl: 'https://api.example.com/',
    fetch,
    random: () => 0.5,
    sleep: async (ms) => void sleeps.push(ms),
    ...extra,
  });
}

describe('the BAPI client', () => {
  it('retries a 429 after Retry-After, sending the same Idempotency-Key on every attempt of a POST', async () => {
    const api = scripted(rateLimited('2'), () => Response.json({ id: 'user_1', object: 'user' }));
    const sleeps: number[] = [];
    const user = await client(api.fetch, sleeps).users.create({ email_address: ['a@example.com'] } as never);
    expect(user).toMatchObject({ id: 'user_1' });
    expect(api.seen).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
    const keys = api.seen.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(api.seen[0]!.headers.get('authorization')).toBe('Bearer sk_test_abc');
    expect(api.seen[0]!.url).toBe('https://api.example.com/v1/users');
  });

  it('retries 5xx and network errors with full-jitter backoff, then gives up with a typed error', async () => {
    const sleeps: number[] = [];
    const api = scripted(
      () => new Response('bad gateway', { status: 502 }),
      () => {
        throw new TypeError('fetch failed');
      },
      () => Response.json({ errors: [{ code: 'INTERNAL', message: 'boom', meta: {} }], trace_id: 'tr_9' }, { status: 500 }),
      () => Response.json({ errors: [{ code: 'INTERNAL', message: 'boom', meta: {} }], trace_id: 'tr_9' }, { status: 500 }),
    );
    const err = await client(api.fetch, sleeps)
      .users.get('user_1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatchkeyApiError);
    expect(err).toMatchObject({ status: 500, code: 'INTERNAL', traceId: 'tr_9' });
    expect(api.seen).toHaveLength(4);
    expect(sleeps).toEqual([250, 500, 1000]); // random 0.5 × 500·2^attempt
    expect(api.seen.every((r) => r.headers.get('idempotency-key') === null)).toBe(true);
  });

  it('does not retry a client error, and reports code, status, meta and trace id', async () => {
    const api = scripted(() =>
      Response.json(
        { errors: [{ code: 'SCOPE_MISSING', message: 'needs users:read', meta: { required_scope: 'users:read' } }], trace_id: 'tr_2' },
        { status: 403 },
      ),
    );
    const err = (await client(api.fetch)
      .users.list()
      .firstPage()
      .catch((e: unknown) => e)) as LatchkeyApiError;
    expect(err).toBeInstanceOf(LatchkeyApiError);
    expect([err.status, err.code, err.meta, err.traceId]).toEqual([403, 'SCOPE_MISSING', { required_scope: 'users:read' }, 'tr_2']);
    expect(api.seen).toHaveLength(1);
  });

  it('gives up at once on a Retry-After beyond its cap, and on network errors after the retries', async () => {
    const api = scripted(rateLimited('3600'));
    const err = (await client(api.fetch)
      .users.get('user_1')
      .catch((e: unknown) => e)) as LatchkeyApiError;
    expect([err.code, err.retryAfter]).toEqual(['RATE_LIMITED', 3600]);
    const down = scripted(...Array.from({ length: 4 }, () => () => Promise.reject(new TypeError('ECONNREFUSED')) as never));
    await expect(client(down.fetch).users.get('user_1')).rejects.toBeInstanceOf(LatchkeyNetworkError);
  });

  it('full jitter stays within [0, min(cap, base·2^attempt)] and honours Retry-After', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.999 };
    expect(backoffDelay(0, o)).toBeLessThan(100);
    expect(backoffDelay(10, o)).toBeLessThan(1000);
    expect(backoffDelay(0, { ...o, random: () => 0 })).toBe(0);
    expect(backoffDelay(0, o, 700)).toBeGreaterThanOrEqual(700);
    expect(backoffDelay(5, o, 990)).toBeLessThanOrEqual(1000);
  });

  it('iterates a cursor list across pages with for await', async () => {
    const api = scripted(
      () => Response.json({ data: [{ id: 'user_1' }, { id: 'user_2' }], has_more: true, next_cursor: 'c2' }),
      () => Response.json({ data: [{ id: 'user_3' }], has_more: false, next_cursor: null }),
    );
    const ids: string[] = [];
    for await (const u of client(api.fetch).users.list({ limit: 2 })) ids.push(u.id);
    expect(ids).toEqual(['user_1', 'user_2', 'user_3']);
    expect(new URL(api.seen[1]!.url).searchParams.get('starting_after')).toBe('c2');
    expect(new URL(api.seen[1]!.url).searchParams.get('limit')).toBe('2');
  });

  it('refuses a key that is not a secret key', () => {
    expect(() => createBapiClient({ secretKey: 'pk_test_x', apiUrl: 'https://x' })).toThrow(/secret key/);
  });
});

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const body = JSON.stringify({ type: 'user.created', data: { object: 'user', id: 'user_1' } });
  const signed = (at = new Date()) => {
    const id = 'msg_1';
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    };
  };

  it('answers the event of a correctly signed delivery (Request or raw body + headers)', async () => {
    const req = new Request('https://app.example.com/hooks', { method: 'POST', body, headers: signed() });
    await expect(verifyWebhook(req, secret)).resolves.toMatchObject({ type: 'user.created', data: { id: 'user_1' } });
    await expect(verifyWebhook({ body, headers: signed() }, secret)).resolves.toMatchObject({ type: 'user.created' });
  });

  it('refuses a tampered body, a wrong secret and an old delivery', async () => {
    await expect(verifyWebhook({ body: body.replace('user_1', 'user_2'), headers: signed() }, secret)).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
    const other = `whsec_${Buffer.from('ffffffffffffffffffffffffffffffff').toString('base64')}`;
    await expect(verifyWebhook({ body, headers: signed() }, other)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook({ body, headers: signed(new Date(Date.now() - 3600_000)) }, secret)).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
  });
});
