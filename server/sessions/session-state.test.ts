import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../api';
import { createRuntime, type Runtime } from '../runtime';
import { signedInClient } from '../testing/fapi-helpers';
import { createHarness, type TestHarness, type TestInstance } from '../testing/harness';
import { TtlCache } from '../infra/ttl-cache';

// ---------------------------------------------------------------- one choke point

const SERVER = path.resolve(__dirname, '..');
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return name === 'testing' ? [] : sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });

/** What changes session state: an UPDATE or DELETE of sessions, a bump of users.sessions_version. */
const WRITES = [
  /\.update\(\s*sessions\s*\)/,
  /\.delete\(\s*sessions\s*\)/,
  /update\s+\$\{\s*sessions\s*\}/i,
  /delete\s+from\s+\$\{\s*sessions\s*\}/i,
  /update\s+"?sessions"?\s+set/i,
  /sessionsVersion\s*:\s*sql/,
  /sessions_version\s*=/i,
];
/**
 * The only writes allowed outside session-state.ts: token refresh's one-statement rotation,
 * which moves activity columns only (never status) and drops the session from this node's
 * cache right after (forgetSessionHere) — nothing another node must learn at once.
 */
const ACTIVITY_ONLY =
  /update \$\{sessions\} set last_active_at = \$\{(v\.)?now\}, abandon_at = \$\{(v\.)?abandonAt\}, updated_at = \$\{(v\.)?now\}/;

