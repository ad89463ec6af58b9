import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsSince } from '../testing/auth-flows';
import { fapiClient } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';

/**
 * OIDC enterprise connection against `oidc-provider` on loopback: code flow with PKCE, state
 * and nonce through openid-client; the user lands signed in, a forged state is refused.
 */
const h = sharedHarness({ env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
const i = sharedInstance(h);
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });

let server: Server;
let issuer: string;
let connectionId: string;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const org = (await bapi('POST', '/v1/organizations', { name: 'Hopper Inc' })).body;
  const domain = (await bapi('POST', `/v1/organizations/${org.id}/domains`, { name: 'hopper.test' })).body;
  await bapi('PATCH', `/v1/organizations/${org.id}/domains/${domain.id}`, { verified: true });
  const created = await bapi('POST', '/v1/sso_connections', {
    organization_id: org.id,
    provider: 'oidc',
    name: 'Hopper IdP',
    domains: ['hopper.test'],
    active: true,
    oidc: { issuer, client_id: 'latchkey', client_secret: 'a-long-enough-client-secret-for-hs256' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.oidc).toMatchObject({ client_secret_set: true });
  expect(JSON.stringify(created.body)).not.toContain('a-long-enough-client-secret');
  connectionId = created.body.id;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'latchkey',
        client_secret: 'a-long-enough-client-secret-for-hs256',
        redirect_uris: [created.body.oidc.redirect_uri],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id, email: `${id}@hopper.test`, email_verified: true, given_name: 'Grace', family_name: 'Hopper' }),
    }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
  });
  // oidc-provider ships no types (bench/oidc-provider-module.d.ts declares only what the bench uses).
  server.on('request', (provider as unknown as { callback(): RequestListener }).callback());
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A browser at the IdP: follows redirects, logs in as `login` and consents (oidc-provider's dev interactions). */
async function browseIdp(start: string, login: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  let init: RequestInit = {};
  for (let step = 0; step < 12; step++) {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url).href;
      if (!next.startsWith(issuer)) return next;
      url = next;
      init = {};
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`unexpected IdP page: ${html.slice(0, 300)}`);
    const form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
    url = new URL(action, url).href;
    init = { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('too many steps at the IdP');
}

describe('OIDC connection', () => {
  it('signs in through the IdP: code + PKCE + state + nonce, JIT user and membership', async () => {
    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const start = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'enterprise_sso', identifier: 'grace@hopper.test', redirect_url: 'http://localhost:3000/done' } });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const authUrl = new URL(start.body.response.first_factor_verification.external_verification_redirect_url);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('nonce')).toBeTruthy();
    const callback = new URL(await browseIdp(authUrl.href, 'grace'));
    expect(callback.pathname).toBe(`/fapi/${i.instanceId}/sso/oidc/${connectionId}/callback`);

    // A forged state is refused and audited.
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged');
    const refused = await h.request('GET', forged.pathname + forged.search);
    expect(refused.status).toBe(403);

    const res = await h.request('GET', callback.pathname + callback.search);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe('http://localhost:3000/done');
    const client = (await b.call('GET', '/v1/client')).body;
    expect(client.sessions).toHaveLength(1);
    const users = (await bapi('GET', '/v1/users?email_address=grace@hopper.test')).body.data;
    expect(users).toMatchObject([{ first_name: 'Grace', last_name: 'Hopper' }]);

    // The code cannot be redeemed twice.
    expect((await h.request('GET', callback.pathname + callback.search)).status).toBe(403);
    const failures = (await bapi('GET', `/v1/audit_logs?action=sso.sign_in_failed&target=${connectionId}`)).body.data;
    expect(failures.map((f: { details: { reason: string } }) => f.details.reason)).toEqual(['in_response_to_mismatch', 'in_response_to_mismatch']);
  });

  it('updates and deletes the connection: events without the secret, audited, secret replaced encrypted', async () => {
    h.clock.advance(1);
    const since = h.clock.now();
    const updated = await bapi('PATCH', `/v1/sso_connections/${connectionId}`, { name: 'Renamed', oidc: { client_secret: 'another-long-client-secret-value' } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Renamed', oidc: { client_secret_set: true } });
    const { ssoConnections } = await import('../db/schema');
    const [row] = await h.runtime.deps.db.select().from(ssoConnections);
    expect(row!.oidcClientSecretEncrypted).toMatch(/^v1\./);
    expect(row!.oidcClientSecretEncrypted).not.toContain('another-long-client-secret-value');
    const deleted = await bapi('DELETE', `/v1/sso_connections/${connectionId}`);
    expect(deleted.body).toMatchObject({ id: connectionId, deleted: true });
    expect((await bapi('GET', `/v1/sso_connections/${connectionId}`)).status).toBe(404);
    const evts = await eventsSince(h, i.instanceId, since);
    expect(evts.map((e) => e.type)).toEqual(['ssoConnection.updated', 'ssoConnection.deleted']);
    expect(JSON.stringify(evts)).not.toMatch(/client-secret|client_secret"/);
    const log = await bapi('GET', `/v1/audit_logs?target=${connectionId}&action=sso_connection.updated`);
    expect(log.body.data).toHaveLength(1);
  });
});
