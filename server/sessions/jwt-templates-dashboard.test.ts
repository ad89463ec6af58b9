import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { claimedConsole } from '../testing/console-client';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let base: string;
beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  const created = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Templates' } });
  base = `/accounts/${owner.accountId}/instances/${created.body.id}/jwt_templates`;
});
afterAll(() => h.close());

describe('dashboard: JWT templates', () => {
  it('an admin creates, lists, edits and deletes templates; the operator is audited; bad claims are 422', async () => {
    const created = await owner.b.dash('POST', base, {
      body: { name: 'hasura', claims: { 'https://hasura.io/jwt/claims': { 'x-hasura-user-id': '{{user.id}}' } }, lifetime: 300 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ object: 'jwt_template', name: 'hasura', lifetime: 300, allowed_clock_skew: 5 });
    const one = `${base}/${created.body.id}`;
    expect((await owner.b.dash('GET', base)).body.data.map((t: { id: string }) => t.id)).toEqual([created.body.id]);
    expect((await owner.b.dash('PATCH', one, { body: { allowed_clock_skew: 0 } })).body.allowed_clock_skew).toBe(0);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'jwt_template.updated'), eq(auditLogs.target, created.body.id)));
    expect(entry).toMatchObject({ actorKind: 'operator', details: { fields: ['allowed_clock_skew'] } });

    const reserved = await owner.b.dash('POST', base, { body: { name: 'bad', claims: { exp: 1 } } });
    expect(reserved.status).toBe(422);
    expect(reserved.body.errors[0].meta.reason).toBe('reserved_claim');

    expect((await owner.b.dash('DELETE', one)).body.deleted).toBe(true);
    expect((await owner.b.dash('GET', one)).status).toBe(404);
  });
});
