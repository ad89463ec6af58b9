import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events, idempotencyRecords } from '../db/schema';
import { sharedHarness } from '../testing/harness';
import { expectError } from '../testing/expect';
import { IDEMPOTENCY_TTL_MS } from './idempotency';
import { raceTest } from '../testing/races';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });

let n = 0;
const uniq = (tag: string) => `${tag}_${++n}_${Math.random().toString(36).slice(2, 8)}`;

/** A fresh instance per test: its user list and events belong to that test alone. */
async function fresh() {
  const inst = await h.createInstance();
  const post = (body: unknown, idempotencyKey?: string, path = '/v1/users') =>
    h.call('POST', path, {
      key: inst.secret,
      body,
      headers: idempotencyKey === undefined ? undefined : { 'idempotency-key': idempotencyKey },
    });
  const listUsers = async () => {
    const res = await h.call('GET', '/v1/users?limit=100', { key: inst.secret });
    expect(res.status).toBe(200);
    return res.body.data as { id: string; username: string | null; email_addresses: { email_address: string }[] }[];
  };
  const eventCount = async (type: string) =>
    (
      await h.runtime.deps.db
        .select()
        .from(events)
        .where(and(eq(events.instanceId, inst.instanceId), eq(events.type, type)))
    ).length;
  return { ...inst, post, listUsers, eventCount };
}

