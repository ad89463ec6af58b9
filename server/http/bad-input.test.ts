import { beforeAll, describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { expectError } from '../testing/expect';
import { createApiHandler } from '../api';
import { MAX_BODY_BYTES } from './body';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
let key: string;
beforeAll(async () => {
  ({ secret: key } = await h.createInstance());
});

const postRaw = (raw: string, contentType?: string, path = '/v1/users') =>
  h.call('POST', path, { key, raw, headers: contentType ? { 'content-type': contentType } : {} });

async function userCount() {
  const res = await h.call('GET', '/v1/users?limit=100', { key });
  return res.body.data.length as number;
}

describe('bad input on BAPI', () => {
  it('malformed JSON: 400 MALFORMED_REQUEST', async () => {
    for (const raw of ['{', '{"email_address": }', "{'a': 1}", '{"a":1}}', 'undefined', '\u0000']) {
      expectError(await postRaw(raw, 'application/json'), 400, 'MALFORMED_REQUEST');
    }
    expectError(await postRaw('{bad', 'application/json; charset=utf-8'), 400, 'MALFORMED_REQUEST');
    // PATCH and action routes read bodies the same way.
    expectError(
      await h.call('PATCH', '/v1/users/user_01J0000000000000000000000Z', {
        key,
        raw: '{',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'MALFORMED_REQUEST',
    );
    expect(await userCount()).toBe(0);
  });

  it('a body that is not JSON: 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    expectError(await postRaw('email_address=a@example.com', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await postRaw('email_address=a@example.com', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await postRaw('<user/>', 'application/xml'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // JSON sent without saying so is refused rather than guessed at.
    expectError(await postRaw('{"email_address":"a@example.com"}', 'text/plain;charset=UTF-8'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await userCount()).toBe(0);
  });

  it('a JSON media type with parameters or a +json suffix is accepted', async () => {
    const a = await postRaw(JSON.stringify({ username: 'ct_charset' }), 'application/json; charset=utf-8');
    expect(a.status).toBe(200);
    const b = await postRaw(JSON.stringify({ username: 'ct_suffix' }), 'application/vnd.api+json');
    expect(b.status).toBe(200);
    const c = await postRaw(JSON.stringify({ username: 'ct_upper' }), 'Application/JSON');
    expect(c.status).toBe(200);
  });

  it('a body over 1 MiB: 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ username: 'too_big', first_name: 'x'.repeat(MAX_BODY_BYTES) });
    expect(big.length).toBeGreaterThan(MAX_BODY_BYTES);
    expectError(await postRaw(big, 'application/json'), 413, 'PAYLOAD_TOO_LARGE');
    // Also when it is not JSON, and also when a Content-Length says so up front.
    expectError(await postRaw('y'.repeat(MAX_BODY_BYTES + 1), 'text/plain'), 413, 'PAYLOAD_TOO_LARGE');
    const declared = await h.call('POST', '/v1/users', {
      key,
      raw: big,
      headers: { 'content-type': 'application/json', 'content-length': String(big.length) },
    });
    expectError(declared, 413, 'PAYLOAD_TOO_LARGE');
    // Multi-byte characters count as bytes.
    const wide = JSON.stringify({ username: 'wide', first_name: 'é'.repeat(MAX_BODY_BYTES / 2 + 10) });
    expect(wide.length).toBeLessThan(MAX_BODY_BYTES);
    expectError(await postRaw(wide, 'application/json'), 413, 'PAYLOAD_TOO_LARGE');
    expect(await userCount()).toBe(3);
  });

  it('a body just under the limit is read (and then validated)', async () => {
    const raw = JSON.stringify({ username: 'near_limit', public_metadata: { pad: 'x'.repeat(MAX_BODY_BYTES - 100) } });
    expect(raw.length).toBeLessThanOrEqual(MAX_BODY_BYTES);
    // Read fine, refused by the metadata size rule: a 422, not a 413.
    expectError(await postRaw(raw, 'application/json'), 422, 'VALIDATION_FAILED', { param: 'public_metadata' });
  });

  it('an unknown field: 422 VALIDATION_FAILED, reason unknown_field', async () => {
    expectError(await h.call('POST', '/v1/users', { key, body: { username: 'unk_field', role: 'admin' } }), 422, 'VALIDATION_FAILED', {
      param: 'role',
      reason: 'unknown_field',
    });
    expect(await userCount()).toBe(3);
  });

  it('a wrong type: 422 naming the field', async () => {
    const e = expectError(await h.call('POST', '/v1/users', { key, body: { username: ['a', 'b'] } }), 422, 'VALIDATION_FAILED', {
      param: 'username',
    });
    expect(e.meta.reason).toBe('invalid_type');
    expectError(
      await h.call('POST', '/v1/users', { key, body: { username: 'typed', skip_password_checks: 'yes' } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'skip_password_checks',
        reason: 'invalid_type',
      },
    );
    expectError(await h.call('POST', '/v1/users', { key, body: { username: null } }), 422, 'VALIDATION_FAILED', { param: 'username' });
  });

  it('an unknown route: 404 NOT_FOUND', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nope'],
      ['POST', '/v1/nope'],
      ['GET', '/v1/users/user_1/nope'],
      ['GET', '/v1'],
      ['DELETE', '/v1/users/x/y/z'],
    ] as const) {
      expectError(await h.call(method, path, { key }), 404, 'NOT_FOUND');
    }
    // Without a key too: an unknown route is not an authentication question.
    expectError(await h.call('GET', '/v1/nope'), 404, 'NOT_FOUND');
  });

  it('a wrong method on a known path: 405 METHOD_NOT_ALLOWED with an Allow header', async () => {
    const put = await h.call('PUT', '/v1/users', { key, body: {} });
    expectError(put, 405, 'METHOD_NOT_ALLOWED');
    expect(put.headers.get('allow')!.split(/,\s*/).sort()).toEqual(['GET', 'POST']);

    const del = await h.call('DELETE', '/v1/users', { key });
    expectError(del, 405, 'METHOD_NOT_ALLOWED');
    expect(del.headers.get('allow')!.split(/,\s*/).sort()).toEqual(['GET', 'POST']);

    const post = await h.call('POST', '/v1/users/user_01J0000000000000000000000Z', { key, body: {} });
    expectError(post, 405, 'METHOD_NOT_ALLOWED');
    expect(post.headers.get('allow')!.split(/,\s*/).sort()).toEqual(['DELETE', 'GET', 'PATCH']);

    const getBan = await h.call('GET', '/v1/users/user_01J0000000000000000000000Z/ban', { key });
    expectError(getBan, 405, 'METHOD_NOT_ALLOWED');
    expect(getBan.headers.get('allow')).toBe('POST');

    const events = await h.call('POST', '/v1/events', { key, body: {} });
    expectError(events, 405, 'METHOD_NOT_ALLOWED');
    expect(events.headers.get('allow')).toBe('GET');
  });

  it('authentication errors have the same shape', async () => {
    expectError(await h.call('GET', '/v1/users'), 401, 'UNAUTHENTICATED');
    expectError(await h.call('GET', '/v1/users', { headers: { authorization: 'Basic abc' } }), 401, 'UNAUTHENTICATED');
    expectError(await h.call('GET', '/v1/users', { key: 'sk_test_' + 'A'.repeat(40) }), 401, 'INVALID_KEY');
    const reader = await h.createInstance({ scopes: 'users:read' });
    expectError(await h.call('POST', '/v1/users', { key: reader.secret, body: { username: 'scoped' } }), 403, 'SCOPE_MISSING', {
      required_scope: 'users:write',
    });
  });

  it('credentials are checked before the body is read', async () => {
    expectError(await h.call('POST', '/v1/users', { raw: '{', headers: { 'content-type': 'application/json' } }), 401, 'UNAUTHENTICATED');
  });

  it('NUL characters and invalid Unicode are refused: 422 in a body or query, 404 in a path', async () => {
    expectError(
      await h.call('POST', '/v1/users', { key, body: { username: 'nul_first', first_name: 'A\u0000B' } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'first_name',
        reason: 'invalid_characters',
      },
    );
    expectError(
      await h.call('POST', '/v1/users', { key, body: { username: 'nul_meta', public_metadata: { a: { b: ['ok', '\u0000'] } } } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'public_metadata.a.b.1',
        reason: 'invalid_characters',
      },
    );
    expectError(await h.call('POST', '/v1/users', { key, body: { username: 'sur_name', last_name: '\uDC00' } }), 422, 'VALIDATION_FAILED', {
      param: 'last_name',
      reason: 'invalid_characters',
    });
    expectError(await h.call('GET', '/v1/users?query=a%00b', { key }), 422, 'VALIDATION_FAILED', {
      param: 'query',
      reason: 'invalid_characters',
    });
    expectError(await h.call('GET', '/v1/users?starting_after=%00', { key }), 422, 'VALIDATION_FAILED', { param: 'starting_after' });
    expectError(await h.call('GET', '/v1/users/user_01J0000000000000000000000Z%00', { key }), 404, 'NOT_FOUND');
    expectError(await h.call('POST', '/v1/users/%00/ban', { key }), 404, 'NOT_FOUND');
    // A character outside the BMP is fine.
    const ok = await h.call('POST', '/v1/users', { key, body: { username: 'astral_ok', first_name: '𝒜da 😀' } });
    expect(ok.status).toBe(200);
    expect(ok.body.first_name).toBe('𝒜da 😀');
    expect((await h.call('GET', `/v1/users/${ok.body.id}`, { key })).body.first_name).toBe('𝒜da 😀');
  });

  it('odd inputs never give a 500', async () => {
    const odd: [string, string, { raw?: string; body?: unknown; headers?: Record<string, string> }][] = [
      ['GET', '/v1/users/%E0%A4%A', {}],
      ['GET', `/v1/users/${'x'.repeat(5000)}`, {}],
      ['GET', '/v1/users?limit=1e400', {}],
      ['GET', '/v1/users?limit=99999999999999999999999', {}],
      ['GET', '/v1/users?starting_after=%00', {}],
      ['GET', '/v1/users?query=%00', {}],
      ['GET', '/v1/users?email_address=%00', {}],
      ['GET', `/v1/users?query=${encodeURIComponent("'; drop table users; --")}`, {}],
      ['GET', '/v1/users?order_by=created_at&order_by=-created_at', {}],
      ['GET', '/v1/users/user_01J0000000000000000000000Z%00', {}],
      ['POST', '/v1/users', { body: { username: 'nul\u0000byte' } }],
      ['POST', '/v1/users', { body: { email_address: 'nul\u0000@example.com' } }],
      ['POST', '/v1/users', { body: { username: 'meta_nul', public_metadata: { 'k\u0000': 'v\u0000' } } }],
      ['POST', '/v1/users', { body: { username: 'meta_deep', public_metadata: JSON.parse('{"a":'.repeat(500) + '1' + '}'.repeat(500)) } }],
      ['POST', '/v1/users', { body: { username: 'proto_user', public_metadata: JSON.parse('{"__proto__": {"polluted": true}}') } }],
      ['POST', '/v1/users', { body: { first_name: 'Only\u0000Name', username: 'nul_name' } }],
      ['POST', '/v1/users', { body: { external_id: '\u0000', username: 'nul_ext' } }],
      ['POST', '/v1/users', { body: { phone_number: ['+14155550100', '+14155550100'] } }],
      ['POST', '/v1/users', { body: { email_address: Array.from({ length: 11 }, (_, i) => `many${i}@example.com`) } }],
      ['POST', '/v1/users', { raw: '{"username":"dup","username":"dup2"}', headers: { 'content-type': 'application/json' } }],
      ['POST', '/v1/users', { raw: '\uFEFF{"username":"bom_user"}', headers: { 'content-type': 'application/json' } }],
      ['POST', '/v1/users/user_01J0000000000000000000000Z/ban', { raw: 'x', headers: { 'content-type': 'text/plain' } }],
      ['PATCH', '/v1/users/user_01J0000000000000000000000Z', { body: { public_metadata: { a: null } } }],
      ['POST', '/v1/users', { body: { username: 'lone_sur', first_name: 'x\uD800y' } }],
      ['POST', '/v1/users', { body: { username: 'lone_sur_meta', unsafe_metadata: { k: '\uDFFF' } } }],
      ['POST', '/v1/users', { body: { username: 'emoji_ok', first_name: '😀 Zoë' } }],
      [
        'POST',
        '/v1/users',
        {
          raw: '{"username":"deep","public_metadata":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}',
          headers: { 'content-type': 'application/json' },
        },
      ],
      [
        'POST',
        '/v1/users',
        {
          raw: '{"username":"deep2","public_metadata":{"a":' + '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000) + '}}',
          headers: { 'content-type': 'application/json' },
        },
      ],
      ['POST', '/v1/users', { raw: '['.repeat(300_000) + ']'.repeat(300_000), headers: { 'content-type': 'application/json' } }],
    ];
    for (const [method, path, opts] of odd) {
      const res = await h.call(method, path, { key, ...opts });
      const label = `${method} ${path.slice(0, 60)} ${JSON.stringify(opts).slice(0, 80)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
      expect(res.status, label).toBeLessThan(500);
      if (res.status >= 400) expectError(res, res.status, res.body.errors[0].code);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('invalid UTF-8 in a JSON or form body: 400 MALFORMED_REQUEST, reason invalid_utf8, nothing stored', async () => {
    const handler = createApiHandler(h.runtime);
    const send = async (path: string, bytes: Uint8Array, headers: Record<string, string>) => {
      const res = await handler(new Request(`http://localhost:3000${path}`, { method: 'POST', headers, body: new Uint8Array(bytes) }));
      return { status: res.status, headers: res.headers, body: await res.json() };
    };
    const before = await userCount();
    let n = 0;
    const json = (inner: number[]) =>
      Buffer.concat([Buffer.from(`{"username":"utf8_${n++}","first_name":"Zo`), Buffer.from(inner), Buffer.from('"}')]);
    const bad = [
      [0xff], // never valid
      [0xc3], // truncated two-byte sequence
      [0xc0, 0xaf], // overlong "/"
      [0xed, 0xa0, 0x80], // an encoded surrogate
      [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
    ];
    for (const inner of bad) {
      for (const headers of [
        { authorization: `Bearer ${key}`, 'content-type': 'application/json' } as Record<string, string>,
        // With a Content-Length the body is read in one piece: the same check applies.
        { authorization: `Bearer ${key}`, 'content-type': 'application/json; charset=utf-8', 'content-length': 'set below' },
      ]) {
        const body = json(inner);
        if (headers['content-length']) headers['content-length'] = String(body.length);
        const res = await send('/v1/users', body, headers);
        const e = expectError(res, 400, 'MALFORMED_REQUEST', { reason: 'invalid_utf8' });
        expect(e.message).toBe('The request body is not valid UTF-8.');
      }
    }
    expect(await userCount()).toBe(before);

    // Valid multi-byte text still goes through, and a leading byte order mark is dropped (RFC 8259 §8.1).
    const ok = await send(
      '/v1/users',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"username":"utf8_ok","first_name":"Zoë 😀"}')]),
      {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
      },
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ username: 'utf8_ok', first_name: 'Zoë 😀' });

    // FAPI also reads form posts: raw bytes and percent-escapes must both be UTF-8.
    const { instanceId, publishableKey } = await h.createInstance();
    const fapiHeaders = {
      'x-publishable-key': publishableKey,
      origin: 'http://localhost:3000',
      'content-type': 'application/x-www-form-urlencoded',
    };
    for (const form of [
      Buffer.from('email_address=f%40example.com&first_name=%FF'),
      Buffer.concat([Buffer.from('email_address=f%40example.com&first_name='), Buffer.from([0xe9])]),
    ]) {
      expectError(await send(`/fapi/${instanceId}/v1/client/sign_ups`, form, fapiHeaders), 400, 'MALFORMED_REQUEST', {
        reason: 'invalid_utf8',
      });
    }
    const signUp = await send(
      `/fapi/${instanceId}/v1/client/sign_ups`,
      Buffer.from('email_address=f%40example.com&password=Quiet-Lantern-Orbit-7319&first_name=Zo%C3%AB+A%zz'),
      fapiHeaders,
    );
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(200);
    expect(JSON.stringify(signUp.body)).toContain('Zoë A%zz');
  });
});
