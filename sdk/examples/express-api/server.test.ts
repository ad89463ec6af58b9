import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApi, type StartedApi } from '../../test-support/api-process';
import { createBapiClient } from '../../backend/src/index';
import { Latchkey } from '../../browser/src/index';

/**
 * The example as its header says to run it: `npx tsx sdk/examples/express-api/server.ts` with
 * the keys in the environment, against the API started as a customer runs it. The caller's
 * token comes from a real sign-in (the browser SDK in native mode, over HTTP); the webhook
 * is a real delivery from the API's worker.
 */
const ROOT = path.resolve(__dirname, '../../..');
let api: StartedApi;
let example: ChildProcess;
let base = '';
let exampleOut = '';

beforeAll(async () => {
  // Test instances may deliver webhooks to loopback (the example listens there).
  api = await startApi({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  const port = await freePort();
  base = `http://localhost:${port}`;
  const bapi = createBapiClient({ secretKey: api.secretKey, apiUrl: api.url });
  const endpoint = await bapi.webhookEndpoints.create({ url: `http://127.0.0.1:${port}/webhooks`, event_types: ['user.created'] });
  example = spawn(process.execPath, ['--import', 'tsx', 'sdk/examples/express-api/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      LATCHKEY_PUBLISHABLE_KEY: api.publishableKey,
      LATCHKEY_SECRET_KEY: api.secretKey,
      LATCHKEY_API_URL: api.url,
      LATCHKEY_WEBHOOK_SECRET: endpoint.secret,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      exampleOut += d.toString();
      if (exampleOut.includes('example API on')) resolve();
    };
    example.stdout!.on('data', onData);
    example.stderr!.on('data', onData);
    example.once('exit', () => reject(new Error(`the example exited:\n${exampleOut}`)));
  });
}, 120_000);

afterAll(async () => {
  example?.kill('SIGTERM');
  await api?.stop();
});

describe('the Express API example', () => {
  it('answers a caller signed in with a password from the session JWT and the backend API, 401 to others, and checks webhooks', async () => {
    const bapi = createBapiClient({ secretKey: api.secretKey, apiUrl: api.url });
    const email = 'example-user@example.com';
    const password = 'correct horse battery staple 42';
    const user = await bapi.users.create({ email_address: [email], password });

    let stored: string | null = null;
    const latchkey = new Latchkey({
      publishableKey: api.publishableKey,
      tokenStorage: { get: () => stored, set: (t) => void (stored = t) },
    });
    try {
      await latchkey.load();
      await latchkey.signIn.password(email, password);
      expect(latchkey.isSignedIn).toBe(true);
      const jwt = await latchkey.getToken();

      const me = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${jwt}` } });
      expect([me.status, await me.json()]).toEqual([
        200,
        { userId: user.id, sessionId: latchkey.session!.id, organization: null, impersonatedBy: null },
      ]);
      const profile = await fetch(`${base}/api/me/profile`, { headers: { cookie: `__session=${jwt}` } });
      expect(await profile.json()).toMatchObject({ object: 'user', id: user.id });
      expect((await fetch(`${base}/api/me`)).status).toBe(401);
      expect((await fetch(`${base}/api/me`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      expect((await fetch(`${base}/health`)).status).toBe(200);

      // The API delivered user.created to the example, which verified the signature.
      await expect.poll(() => exampleOut, { timeout: 20_000 }).toContain('webhook user.created');
      const forged = await fetch(`${base}/webhooks`, {
        method: 'POST',
        headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
        body: '{"type":"user.created","data":{}}',
      });
      expect(forged.status).toBe(400);
    } finally {
      latchkey.destroy();
    }
  }, 60_000);
});
