import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
let key: string;
let instanceId: string;
beforeAll(async () => {
  h = await createHarness();
  ({ secret: key, instanceId } = await h.createInstance());
});
afterAll(() => h.close());

const create = (body: Record<string, unknown>, k = key) => h.call('POST', '/v1/oauth_applications', { key: k, body });

describe('BAPI /v1/oauth_applications', () => {
  it('creates a confidential app whose secret is shown once and stored as a digest', async () => {
    const res = await create({ name: 'Partner', redirect_uris: ['https://partner.example.com/cb', 'http://127.0.0.1:8080/cb'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'oauth_application',
      name: 'Partner',
      public: false,
      consent_screen_enabled: true,
      scopes: ['openid', 'profile', 'email'],
      post_logout_redirect_uris: [],
    });
    expect(res.body.client_id).toBe(res.body.id);
    expect(res.body.client_secret).toMatch(/^oas_/);
    const got = await h.call('GET', `/v1/oauth_applications/${res.body.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.client_secret).toBeUndefined();
    const raw = JSON.stringify(await h.runtime.deps.db.execute(`select * from oauth_applications where id = '${res.body.id}'`));
    expect(raw).not.toContain(res.body.client_secret);
  });

  it('accepts https redirect URIs and http only on loopback hosts', async () => {
    for (const uri of [
      'http://example.com/cb',
      'ftp://example.com/cb',
      'https://example.com/cb#frag',
      'not a url',
      'https://u:p@example.com/cb',
    ]) {
      const res = await create({ name: 'Bad', redirect_uris: [uri] });
      expect(res.status, uri).toBe(422);
      expect(res.body.errors[0].meta).toMatchObject({ param: 'redirect_uris', reason: 'redirect_uri_not_allowed' });
    }
    expect((await create({ name: 'Loopback', redirect_uris: ['http://localhost:3000/cb', 'http://[::1]/cb'] })).status).toBe(201);
    const badLogout = await create({ name: 'Bad', post_logout_redirect_uris: ['http://example.com/out'] });
    expect(badLogout.body.errors[0].meta.param).toBe('post_logout_redirect_uris');
  });

  it('refuses unknown fields and malformed scopes with 422', async () => {
    expect((await create({ name: 'X', color: 'red' })).status).toBe(422);
    expect((await create({ name: 'X', scopes: ['has space'] })).status).toBe(422);
    expect((await create({ redirect_uris: [] })).status).toBe(422);
  });

  it('creates a public app without a secret; rotating it is a conflict', async () => {
    const res = await create({ name: 'SPA', public: true, redirect_uris: ['https://spa.example.com/cb'] });
    expect(res.body.client_secret).toBeNull();
    const rotate = await h.call('POST', `/v1/oauth_applications/${res.body.id}/rotate_secret`, { key });
    expect(rotate.status).toBe(409);
    expect(rotate.body.errors[0].meta.reason).toBe('public_client');
  });

  it('updates, rotates (audited) and deletes', async () => {
    const app = (await create({ name: 'Old', redirect_uris: ['https://a.example.com/cb'] })).body;
    const patched = await h.call('PATCH', `/v1/oauth_applications/${app.id}`, {
      key,
      body: { name: 'New', consent_screen_enabled: false, scopes: ['openid', 'offline_access'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'New', consent_screen_enabled: false, scopes: ['openid', 'offline_access'] });
    expect((await h.call('PATCH', `/v1/oauth_applications/${app.id}`, { key, body: { public: true } })).status).toBe(422);

    const rotated = await h.call('POST', `/v1/oauth_applications/${app.id}/rotate_secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.client_secret).toMatch(/^oas_/);
    expect(rotated.body.client_secret).not.toBe(app.client_secret);
    const entries = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'oauth_application.secret_rotated'), eq(auditLogs.target, app.id)));
    expect(entries).toHaveLength(1);
    expect(entries[0]!.actorKind).toBe('secret_key');

    // The old secret stops working at once, the new one works.
    const token = (secret: string) =>
      h.request('POST', `/fapi/${instanceId}/oauth2/token`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        raw: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.id, client_secret: secret }).toString(),
      });
    expect((await token(app.client_secret)).status).toBe(401);
    expect((await token(rotated.body.client_secret)).status).toBe(200);

    expect((await h.call('DELETE', `/v1/oauth_applications/${app.id}`, { key })).body).toEqual({
      object: 'oauth_application',
      id: app.id,
      deleted: true,
    });
    expect((await h.call('GET', `/v1/oauth_applications/${app.id}`, { key })).status).toBe(404);
    expect((await token(rotated.body.client_secret)).status).toBe(401);
  });

  it('lists with cursor pagination and hides other instances’ apps', async () => {
    const other = await h.createInstance();
    const theirs = (await create({ name: 'Theirs' }, other.secret)).body;
    expect((await h.call('GET', `/v1/oauth_applications/${theirs.id}`, { key })).status).toBe(404);
    const page = await h.call('GET', '/v1/oauth_applications?limit=2', { key });
    expect(page.body.data).toHaveLength(2);
    expect(page.body.has_more).toBe(true);
    const next = await h.call('GET', `/v1/oauth_applications?limit=2&starting_after=${page.body.next_cursor}`, { key });
    expect(next.body.data[0].id < page.body.data[1].id).toBe(true);
  });

  it('needs the oauth_applications scopes', async () => {
    const readOnly = await h.createKey(instanceId, 'oauth_applications:read');
    expect((await h.call('GET', '/v1/oauth_applications', { key: readOnly.secret })).status).toBe(200);
    const res = await create({ name: 'X' }, readOnly.secret);
    expect(res.status).toBe(403);
    expect(res.body.errors[0].meta.required_scope).toBe('oauth_applications:write');
  });
});
