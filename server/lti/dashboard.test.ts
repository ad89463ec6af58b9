import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { claimedConsole } from '../testing/console-client';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let base: string;
let instanceId: string;
beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  const created = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'School' } });
  instanceId = created.body.id;
  base = `/accounts/${owner.accountId}/instances/${instanceId}/lti_platforms`;
});
afterAll(() => h.close());

describe('dashboard: LTI platforms', () => {
  it('an admin registers, lists, edits and deletes platforms; the operator is audited', async () => {
    const created = await owner.b.dash('POST', base, {
      body: {
        name: 'Canvas',
        issuer: 'https://canvas.instructure.com',
        client_id: '10000000000001',
        authorization_endpoint: 'https://sso.canvaslms.com/api/lti/authorize_redirect',
        jwks_uri: 'https://sso.canvaslms.com/api/lti/security/jwks',
        deployment_ids: ['1:abc'],
        target_link_uris: ['https://app.example.com/lti'],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.login_url).toBe(`http://localhost:3000/fapi/${instanceId}/lti/login`);
    const platform = `${base}/${created.body.id}`;
    expect((await owner.b.dash('GET', base)).body.data.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
    expect((await owner.b.dash('PATCH', platform, { body: { name: 'Canvas (prod)' } })).body.name).toBe('Canvas (prod)');
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'lti_platform.updated'), eq(auditLogs.target, created.body.id)));
    expect(entry).toMatchObject({ actorKind: 'operator', details: { fields: ['name'] } });
    expect((await owner.b.dash('DELETE', platform)).body.deleted).toBe(true);
    expect((await owner.b.dash('GET', platform)).status).toBe(404);
  });
});
