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
  const created = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Shop' } });
  base = `/accounts/${owner.accountId}/instances/${created.body.id}/oauth_applications`;
});
afterAll(() => h.close());

describe('dashboard: OAuth applications', () => {
  it('an admin creates, lists, edits, rotates and deletes apps; the operator is audited', async () => {
    const created = await owner.b.dash('POST', base, { body: { name: 'Portal', redirect_uris: ['https://portal.example.com/cb'] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.client_secret).toMatch(/^oas_/);
    const app = `${base}/${created.body.id}`;
    expect((await owner.b.dash('GET', base)).body.data.map((a: { id: string }) => a.id)).toEqual([created.body.id]);
    expect((await owner.b.dash('PATCH', app, { body: { consent_screen_enabled: false } })).body.consent_screen_enabled).toBe(false);
    const rotated = await owner.b.dash('POST', `${app}/rotate_secret`);
    expect(rotated.body.client_secret).not.toBe(created.body.client_secret);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'oauth_application.secret_rotated'), eq(auditLogs.target, created.body.id)));
    expect(entry).toMatchObject({ actorKind: 'operator' });
    expect((await owner.b.dash('DELETE', app)).body.deleted).toBe(true);
    expect((await owner.b.dash('GET', app)).status).toBe(404);
  });
});
