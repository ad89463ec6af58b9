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

  it('an admin creates an initial access token (shown once), lists it without its value, and revokes it; each is audited', async () => {
    const iats = base.replace(/oauth_applications$/, 'oauth_initial_access_tokens');
    const created = await owner.b.dash('POST', iats, { body: { name: 'Conformance suite', max_uses: 1, expires_in_seconds: 3600 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'oauth_initial_access_token',
      name: 'Conformance suite',
      max_uses: 1,
      use_count: 0,
      status: 'active',
    });
    expect(created.body.token).toMatch(/^iat_/);
    expect(created.body.expires_at).toBe(created.body.created_at + 3_600_000);
    const listed = await owner.b.dash('GET', iats);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].token).toBeUndefined();
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
    expect((await owner.b.dash('POST', iats, { body: { name: '', max_uses: 0 } })).status).toBe(422);
    const revoked = await owner.b.dash('POST', `${iats}/${created.body.id}/revoke`);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_at: expect.any(Number) });
    expect((await owner.b.dash('POST', `${iats}/${created.body.id}/revoke`)).status).toBe(409);
    const entries = await h.runtime.deps.db.select().from(auditLogs).where(eq(auditLogs.target, created.body.id));
    expect(entries.map((e) => [e.action, e.actorKind]).sort()).toEqual([
      ['oauth_initial_access_token.created', 'operator'],
      ['oauth_initial_access_token.revoked', 'operator'],
    ]);
    expect(JSON.stringify(entries)).not.toContain(created.body.token);
  });

  it('an application’s back-channel logout deliveries are listed (none yet)', async () => {
    const created = await owner.b.dash('POST', base, { body: { name: 'Logout RP', redirect_uris: ['https://rp.example.com/cb'] } });
    const res = await owner.b.dash('GET', `${base}/${created.body.id}/logout_deliveries`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: [], has_more: false });
    expect((await owner.b.dash('GET', `${base}/oa_missing/logout_deliveries`)).status).toBe(404);
  });
});
