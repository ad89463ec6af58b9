import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../../../server/testing/harness';
import { inProcessFetch } from '../../test-support/in-process';
import { createBapiClient } from '../../backend/src/index';
import { createApp } from './server';

const h = sharedHarness();
const i = sharedInstance(h);

describe('the Express API example', () => {
  it('answers a signed-in caller from the session JWT and the backend API, and 401 to others', async () => {
    const fetchImpl = inProcessFetch(h);
    const env = { LATCHKEY_PUBLISHABLE_KEY: i.publishableKey, LATCHKEY_SECRET_KEY: i.secret, LATCHKEY_API_URL: 'http://localhost:3000' };
    const bapi = createBapiClient({ secretKey: i.secret, apiUrl: 'http://localhost:3000', fetch: fetchImpl });
    const user = await bapi.users.create({ email_address: ['example@example.com'] } as never);
    const { jwt } = await bapi.sessions.create({ user_id: user.id });
    const server = createServer(createApp(env, fetchImpl)).listen(0);
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const me = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${jwt}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ userId: user.id, impersonatedBy: null });
      const profile = await fetch(`${base}/api/me/profile`, { headers: { cookie: `__session=${jwt}` } });
      expect(await profile.json()).toMatchObject({ object: 'user', id: user.id });
      expect((await fetch(`${base}/api/me`)).status).toBe(401);
      expect((await fetch(`${base}/api/me`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      expect((await fetch(`${base}/health`)).status).toBe(200);
    } finally {
      server.close();
    }
  });
});
