import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole, consoleInstance } from '../testing/console-client';
import { expectError } from '../testing/expect';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let base: string;
let secret: string;
let otherSecret: string;
beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  ({ base, secret } = await consoleInstance(owner));
  const other = (await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Other' } })).body;
  otherSecret = (
    await owner.b.dash('POST', `/accounts/${owner.accountId}/instances/${other.id}/keys`, { body: { name: 'x', scopes: ['*'] } })
  ).body.secret;
});
afterAll(() => h.close());

const people = (refs: string[]) => owner.b.dash('GET', `${base}/people?refs=${encodeURIComponent(refs.join(','))}`);

describe('dashboard: people, not ids', () => {
  it('names users, their sessions, the account’s operators, organizations, keys and initial access tokens; leaves out what is not the instance’s', async () => {
    const ada = (
      await h.call('POST', '/v1/users', {
        key: secret,
        body: { email_address: ['ada@example.com'], first_name: 'Ada', last_name: 'Lovelace' },
      })
    ).body.id;
    const bob = (await h.call('POST', '/v1/users', { key: secret, body: { email_address: ['bob@example.com'] } })).body.id;
    const session = (await h.call('POST', '/v1/sessions', { key: secret, body: { user_id: ada } })).body.id;
    const org = (await h.call('POST', '/v1/organizations', { key: secret, body: { name: 'Northwind' } })).body.id;
    const elsewhere = (
      await h.call('POST', '/v1/users', { key: otherSecret, body: { email_address: ['eve@example.com'], first_name: 'Eve' } })
    ).body.id;
    const keyId = (await owner.b.dash('GET', `${base}/keys`)).body.data[0].id as string;
    // The actor of a dynamic registration (`oauth_initial_access_token:<id>`).
    const iat = await owner.b.dash('POST', `${base}/oauth_initial_access_tokens`, { body: { name: 'Partner onboarding' } });
    expect(iat.status).toBeLessThan(300);
    const iatRef = `oauth_initial_access_token:${iat.body.id as string}`;

    const res = await people([
      ada,
      `session:${session}`,
      `operator:${owner.operator.id}`,
      org,
      `key:${keyId}`,
      iatRef,
      bob,
      elsewhere,
      'cli',
      'user_nobody',
    ]);
    expect(res.status).toBe(200);
    const byRef = Object.fromEntries(res.body.data.map((p: { ref: string }) => [p.ref, p]));
    expect(byRef[ada]).toMatchObject({ kind: 'user', id: ada, name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(byRef[bob]).toMatchObject({ kind: 'user', name: null, email: 'bob@example.com' });
    expect(byRef[`session:${session}`]).toMatchObject({ kind: 'session', id: session, user_id: ada, name: 'Ada Lovelace' });
    expect(byRef[`operator:${owner.operator.id}`]).toMatchObject({ kind: 'operator', name: 'Olive', email: 'owner@example.com' });
    expect(byRef[org]).toMatchObject({ kind: 'organization', name: 'Northwind', email: null });
    expect(byRef[`key:${keyId}`]).toMatchObject({ kind: 'secret_key', name: 'backend' });
    expect(byRef[iatRef]).toMatchObject({ kind: 'initial_access_token', name: 'Partner onboarding', email: null });
    // Another instance's user, a system actor and an unknown id are not named.
    expect(Object.keys(byRef).sort()).toEqual(
      [ada, bob, org, `key:${keyId}`, iatRef, `operator:${owner.operator.id}`, `session:${session}`].sort(),
    );
  });

  it('bounds the refs and needs an operator of the account', async () => {
    expectError(await people(Array.from({ length: 201 }, (_, i) => `user_${i}`)), 422, 'VALIDATION_FAILED', { param: 'refs' });
    const stranger = await h.call('GET', `/v1/dashboard${base}/people?refs=user_x`);
    expect(stranger.status).toBe(401);
  });
});
