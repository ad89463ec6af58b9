import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole, invitedViewer, type ConsoleBrowser } from '../testing/console-client';
import { createHarness, type TestHarness } from '../testing/harness';

/** The console's social provider calls: the BAPI's under /v1/dashboard; viewers read, admins write. */
let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let viewer: ConsoleBrowser;
let base: string;
let secretKey: string;

beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Social', environment: 'test' } });
  const instancePath = `/accounts/${owner.accountId}/instances/${instance.body.id}`;
  base = `${instancePath}/social_providers`;
  secretKey = (await owner.b.dash('POST', `${instancePath}/keys`, { body: { scopes: '*' } })).body.secret;
  viewer = await invitedViewer(h, owner);
});
afterAll(() => h.close());

describe('dashboard social providers', () => {
  it('an admin adds, edits and deletes; the secret never comes back; the audit names the operator', async () => {
    const created = await owner.b.dash('POST', base, { body: { kind: 'github', client_id: 'Iv1.abc', client_secret: 'gh-secret-value' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ object: 'social_provider', name: 'github', strategy: 'oauth_github', client_secret_set: true });
    expect(JSON.stringify(created.body)).not.toContain('gh-secret-value');
    const listed = await viewer.dash('GET', base);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
    expect((await h.call('GET', '/v1/social_providers', { key: secretKey })).body.data[0].id).toBe(created.body.id);

    const patched = await owner.b.dash('PATCH', `${base}/${created.body.id}`, {
      body: { display_name: 'GitHub Enterprise', enabled: false },
    });
    expect(patched.body).toMatchObject({ display_name: 'GitHub Enterprise', enabled: false });
    const log = await h.call('GET', `/v1/audit_logs?action=social_provider.updated&target=${created.body.id}`, { key: secretKey });
    expect(log.body.data[0].actor).toMatch(/^operator:/);
    expect(JSON.stringify(log.body)).not.toContain('gh-secret-value');

    expect((await owner.b.dash('DELETE', `${base}/${created.body.id}`)).body).toMatchObject({ deleted: true });
    expect((await viewer.dash('GET', base)).body.data).toEqual([]);
  });

  it('a viewer cannot write', async () => {
    const res = await viewer.dash('POST', base, { body: { kind: 'google', client_id: 'x', client_secret: 'y' } });
    expect(res.status).toBe(403);
  });
});

describe('social presets beyond Google, Microsoft and GitHub', () => {
  it('LinkedIn, GitLab and Slack are OpenID Connect presets: the issuer and scopes are filled in', async () => {
    for (const [kind, issuer] of [
      ['linkedin', 'https://www.linkedin.com/oauth'],
      ['gitlab', 'https://gitlab.com'],
      ['slack', 'https://slack.com'],
    ] as const) {
      const created = await owner.b.dash('POST', base, { body: { kind, client_id: `${kind}-client`, client_secret: 'preset-secret' } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ kind, name: kind, strategy: `oauth_${kind}`, issuer, scopes: ['openid', 'email', 'profile'] });
      await owner.b.dash('DELETE', `${base}/${created.body.id}`);
    }
  });
});
