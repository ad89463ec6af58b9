import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../api';
import { createRuntime, type Runtime } from '../runtime';
import { expectError } from '../testing/expect';
import { createTestUser } from '../testing/fapi-helpers';
import { createHarness, type TestHarness } from '../testing/harness';

/**
 * With REDIS_URL, a revocation reaches every node's key cache through Redis pub/sub in
 * milliseconds: the clock stays still here, so no cache entry expires on its own.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let h: TestHarness;
let second: Runtime;
let i: Awaited<ReturnType<TestHarness['createInstance']>>;

beforeAll(async () => {
  h = await createHarness({ env: { REDIS_URL, BAPI_RATE_LIMIT: '100000' } });
  second = await createRuntime(h.runtime.deps.config, { database: h.runtime.database, clock: h.clock });
  await Promise.all([h.runtime.deps.cacheInvalidation.ready, second.deps.cacheInvalidation.ready]);
  i = await h.createInstance();
});
afterAll(async () => {
  second.deps.cacheInvalidation.close();
  await second.deps.passwords.close();
  await h.close();
});

describe('API key revocation across nodes with Redis', () => {
  it('a second node stops accepting a key revoked on the first without waiting for its cache to expire', async () => {
    const node2 = createApiHandler(second);
    const verifyOn2 = async (secret: string) => {
      const res = await node2(
        new Request('http://localhost:3000/v1/api_keys/verify', {
          method: 'POST',
          headers: { authorization: `Bearer ${i.secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ secret }),
        }),
      );
      return { status: res.status, headers: res.headers, body: await res.json() };
    };
    const userId = await createTestUser(h, i, { email_address: ['redis.node@example.com'] });
    const key = (await h.call('POST', '/v1/api_keys', { key: i.secret, body: { subject: userId, name: 'Shared' } })).body;
    expect((await verifyOn2(key.secret)).status).toBe(200); // cached on node 2 for a second of a clock that does not move
    expect((await h.call('POST', `/v1/api_keys/${key.id}/revoke`, { key: i.secret, body: {} })).status).toBe(200);
    await expect.poll(async () => (await verifyOn2(key.secret)).status, { timeout: 2000 }).toBe(404);
    expectError(await verifyOn2(key.secret), 404, 'API_KEY_INVALID', { reason: 'revoked' });
  });
});
