import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { instanceWith } from '../testing/auth-flows';
import { sharedHarness } from '../testing/harness';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });

describe('allowlist identifiers (BAPI)', () => {
  it('concurrent adds and deletes keep each other: every entry written, each audited once; a repeat is a no-op', async () => {
    const i = await instanceWith(h);
    const add = (identifier: string) => h.call('POST', '/v1/allowlist_identifiers', { key: i.secret, body: { identifier } });
    const first = await add('keep@acme.com');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const names = Array.from({ length: 8 }, (_, k) => `user${k}@acme.com`);
    const [removed, ...added] = await Promise.all([
      h.call('DELETE', `/v1/allowlist_identifiers/${first.body.id}`, { key: i.secret }),
      ...names.map(add),
    ]);
    expect(removed!.status).toBe(200);
    for (const a of added) expect(a.status, JSON.stringify(a.body)).toBe(200);

    const again = await add('USER0@acme.com ');
    expect(again.body).toMatchObject({ id: added[0]!.body.id, identifier: 'user0@acme.com' });
    const list = await h.call('GET', '/v1/allowlist_identifiers', { key: i.secret });
    expect((list.body.data ?? list.body).map((e: { identifier: string }) => e.identifier).sort()).toEqual([...names].sort());
    const audited = await h.runtime.deps.db
      .select({ action: auditLogs.action })
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, i.instanceId), eq(auditLogs.action, 'allowlist_identifier.created')));
    expect(audited).toHaveLength(names.length + 1);
    expect((await h.call('DELETE', `/v1/allowlist_identifiers/${first.body.id}`, { key: i.secret })).status).toBe(404);
  });
});