describe('Idempotency-Key on BAPI POST', () => {
  it('the same key and body replays the first response and creates one user', async () => {
    const t = await fresh();
    const key = uniq('create');
    const body = { email_address: 'once@example.com', first_name: 'Once' };
    const first = await t.post(body, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    h.clock.advance(60_000);
    const second = await t.post(body, key);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);

    const third = await t.post(body, key);
    expect(third.body).toEqual(first.body);
    expect(third.headers.get('idempotent-replayed')).toBe('true');

    const users = await t.listUsers();
    expect(users.map((u) => u.id)).toEqual([first.body.id]);
    expect(await t.eventCount('user.created')).toBe(1);
  });

  it('without a key, the same body runs again', async () => {
    const t = await fresh();
    const a = await t.post({ username: 'no_key_user' });
    expect(a.status).toBe(200);
    const b = await t.post({ username: 'no_key_user' });
    expectError(b, 422, 'VALIDATION_FAILED', { param: 'username', reason: 'taken' });
  });

  it('the same key with a different body is refused with 422 IDEMPOTENCY_KEY_MISMATCH', async () => {
    const t = await fresh();
    const key = uniq('mismatch');
    const first = await t.post({ username: 'mismatch_a' }, key);
    expect(first.status).toBe(200);
    expectError(await t.post({ username: 'mismatch_b' }, key), 422, 'IDEMPOTENCY_KEY_MISMATCH');
    // Even a semantically equal body with other bytes is another request.
    expectError(await t.post({ username: 'mismatch_a', first_name: 'X' }, key), 422, 'IDEMPOTENCY_KEY_MISMATCH');
    expect((await t.listUsers()).map((u) => u.username)).toEqual(['mismatch_a']);
  });

  it('the same key on another path is a mismatch, not a replay', async () => {
    const t = await fresh();
    const key = uniq('path');
    const created = await t.post({ username: 'path_user' }, key);
    expect(created.status).toBe(200);
    const ban = await h.call('POST', `/v1/users/${created.body.id}/ban`, { key: t.secret, headers: { 'idempotency-key': key } });
    expectError(ban, 422, 'IDEMPOTENCY_KEY_MISMATCH');
    expect((await h.call('GET', `/v1/users/${created.body.id}`, { key: t.secret })).body.banned).toBe(false);
  });

  it('keys are per instance', async () => {
    const a = await fresh();
    const b = await fresh();
    const key = uniq('shared');
    const body = { username: 'same_everywhere' };
    const ra = await a.post(body, key);
    const rb = await b.post(body, key);
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(rb.body.id).not.toBe(ra.body.id);
  });

  it('replays an action such as ban without a second event', async () => {
    const t = await fresh();
    const user = await t.post({ username: 'ban_replay' });
    const key = uniq('ban');
    const path = `/v1/users/${user.body.id}/ban`;
    const first = await h.call('POST', path, { key: t.secret, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    const again = await h.call('POST', path, { key: t.secret, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await t.eventCount('user.banned')).toBe(1);
  });

  raceTest('two concurrent requests with the same key: one runs, the other is 409 or a replay; never two users', async () => {
    for (let round = 0; round < 5; round++) {
      const t = await fresh();
      const key = uniq('race');
      const body = { email_address: `race${round}@example.com`, password: 'a long enough password' };
      const results = await Promise.all([t.post(body, key), t.post(body, key), t.post(body, key)]);
      const ran = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
      expect(ran, JSON.stringify(results.map((r) => [r.status, r.body]))).toHaveLength(1);
      for (const r of results) {
        if (r === ran[0]) continue;
        if (r.status === 409) expectError(r, 409, 'IDEMPOTENCY_KEY_IN_USE');
        else {
          expect(r.status).toBe(200);
          expect(r.headers.get('idempotent-replayed')).toBe('true');
          expect(r.body).toEqual(ran[0]!.body);
        }
      }
      expect((await t.listUsers()).map((u) => u.id)).toEqual([ran[0]!.body.id]);
      expect(await t.eventCount('user.created')).toBe(1);
      // After the first finished, a retry replays.
      const retry = await t.post(body, key);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(ran[0]!.body);
    }
  });

  it('a failed request is not stored: the same key and body runs again', async () => {
    const t = await fresh();
    await t.post({ email_address: 'taken@example.com' });
    const key = uniq('fail');
    const body = { email_address: 'taken@example.com', first_name: 'Second' };
    const first = await t.post(body, key);
    expectError(first, 422, 'VALIDATION_FAILED', { param: 'email_address', reason: 'taken' });
    const rows = await h.runtime.deps.db
      .select()
      .from(idempotencyRecords)
      .where(and(eq(idempotencyRecords.instanceId, t.instanceId), eq(idempotencyRecords.key, key)));
    expect(rows).toEqual([]);

    const second = await t.post(body, key);
    expectError(second, 422, 'VALIDATION_FAILED', { param: 'email_address', reason: 'taken' });
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.trace_id).not.toBe(first.body.trace_id);

    // Once the address is free, the same key and body succeed.
    const holder = (await t.listUsers())[0]!;
    expect((await h.call('DELETE', `/v1/users/${holder.id}`, { key: t.secret })).status).toBe(200);
    const third = await t.post(body, key);
    expect(third.status).toBe(200);
    expect(third.headers.get('idempotent-replayed')).toBeNull();
    const fourth = await t.post(body, key);
    expect(fourth.headers.get('idempotent-replayed')).toBe('true');
    expect(fourth.body).toEqual(third.body);
  });

  it('a request refused by validation is not stored either', async () => {
    const t = await fresh();
    const key = uniq('invalid');
    expectError(await t.post({ email_address: 'nope' }, key), 422, 'VALIDATION_FAILED');
    // The key is still free for a corrected request.
    const ok = await t.post({ email_address: 'yes@example.com' }, key);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a key older than 24 hours is treated as new', async () => {
    const t = await fresh();
    const key = uniq('expiry');
    const body = { username: 'expiry_one' };
    const first = await t.post(body, key);
    expect(first.status).toBe(200);

    h.clock.advance(IDEMPOTENCY_TTL_MS - 1000);
    const within = await t.post(body, key);
    expect(within.headers.get('idempotent-replayed')).toBe('true');
    expect(within.body).toEqual(first.body);
    expectError(await t.post({ username: 'expiry_two' }, key), 422, 'IDEMPOTENCY_KEY_MISMATCH');

    h.clock.advance(2000);
    // The same body runs again (and finds its username taken): no replay.
    const rerun = await t.post(body, key);
    expectError(rerun, 422, 'VALIDATION_FAILED', { param: 'username', reason: 'taken' });
    // Another body with the old key is no mismatch: it runs and creates a second user.
    const other = await t.post({ username: 'expiry_two' }, key);
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body.id).not.toBe(first.body.id);
    // From now on the key replays the new response.
    const replay = await t.post({ username: 'expiry_two' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(other.body);
    expect((await t.listUsers()).map((u) => u.username).sort()).toEqual(['expiry_one', 'expiry_two']);
  });

  it('refuses a malformed key', async () => {
    const t = await fresh();
    let refused = 0;
    for (const bad of ['', 'a'.repeat(256), 'has space', 'ünïcode']) {
      const res = await h
        .call('POST', '/v1/users', {
          key: t.secret,
          body: { username: 'bad_key_user' },
          headers: { 'idempotency-key': bad },
        })
        .catch((e: unknown) => e as Error);
      if (res instanceof Error) continue; // a header value the Fetch API itself refuses to send
      expectError(res, 422, 'VALIDATION_FAILED', { param: 'Idempotency-Key' });
      refused++;
    }
    expect(refused).toBeGreaterThanOrEqual(3);
    expect(await t.listUsers()).toEqual([]);
  });

  it('is ignored on PATCH and GET', async () => {
    const t = await fresh();
    const user = await t.post({ username: 'patch_me' });
    const key = uniq('patch');
    const a = await h.call('PATCH', `/v1/users/${user.body.id}`, {
      key: t.secret,
      body: { first_name: 'A' },
      headers: { 'idempotency-key': key },
    });
    const b = await h.call('PATCH', `/v1/users/${user.body.id}`, {
      key: t.secret,
      body: { first_name: 'B' },
      headers: { 'idempotency-key': key },
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.first_name).toBe('B');
    const g = await h.call('GET', '/v1/users', { key: t.secret, headers: { 'idempotency-key': key } });
    expect(g.status).toBe(200);
  });
});

describe('stored responses', () => {
  it('replays a session mint without keeping its secrets readable at rest', async () => {
    const inst = await fresh();
    const user = await inst.post({ email_address: [`${uniq('mint')}@example.com`] });
    const first = await inst.post({ user_id: user.body.id }, 'mint-once', '/v1/sessions');
    expect(first.status).toBe(200);
    const replay = await inst.post({ user_id: user.body.id }, 'mint-once', '/v1/sessions');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.refresh_token).toBe(first.body.refresh_token);
    const [row] = await h.runtime.deps.db
      .select()
      .from(idempotencyRecords)
      .where(and(eq(idempotencyRecords.instanceId, inst.instanceId), eq(idempotencyRecords.key, 'mint-once')));
    expect(row!.body).not.toContain(first.body.refresh_token);
    expect(row!.body).not.toContain(first.body.jwt);
  });
});

describe('authorization before a replay (issue 12.1)', () => {
  it('a stored impersonation mint never replays to a key lacking impersonation:write', async () => {
    const inst = await fresh();
    const user = await inst.post({ email_address: [`${uniq('imp')}@example.com`] });
    const body = { user_id: user.body.id, actor: { sub: 'user_admin' } };
    const first = await inst.post(body, 'imp-once', '/v1/sessions');
    expect(first.status).toBe(200);
    expect(first.body.jwt).toBeTruthy();

    const narrow = await h.createKey(inst.instanceId, 'sessions:write');
    const replay = await h.call('POST', '/v1/sessions', { key: narrow.secret, body, headers: { 'idempotency-key': 'imp-once' } });
    expectError(replay, 403, 'SCOPE_MISSING');
    expect(replay.body.errors[0].meta.required_scope).toBe('impersonation:write');
    expect(JSON.stringify(replay.body)).not.toContain(first.body.refresh_token);
  });

  it('a record replays only to the key that made it; another key with the same Idempotency-Key runs its own request', async () => {
    const inst = await fresh();
    const body = { email_address: [`${uniq('own')}@example.com`] };
    const first = await inst.post(body, 'per-key');
    expect(first.status).toBe(200);
    const other = await h.createKey(inst.instanceId, 'users:write');
    const second = await h.call('POST', '/v1/users', { key: other.secret, body, headers: { 'idempotency-key': 'per-key' } });
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expectError(second, 422, 'VALIDATION_FAILED'); // the address is taken: the request ran, nothing was replayed
    const again = await inst.post(body, 'per-key');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });
});
