import { systemContext } from '../http/actor';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { events } from '../db/schema';
import { instanceWith } from '../testing/auth-flows';
import { mintNewUserSession } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { applySessionAction, sweepSessions } from './sessions';

/** Its own database: the sweep spans every instance, so the counts below are exact. */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
let key: string;
let instanceId: string;
beforeAll(async () => {
  ({ secret: key, instanceId } = await instanceWith(h, { session_lifetime_seconds: 900, session_inactivity_timeout_seconds: 300 }));
});

const errorOf = (body: { errors: { code: string }[] }) => body.errors[0]!;
const mint = () => mintNewUserSession(h, key);
const statusOf = async (id: string) => (await h.call('GET', `/v1/sessions/${id}`, { key })).body.status;
const refresh = (id: string, token: string) => h.call('POST', `/v1/sessions/${id}/refresh`, { key, body: { refresh_token: token } });

describe('sweepSessions', () => {
  it('moves overdue live sessions to expired or abandoned, and leaves the rest alone', async () => {
    // Lifetime 900 s, inactivity 300 s.
    const idle = await mint(); // never refreshed: abandoned at 300 s
    const busy = await mint(); // refreshed every 250 s: reaches expire_at at 900 s
    const idlePending = await mint();
    await applySessionAction(h.runtime.deps, instanceId, idlePending.id, 'pend', systemContext('test'));
    const ended = await mint();
    await applySessionAction(h.runtime.deps, instanceId, ended.id, 'end', systemContext('test'));

    let token = busy.refresh_token;
    for (let i = 0; i < 3; i++) {
      h.clock.advance(250_000);
      const res = await refresh(busy.id, token);
      expect(res.status, `refresh ${i}`).toBe(200);
      token = res.body.refresh_token;
    }
    const fresh = await mint(); // created at 750 s: due at 1050 s
    h.clock.advance(150_000); // 900 s

    // Nothing has touched them: reads still show what was stored.
    expect(await statusOf(idle.id)).toBe('active');
    expect(await statusOf(busy.id)).toBe('active');
    const eventsBefore = (await h.runtime.deps.db.select().from(events).where(eq(events.instanceId, instanceId))).length;

    expect(await sweepSessions(h.runtime.deps)).toEqual({ expired: 1, abandoned: 2 });
    expect(await statusOf(idle.id)).toBe('abandoned');
    expect(await statusOf(idlePending.id)).toBe('abandoned');
    expect(await statusOf(busy.id)).toBe('expired');
    expect(await statusOf(ended.id)).toBe('ended');
    expect(await statusOf(fresh.id)).toBe('active');
    // Expiry and abandonment emit no event.
    expect((await h.runtime.deps.db.select().from(events).where(eq(events.instanceId, instanceId))).length).toBe(eventsBefore);

    // Idempotent, and refreshes now name the status.
    expect(await sweepSessions(h.runtime.deps)).toEqual({ expired: 0, abandoned: 0 });
    expect(errorOf((await refresh(idle.id, idle.refresh_token)).body).code).toBe('SESSION_ABANDONED');
    expect(errorOf((await refresh(busy.id, token)).body).code).toBe('SESSION_EXPIRED');

    const list = await h.call('GET', '/v1/sessions?status=active', { key });
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([fresh.id]);
  });
});
