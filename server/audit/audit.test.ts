import { beforeAll, describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { audit } from './audit';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000', TRUST_PROXY: '1' } });
let key: string;
let keyId: string;
let instanceId: string;
beforeAll(async () => {
  ({ secret: key, keyId, instanceId } = await h.createInstance());
});

const errorOf = (body: { errors: { code: string }[] }) => body.errors[0]!;
type Entry = { id: string; actor: string; action: string; target: string | null; created_at: number };
const list = (query: string, k = key) => h.call('GET', `/v1/audit_logs${query}`, { key: k });
const ids = (body: { data: Entry[] }) => body.data.map((e) => e.id);

describe('GET /v1/audit_logs', () => {
  it('answers entries in the documented shape, newest first, written by the actions they record', async () => {
    const user = (await h.call('POST', '/v1/users', { key, body: { email_address: ['a@example.com'] } })).body.id;
    const minted = await h.call('POST', '/v1/sessions', {
      key,
      body: { user_id: user, actor: { sub: 'user_admin' } },
      headers: { 'user-agent': 'admin-tool/2', 'x-forwarded-for': '198.51.100.4' },
    });
    expect(minted.status).toBe(200);
    h.clock.advance(1_000);
    await h.call('POST', `/v1/sessions/${minted.body.id}/revoke`, { key });

    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
    const [revoked, impersonation, userCreated, keyCreated] = res.body.data;
    expect(Object.keys(impersonation).sort()).toEqual([
      'action',
      'actor',
      'actor_kind',
      'created_at',
      'details',
      'id',
      'ip',
      'object',
      'target',
      'user_agent',
    ]);
    expect(impersonation).toEqual({
      object: 'audit_log',
      id: expect.stringMatching(/^aud_[0-9A-HJKMNP-TV-Z]{26}$/),
      actor: `key:${keyId}`,
      actor_kind: 'secret_key',
      action: 'impersonation.session_created',
      target: minted.body.id,
      ip: '198.51.100.4',
      user_agent: 'admin-tool/2',
      details: { user_id: user, actor: { sub: 'user_admin' } },
      created_at: minted.body.created_at,
    });
    expect(revoked).toMatchObject({ action: 'session.revoked', target: minted.body.id, created_at: minted.body.created_at + 1_000 });
    expect(userCreated).toMatchObject({ action: 'user.created', target: user, actor: `key:${keyId}`, actor_kind: 'secret_key' });
    expect(keyCreated).toMatchObject({ action: 'secret_key.created', target: keyId, actor: 'test', ip: null, user_agent: null });
    expect(res.body.data).toHaveLength(4);
  });

  it('shows only this instance’s entries', async () => {
    const other = await h.createInstance();
    await audit(h.runtime.deps, { instanceId: null, actor: 'system', action: 'platform.thing' });
    const mine = await list('?limit=100');
    expect(mine.body.data.every((e: Entry) => e.action !== 'platform.thing')).toBe(true);
    expect(mine.body.data.every((e: Entry) => e.target !== other.keyId)).toBe(true);
    const theirs = await list('', other.secret);
    expect(theirs.body.data.map((e: Entry) => [e.action, e.target])).toEqual([['secret_key.created', other.keyId]]);
  });

  describe('filters', () => {
    let inst: { instanceId: string; secret: string };
    let t0: number;
    const entries: Entry[] = [];
    beforeAll(async () => {
      inst = await h.createInstance();
      t0 = h.clock.now();
      const rows: [string, string, string | null][] = [
        ['alice', 'thing.created', 'thing_1'],
        ['bob', 'thing.created', 'thing_2'],
        ['alice', 'thing.deleted', 'thing_1'],
        ['bob', 'thing.deleted', 'thing_2'],
        ['alice', 'thing.created', null],
      ];
      for (const [actor, action, target] of rows) {
        h.clock.advance(1_000);
        await audit(h.runtime.deps, { instanceId: inst.instanceId, actor, action, target });
      }
      entries.push(...(await list('?limit=100', inst.secret)).body.data);
    });
    const byIndex = (...is: number[]) => is.map((i) => entries.find((e) => e.created_at === t0 + (i + 1) * 1_000)!.id);

    it('by action, actor and target, alone and combined', async () => {
      expect(ids((await list('?action=thing.created', inst.secret)).body)).toEqual(byIndex(4, 1, 0));
      expect(ids((await list('?actor=bob', inst.secret)).body)).toEqual(byIndex(3, 1));
      expect(ids((await list('?target=thing_1', inst.secret)).body)).toEqual(byIndex(2, 0));
      expect(ids((await list('?actor=alice&action=thing.created', inst.secret)).body)).toEqual(byIndex(4, 0));
      expect(ids((await list('?actor=alice&action=thing.deleted&target=thing_1', inst.secret)).body)).toEqual(byIndex(2));
      expect((await list('?action=nothing.happened', inst.secret)).body).toEqual({ data: [], has_more: false, next_cursor: null });
    });

    it('by time: since inclusive, until exclusive (ms)', async () => {
      const at = (i: number) => t0 + (i + 1) * 1_000;
      expect(ids((await list(`?since=${at(3)}`, inst.secret)).body)).toEqual(byIndex(4, 3));
      // The instance's own secret_key.created entry predates t0.
      const keyCreated = ids((await list('?action=secret_key.created', inst.secret)).body);
      expect(ids((await list(`?until=${at(1)}`, inst.secret)).body)).toEqual([...byIndex(0), ...keyCreated]);
      expect(ids((await list(`?since=${at(1)}&until=${at(3)}`, inst.secret)).body)).toEqual(byIndex(2, 1));
      expect(ids((await list(`?since=${at(1)}&until=${at(3)}&actor=bob`, inst.secret)).body)).toEqual(byIndex(1));
    });

    it('paginates with limit and starting_after; limit is clamped to 100', async () => {
      const page1 = await list('?actor=alice&limit=2', inst.secret);
      expect(ids(page1.body)).toEqual(byIndex(4, 2));
      expect(page1.body).toMatchObject({ has_more: true, next_cursor: byIndex(2)[0] });
      const page2 = await list(`?actor=alice&limit=2&starting_after=${page1.body.next_cursor}`, inst.secret);
      expect(ids(page2.body)).toEqual(byIndex(0));
      expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });

      // Stable under insertion: a new entry does not shift the next page.
      await audit(h.runtime.deps, { instanceId: inst.instanceId, actor: 'alice', action: 'thing.created' });
      const again = await list(`?actor=alice&limit=2&starting_after=${page1.body.next_cursor}`, inst.secret);
      expect(ids(again.body)).toEqual(byIndex(0));

      const bulk = await h.createInstance();
      for (let i = 0; i < 105; i++) await audit(h.runtime.deps, { instanceId: bulk.instanceId, actor: 'bulk', action: 'bulk.entry' });
      const clamped = await list('?action=bulk.entry&limit=1000', bulk.secret);
      expect(clamped.status).toBe(200);
      expect(clamped.body.data).toHaveLength(100);
      expect(clamped.body.has_more).toBe(true);
      const rest = await list(`?action=bulk.entry&limit=1000&starting_after=${clamped.body.next_cursor}`, bulk.secret);
      expect(rest.body.data).toHaveLength(5);
      expect(rest.body.has_more).toBe(false);
      expect(new Set([...ids(clamped.body), ...ids(rest.body)]).size).toBe(105);
      expect((await list('', bulk.secret)).body.data).toHaveLength(20);
    });
  });

  it('refuses bad parameters with 422 naming them', async () => {
    for (const [query, param] of [
      ['?since=yesterday', 'since'],
      ['?until=-5', 'until'],
      ['?since=2000&until=1000', 'until'],
      ['?since=1000&until=1000', 'until'],
      ['?limit=0', 'limit'],
      ['?verb=x', 'verb'],
      ['?action=', 'action'],
    ]) {
      const res = await list(query!);
      expect(res.status, query).toBe(422);
      expect(errorOf(res.body), query).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param } });
    }
  });

  it('needs audit_logs:read (audit_logs:write implies it)', async () => {
    const sessionsKey = await h.createKey(instanceId, 'sessions:write,users:read');
    const denied = await list('', sessionsKey.secret);
    expect(denied.status).toBe(403);
    expect(errorOf(denied.body)).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'audit_logs:read' } });
    expect((await list('', (await h.createKey(instanceId, 'audit_logs:read')).secret)).status).toBe(200);
    expect((await list('', (await h.createKey(instanceId, 'audit_logs:write')).secret)).status).toBe(200);
    expect((await h.call('GET', '/v1/audit_logs')).status).toBe(401);
  });
});
