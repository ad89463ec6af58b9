import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserOf, codeSentTo, type TestInstance } from '../testing/auth-flows';
import { createHarness, type TestHarness } from '../testing/harness';

/**
 * Breached and common passwords: refused with 422 password_compromised at sign-up, password
 * reset and BAPI create/update; a range API (HIBP protocol, served here on loopback, which
 * ALLOW_PRIVATE_WEBHOOK_TARGETS admits for test instances) is asked too and never blocks.
 */
let h: TestHarness;
let A: TestInstance;
let n = 0;

const LEAKED = 'a leaked but long passphrase';
const sha1 = (p: string) => createHash('sha1').update(p).digest('hex').toUpperCase();

/** A HIBP-style range API; `mode` switches it to failing or hanging. */
let rangeApi: Server;
let rangeUrl: string;
let mode: 'ok' | 'error' | 'hang' = 'ok';

const asked: string[] = [];

beforeAll(async () => {
  h = await createHarness({ env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
  A = await h.createInstance();
  rangeApi = createServer((req, res) => {
    asked.push(req.url!);
    if (mode === 'hang') return;
    if (mode === 'error') return void res.writeHead(503).end();
    const prefix = req.url!.split('/').at(-1)!;
    const lines = [`${'0'.repeat(35)}:0`, 'F'.repeat(35) + ':3'];
    if (sha1(LEAKED).startsWith(prefix)) lines.push(`${sha1(LEAKED).slice(5)}:42`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  await new Promise<void>((resolve) => rangeApi.listen(0, '127.0.0.1', resolve));
  rangeUrl = `http://127.0.0.1:${(rangeApi.address() as AddressInfo).port}/range`;
});
afterAll(async () => {
  rangeApi.closeAllConnections();
  await new Promise((resolve) => rangeApi.close(resolve));
  await h.close();
});

const compromised = { code: 'VALIDATION_FAILED', meta: { param: 'password', reason: 'password_compromised' } };
const signUp = (i: TestInstance, password: string) =>
  browserOf(h, i).call('POST', '/v1/client/sign_ups', { body: { email_address: `new${++n}@example.com`, password } });

const createUser = (i: TestInstance, body: Record<string, unknown>) =>
  h.call('POST', '/v1/users', { key: i.secret, body: { email_address: [`user${++n}@example.com`], ...body } });

describe('the offline dictionary', () => {
  it('refuses common passwords at FAPI sign-up, ignoring case', async () => {
    for (const password of ['password123', 'Password1', 'QWERTYUIOP']) {
      const res = await signUp(A, password);
      expect(res.status, password).toBe(422);
      expect(res.body.errors[0]).toMatchObject(compromised);
    }
    expect((await signUp(A, 'a long passphrase')).status).toBe(200);
  });

  it('refuses them at BAPI create and update unless skip_password_checks', async () => {
    const refused = await createUser(A, { password: 'iloveyou1' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject(compromised);
    const created = await createUser(A, { password: 'iloveyou1', skip_password_checks: true });
    expect(created.status).toBe(200);
    const update = await h.call('PATCH', `/v1/users/${created.body.id}`, { key: A.secret, body: { password: 'letmein123' } });
    expect(update.status).toBe(422);
    expect(update.body.errors[0]).toMatchObject(compromised);
    expect(
      (await h.call('PATCH', `/v1/users/${created.body.id}`, { key: A.secret, body: { password: 'a fresh long passphrase' } })).status,
    ).toBe(200);
  });

  it('refuses them as the new password of a reset', async () => {
    const email = `reset${++n}@example.com`;
    expect((await createUser(A, { email_address: [email], password: 'an old passphrase' })).status).toBe(200);
    const b = browserOf(h, A);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email } })).body.response.id;
    await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'reset_password_email_code' } });
    const code = await codeSentTo(h, email, 'password_reset_code');
    expect(
      (await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, { body: { strategy: 'reset_password_email_code', code } }))
        .status,
    ).toBe(200);
    const refused = await b.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { body: { password: 'football1' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject(compromised);
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/reset_password`, { body: { password: 'a new and long passphrase' } });
    expect(done.body.response.status).toBe('complete');
  });

  it('lets them through when the check is off', async () => {
    const B = await h.createInstance();
    await h.call('PATCH', '/v1/attack_protection', { key: B.secret, body: { breached_passwords: { enabled: false } } });
    expect((await signUp(B, 'password123')).status).toBe(200);
    expect((await createUser(B, { password: 'password123' })).status).toBe(200);
  });
});

describe('the range API', () => {
  let R: TestInstance;
  beforeAll(async () => {
    R = await h.createInstance();
    const res = await h.call('PATCH', '/v1/attack_protection', {
      key: R.secret,
      body: { breached_passwords: { range_api_url: rangeUrl } },
    });
    expect(res.status).toBe(200);
  });

  it('sends only the first 5 hex digits of the SHA-1 and refuses a listed password', async () => {
    asked.length = 0;
    const res = await signUp(R, LEAKED);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject(compromised);
    expect(asked).toEqual([`/range/${sha1(LEAKED).slice(0, 5)}`]);
    expect((await createUser(R, { password: LEAKED })).status).toBe(422);
    expect((await signUp(R, 'a password nobody has leaked yet')).status).toBe(200);
  });

  it('never blocks: an error, a hang past the timeout, or a refused address lets the password through', async () => {
    mode = 'error';
    expect((await signUp(R, LEAKED)).status).toBe(200);
    mode = 'hang';
    const started = Date.now();
    expect((await signUp(R, LEAKED)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    mode = 'ok';
    // A live instance may not reach loopback (SSRF guard): nothing is asked, nothing blocked.
    const live = await h.createInstance({ environment: 'live' });
    await h.call('PATCH', '/v1/attack_protection', { key: live.secret, body: { breached_passwords: { range_api_url: rangeUrl } } });
    asked.length = 0;
    expect((await createUser(live, { password: LEAKED })).status).toBe(200);
    expect(asked).toEqual([]);
  });
});
