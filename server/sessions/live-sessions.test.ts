import { beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '../http/actor';
import { instanceContext, type InstanceContext } from '../instances/instances';
import { instanceWith } from '../testing/auth-flows';
import { sharedHarness } from '../testing/harness';
import { createClient } from './clients';
import { liveSessions } from './live-sessions';
import { applySessionAction, createSession } from './sessions';

const h = sharedHarness();
let instance: InstanceContext;
let key: string;
beforeAll(async () => {
  const created = await instanceWith(h, { session_lifetime_seconds: 900, session_inactivity_timeout_seconds: null });
  key = created.secret;
  instance = await instanceContext(h.runtime.deps, created.instanceId);
});

let seq = 0;
const newUser = async () => (await h.call('POST', '/v1/users', { key, body: { username: `live_${++seq}` } })).body.id as string;
const open = async (userId: string, clientId: string | null, status: 'active' | 'pending' = 'active') =>
  (await createSession(h.runtime.deps, instance, { userId, clientId, status }, systemContext('test'))).session.id;
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe('liveSessions', () => {
  it('answers the active and pending sessions of one client or one user, newest first; with now, only those within their deadlines', async () => {
    const deps = h.runtime.deps;
    const [ada, bob] = [await newUser(), await newUser()];
    const client = (await createClient(deps, instance.id)).client.id;
    const other = (await createClient(deps, instance.id)).client.id;
    const first = await open(ada, client);
    const ended = await open(bob, client);
    await applySessionAction(deps, instance.id, ended, 'end', systemContext('test'));
    const pending = await open(bob, client, 'pending');
    const elsewhere = await open(ada, other);
    const headless = await open(ada, null);

    expect(ids(await liveSessions(deps.db, instance.id, { clientId: client }))).toEqual([pending, first]);
    expect(ids(await liveSessions(deps.db, instance.id, { userId: ada }))).toEqual([headless, elsewhere, first]);
    expect(await liveSessions(deps.db, 'ins_other', { clientId: client })).toEqual([]);

    // Past expire_at they are overdue: still live by status, no longer within their deadlines.
    const later = h.clock.now() + 901_000;
    expect(ids(await liveSessions(deps.db, instance.id, { clientId: client }, { now: h.clock.now() }))).toEqual([pending, first]);
    expect(await liveSessions(deps.db, instance.id, { clientId: client }, { now: later })).toEqual([]);
    expect(ids(await liveSessions(deps.db, instance.id, { clientId: client }))).toEqual([pending, first]);
  });
});
