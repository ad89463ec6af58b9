import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole, invitedViewer, type ConsoleBrowser } from '../testing/console-client';
import { expectError } from '../testing/expect';
import { createHarness, type TestHarness } from '../testing/harness';

/** The console's API key calls: the BAPI's under /v1/dashboard, viewers read, admins mint and revoke. */
let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let viewer: ConsoleBrowser;
let base: string;
let secretKey: string;
let userId: string;

beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Keys', environment: 'test' } });
  const instancePath = `/accounts/${owner.accountId}/instances/${instance.body.id}`;
  base = `${instancePath}/api_keys`;
  secretKey = (await owner.b.dash('POST', `${instancePath}/keys`, { body: { scopes: '*' } })).body.secret;
  userId = (await h.call('POST', '/v1/users', { key: secretKey, body: { email_address: ['holder@example.com'] } })).body.id;
  viewer = await invitedViewer(h, owner);
});
afterAll(() => h.close());

describe('dashboard API keys', () => {
  it('an admin mints (secret once), filters by subject and revokes; audit names the operator', async () => {
    const created = await owner.b.dash('POST', base, { body: { subject: userId, name: 'From the console', scopes: ['read:x'] } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.secret).toMatch(/^ak_/);
    const listed = await owner.b.dash('GET', `${base}?subject=${userId}`);
    expect(listed.body.data.map((k: { id: string }) => k.id)).toEqual([created.body.id]);
    expect(listed.body.data[0]).not.toHaveProperty('secret');
    expect((await owner.b.dash('GET', `${base}?subject=org_01J0000000000000000000000Z`)).body.data).toEqual([]);
    expect((await h.call('POST', '/v1/api_keys/verify', { key: secretKey, body: { secret: created.body.secret } })).status).toBe(200);

    const revoked = await owner.b.dash('POST', `${base}/${created.body.id}/revoke`, { body: { revocation_reason: 'rotated' } });
    expect(revoked.body).toMatchObject({ revoked: true, revocation_reason: 'rotated' });
    expectError(
      await h.call('POST', '/v1/api_keys/verify', { key: secretKey, body: { secret: created.body.secret } }),
      404,
      'API_KEY_INVALID',
      { reason: 'revoked' },
    );
    const log = await h.call('GET', `/v1/audit_logs?action=api_key.revoked&target=${created.body.id}`, { key: secretKey });
    expect(log.body.data[0]).toMatchObject({ actor_kind: 'operator', actor: expect.stringMatching(/^operator:user_/) });
  });

  it('a viewer reads but cannot mint or revoke', async () => {
    const key = (await h.call('POST', '/v1/api_keys', { key: secretKey, body: { subject: userId, name: 'Server' } })).body;
    expect((await viewer.dash('GET', base)).status).toBe(200);
    expect((await viewer.dash('GET', `${base}/${key.id}`)).body).toMatchObject({ id: key.id, subject: userId });
    expectError(await viewer.dash('POST', base, { body: { subject: userId, name: 'x' } }), 403, 'FORBIDDEN', { reason: 'role_required' });
    expectError(await viewer.dash('POST', `${base}/${key.id}/revoke`, { body: {} }), 403, 'FORBIDDEN', { reason: 'role_required' });
  });
});
