import { expect } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { createDirectory, scimCaller } from '../testing/scim';
import { USER_SCHEMA } from '../scim/discovery';
import { raceTest } from '../testing/races';
import { fapiClient } from '../testing/fapi-client';

/**
 * Parent-row locks under concurrency (PostgreSQL only). Inserting a row that references a
 * parent (a foreign key) takes FOR KEY SHARE on the parent; a transaction that then asks for
 * FOR UPDATE on that parent (explicitly, or by deleting it or changing a column of one of
 * its unique indexes) waits for every other holder of KEY SHARE, and a twin doing the same
 * deadlocks with it. PostgreSQL then aborts one of them: the client sees a 500. Each race
 * below mixes the writes that take those locks on one parent and asks that none fails.
 */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '1000000', SCIM_RATE_LIMIT: '1000000' } });

/** Runs `jobs` with `inFlight` at once; answers every status. */
async function race(jobs: Array<() => Promise<{ status: number; body: unknown }>>, inFlight = 10) {
  const out: { status: number; body: unknown }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < jobs.length) out.push(await jobs[next++]!());
    }),
  );
  return out;
}

const failures = (rs: { status: number; body: unknown }[]) =>
  rs.filter((r) => r.status >= 500).map((r) => JSON.stringify(r.body).slice(0, 300));

raceTest(
  'an organization: SCIM creates, API-key mints for it and slug changes at once',
  async () => {
    const { key, orgId, token } = await createDirectory(h, 'Lock Co', 'Lock');
    const scim = scimCaller(
      () => h,
      () => token,
    );
    const jobs: Array<() => Promise<{ status: number; body: unknown }>> = [];
    for (let n = 0; n < 24; n++) {
      jobs.push(() =>
        scim('POST', '/Users', {
          schemas: [USER_SCHEMA],
          userName: `lock${n}@lock.example.com`,
          name: { givenName: `L${n}`, familyName: 'Co' },
          active: true,
        }),
      );
      if (n % 2 === 0) jobs.push(() => h.call('POST', '/v1/api_keys', { key, body: { subject: orgId, name: `k${n}` } }));
      if (n % 3 === 0) jobs.push(() => h.call('PATCH', `/v1/organizations/${orgId}`, { key, body: { slug: `lock-co-${n}` } }));
    }
    const results = await race(jobs);
    expect(failures(results)).toEqual([]);
    expect(results.filter((r) => r.status >= 400)).toEqual([]);
    const members = await h.call('GET', `/v1/organizations/${orgId}/memberships?limit=100`, { key });
    expect(members.body.data).toHaveLength(24);
  },
  120_000,
);

raceTest(
  'an organization deleted while SCIM creates reference it: no deadlock',
  async () => {
    const { key, orgId, token } = await createDirectory(h, 'Gone Co', 'Gone');
    const scim = scimCaller(
      () => h,
      () => token,
    );
    const jobs: Array<() => Promise<{ status: number; body: unknown }>> = [];
    for (let n = 0; n < 20; n++) {
      jobs.push(() => scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: `gone${n}@gone.example.com`, active: true }));
      if (n === 10) jobs.push(() => h.call('DELETE', `/v1/organizations/${orgId}`, { key }));
    }
    const results = await race(jobs);
    expect(failures(results)).toEqual([]);
    expect((await h.call('GET', `/v1/organizations/${orgId}`, { key })).status).toBe(404);
  },
  120_000,
);