describe('session state has one writer', () => {
  it('every UPDATE of sessions and every sessions_version bump goes through session-state.ts', () => {
    const offenders: string[] = [];
    for (const file of sources(SERVER)) {
      const rel = path.relative(SERVER, file);
      if (rel === path.join('sessions', 'session-state.ts')) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, n) => {
          if (WRITES.some((re) => re.test(line)) && !ACTIVITY_ONLY.test(line)) offenders.push(`${rel}:${n + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('the activity-only refresh statements drop the session from the cache and set no status', () => {
    // The statements live in sessions/statements.ts; sessions.ts runs them and forgets the session after each.
    const statements = readFileSync(path.join(SERVER, 'sessions', 'statements.ts'), 'utf8');
    const touching = [...statements.matchAll(new RegExp(ACTIVITY_ONLY.source, 'g'))].map((m) =>
      statements.slice(m.index, statements.indexOf('`', m.index)),
    );
    expect(touching.length).toBeGreaterThan(0);
    for (const s of touching) expect(s).not.toMatch(/\bstatus\s*=/);
    const runner = readFileSync(path.join(SERVER, 'sessions', 'sessions.ts'), 'utf8');
    expect(runner.match(/forgetSessionHere\(deps, /g)?.length ?? 0).toBeGreaterThanOrEqual(touching.length);
  });
});

describe('a fill that raced an invalidation', () => {
  it('is not stored; one begun after it is', () => {
    const cache = new TtlCache<string>(60_000, 2);
    const ticket = cache.begin();
    cache.delete('s1'); // the change's invalidation lands while the read is in flight
    expect(cache.setIfUnchanged('s1', 'old state', 0, ticket)).toBe(false);
    expect(cache.get('s1', 0)).toBeUndefined();
    expect(cache.setIfUnchanged('s2', 'other key', 0, ticket)).toBe(true);
    expect(cache.setIfUnchanged('s1', 'new state', 0, cache.begin())).toBe(true);
    // Past the bounded memory of deletes, every older ticket is refused.
    const old = cache.begin();
    for (const k of ['a', 'b', 'c', 'd']) cache.delete(k);
    expect(cache.setIfUnchanged('s3', 'v', 0, old)).toBe(false);
  });
});

// ---------------------------------------------------------------- seen at once, on both nodes

/**
 * Two nodes on one database with Redis pub/sub. The clock never moves, so a cached entry
 * never expires on its own: a refusal after a change can only come from its invalidation.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let h: TestHarness;
let second: Runtime;
let node2: ReturnType<typeof createApiHandler>;
let i: TestInstance;

beforeAll(async () => {
  h = await createHarness({ env: { REDIS_URL, BAPI_RATE_LIMIT: '1000000' } });
  second = await createRuntime(h.runtime.deps.config, { database: h.runtime.database, clock: h.clock });
  await Promise.all([h.runtime.deps.cacheInvalidation.ready, second.deps.cacheInvalidation.ready]);
  node2 = createApiHandler(second);
  i = await h.createInstance();
});
afterAll(async () => {
  second.deps.cacheInvalidation.close();
  await second.deps.passwords.close();
  await h.close();
});

async function verifyOn(node: 1 | 2, token: string) {
  const init = {
    method: 'POST',
    headers: { authorization: `Bearer ${i.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  };
  if (node === 1) return h.call('POST', '/v1/sessions/verify', { key: i.secret, body: { token } });
  const res = await node2(new Request('http://localhost:3000/v1/sessions/verify', init));
  return { status: res.status, body: await res.json() };
}

const bapi = (method: string, p: string, body?: unknown) => h.call(method, p, { key: i.secret, body });
let n = 0;
async function newUser() {
  const res = await bapi('POST', '/v1/users', { email_address: [`state${++n}@example.com`], password: 'a long enough passphrase 42' });
  expect(res.status).toBe(200);
  return res.body.id as string;
}
/** A browser signed in as a new user, its session jwt, and that session verified once on each node (now cached). */
async function warmSession() {
  const userId = await newUser();
  const { b, sessionId } = await signedInClient(h, i, userId);
  const jwt = (await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`)).body.jwt as string;
  for (const node of [1, 2] as const) expect((await verifyOn(node, jwt)).status, `node ${node} before`).toBe(200);
  return { userId, b, sessionId, jwt };
}

async function expectRefusedEverywhere(jwt: string, code: string) {
  const here = await verifyOn(1, jwt);
  expect(here.status, JSON.stringify(here.body)).toBe(401);
  expect(here.body.errors[0].code).toBe(code);
  await expect.poll(async () => (await verifyOn(2, jwt)).status, { timeout: 1000, interval: 10 }).toBe(401);
  expect((await verifyOn(2, jwt)).body.errors[0].code).toBe(code);
}

describe('authoritative verification from the per-node cache', () => {
  it('a cached session still answers its current view', async () => {
    const { sessionId, jwt } = await warmSession();
    const res = await verifyOn(2, jwt);
    expect(res.body).toEqual((await bapi('GET', `/v1/sessions/${sessionId}`)).body);
  });

  const paths: [string, (s: Awaited<ReturnType<typeof warmSession>>) => Promise<unknown>, string][] = [
    ['BAPI revoke one session', (s) => bapi('POST', `/v1/sessions/${s.sessionId}/revoke`), 'SESSION_REVOKED'],
    ['BAPI revoke every session of the user', (s) => bapi('POST', `/v1/users/${s.userId}/sessions/revoke`), 'SESSION_REVOKED'],
    ['BAPI ban the user', (s) => bapi('POST', `/v1/users/${s.userId}/ban`), 'SESSION_REVOKED'],
    ['BAPI delete the user', (s) => bapi('DELETE', `/v1/users/${s.userId}`), 'SESSION_REVOKED'],
    ['FAPI end the session (sign out)', (s) => s.b.call('POST', `/v1/client/sessions/${s.sessionId}/end`), 'SESSION_ENDED'],
    ['FAPI remove the session', (s) => s.b.call('POST', `/v1/client/sessions/${s.sessionId}/remove`), 'SESSION_REMOVED'],
    ['FAPI sign out of every session of the client', (s) => s.b.call('DELETE', '/v1/client/sessions'), 'SESSION_ENDED'],
    ['FAPI sign the client out (DELETE /v1/client)', (s) => s.b.call('DELETE', '/v1/client'), 'SESSION_ENDED'],
    [
      'FAPI revoke it from another session of the user',
      async (s) => {
        const other = await signedInClient(h, i, s.userId);
        const res = await other.b.call('POST', `/v1/me/sessions/${s.sessionId}/revoke`);
        expect(res.status).toBe(200);
      },
      'SESSION_REVOKED',
    ],
    [
      'FAPI change the password from another session (others signed out)',
      async (s) => {
        const other = await signedInClient(h, i, s.userId);
        const res = await other.b.call('POST', '/v1/me/change_password', {
          body: {
            current_password: 'a long enough passphrase 42',
            new_password: 'another long passphrase 43',
            sign_out_of_other_sessions: true,
          },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      },
      'SESSION_REVOKED',
    ],
  ];
  for (const [name, change, code] of paths) {
    it(`${name}: refused at once on this node and within a second on the other`, async () => {
      const s = await warmSession();
      await change(s);
      await expectRefusedEverywhere(s.jwt, code);
    });
  }

  it('a reused refresh token revokes the session everywhere', async () => {
    const userId = await newUser();
    const minted = (await bapi('POST', '/v1/sessions', { user_id: userId })).body;
    const refresh = (token: string) =>
      h.call('POST', `/fapi/${i.instanceId}/v1/sessions/${minted.id}/refresh`, { body: { refresh_token: token } });
    expect((await refresh(minted.refresh_token)).status).toBe(200);
    h.clock.advance(11_000); // past the grace window; the jwt (60 s) is still good
    for (const node of [1, 2] as const) expect((await verifyOn(node, minted.jwt)).status).toBe(200);
    expect((await refresh(minted.refresh_token)).status).toBe(401);
    await expectRefusedEverywhere(minted.jwt, 'SESSION_REVOKED');
  });

  it('deleting the active organization shows on both nodes at once', async () => {
    await h.call('PATCH', `/v1/instance`, { key: i.secret, body: { organizations_enabled: true } });
    const s = await warmSession();
    const org = (await bapi('POST', '/v1/organizations', { name: 'Cached', created_by: s.userId })).body;
    const touched = await s.b.call('POST', `/v1/client/sessions/${s.sessionId}/touch`, { body: { active_organization_id: org.id } });
    expect(touched.status, JSON.stringify(touched.body)).toBe(200);
    for (const node of [1, 2] as const) expect((await verifyOn(node, s.jwt)).body.last_active_organization_id, `node ${node}`).toBe(org.id);
    expect((await bapi('DELETE', `/v1/organizations/${org.id}`)).status).toBe(200);
    expect((await verifyOn(1, s.jwt)).body.last_active_organization_id).toBeNull();
    await expect.poll(async () => (await verifyOn(2, s.jwt)).body.last_active_organization_id, { timeout: 1000, interval: 10 }).toBeNull();
  });
});