raceTest(
  'a user: sessions minted, API keys minted, metadata and username changed at once',
  async () => {
    const { secret: key } = await h.createInstance();
    const user = await h.call('POST', '/v1/users', { key, body: { email_address: ['locks@example.com'], username: 'locks0' } });
    expect(user.status).toBe(200);
    const id: string = user.body.id;
    const jobs: Array<() => Promise<{ status: number; body: unknown }>> = [];
    for (let n = 0; n < 24; n++) {
      jobs.push(() => h.call('POST', '/v1/sessions', { key, body: { user_id: id } }));
      if (n % 2 === 0) jobs.push(() => h.call('POST', '/v1/api_keys', { key, body: { subject: id, name: `k${n}` } }));
      if (n % 3 === 0) jobs.push(() => h.call('PATCH', `/v1/users/${id}`, { key, body: { public_metadata: { [`n${n}`]: n } } }));
      if (n % 4 === 0) jobs.push(() => h.call('PATCH', `/v1/users/${id}`, { key, body: { username: `locks${n + 1}` } }));
    }
    const results = await race(jobs);
    expect(failures(results)).toEqual([]);
    expect(results.filter((r) => r.status >= 400)).toEqual([]);
    const after = await h.call('GET', `/v1/users/${id}`, { key });
    // Every metadata merge kept the others' keys: the row lock serialised them.
    expect(Object.keys(after.body.public_metadata).sort()).toEqual([0, 3, 6, 9, 12, 15, 18, 21].map((n) => `n${n}`).sort());
  },
  120_000,
);

raceTest(
  'a user deleted while sessions are minted for it: no deadlock',
  async () => {
    const { secret: key } = await h.createInstance();
    const id: string = (await h.call('POST', '/v1/users', { key, body: { email_address: ['gone@example.com'] } })).body.id;
    const jobs: Array<() => Promise<{ status: number; body: unknown }>> = [];
    for (let n = 0; n < 20; n++) {
      jobs.push(() => h.call('POST', '/v1/sessions', { key, body: { user_id: id } }));
      if (n === 10 || n === 11) jobs.push(() => h.call('DELETE', `/v1/users/${id}`, { key }));
    }
    const results = await race(jobs);
    expect(failures(results)).toEqual([]);
    expect((await h.call('GET', `/v1/users/${id}`, { key })).status).toBe(404);
  },
  120_000,
);

raceTest(
  'instance settings patched at once keep every change (attack protection, risk-based MFA)',
  async () => {
    const { secret: key } = await h.createInstance();
    const before = await h.call('GET', '/v1/attack_protection', { key });
    expect(before.body.user_lockout.max_attempts).not.toBe(7);
    expect((await h.call('GET', '/v1/risk_based_mfa', { key })).body.enabled).toBe(false);
    const jobs: Array<() => Promise<{ status: number; body: unknown }>> = [];
    for (let n = 0; n < 12; n++) {
      jobs.push(() => h.call('PATCH', '/v1/attack_protection', { key, body: { user_lockout: { max_attempts: 7 } } }));
      jobs.push(() => h.call('PATCH', '/v1/risk_based_mfa', { key, body: { enabled: true } }));
      jobs.push(() => h.call('POST', '/v1/users', { key, body: { email_address: [`s${n}@settings.example.com`] } }));
    }
    const results = await race(jobs);
    expect(failures(results)).toEqual([]);
    // Each settings write read the row under its lock: none wrote back a copy older than another's change.
    expect((await h.call('GET', '/v1/attack_protection', { key })).body.user_lockout.max_attempts).toBe(7);
    expect((await h.call('GET', '/v1/risk_based_mfa', { key })).body.enabled).toBe(true);
  },
  120_000,
);

raceTest(
  'a user signing in on many browsers while renamed and then deleted: no deadlock',
  async () => {
    const i = await h.createInstance();
    const id: string = (
      await h.call('POST', '/v1/users', { key: i.secret, body: { email_address: ['busy@example.com'], username: 'busy0' } })
    ).body.id;
    const signIn = async () => {
      const ticket = (await h.call('POST', '/v1/sign_in_tokens', { key: i.secret, body: { user_id: id } })).body.token as string;
      return fapiClient(h, i.instanceId, { publishableKey: i.publishableKey }).signInWithTicket(ticket);
    };
    const jobs: Array<() => Promise<{ status: number; body: unknown }>> = [];
    for (let n = 0; n < 24; n++) {
      jobs.push(signIn);
      if (n % 4 === 0) jobs.push(() => h.call('PATCH', `/v1/users/${id}`, { key: i.secret, body: { username: `busy${n + 1}` } }));
      if (n === 20) jobs.push(() => h.call('DELETE', `/v1/users/${id}`, { key: i.secret }));
    }
    const results = await race(jobs);
    expect(failures(results)).toEqual([]);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(20);
  },
  120_000,
);
