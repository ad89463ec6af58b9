import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, instances } from '../db/schema';
import { claimedConsole } from '../testing/console-client';
import { fapiClient } from '../testing/fapi-client';
import { signUp } from '../testing/auth-flows';
import { createHarness, type TestHarness } from '../testing/harness';
import { destinationOf, SURFACES } from '../api/surfaces';
import { runCommand } from '../cli/commands';
import { fapiAddressOf, updateInstanceSettings } from './instances';
import { HOST_CACHE_TTL_MS, requestHostname } from './custom-domain';

const DOMAIN = 'auth.shop.example';

let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
/** The instance that gets the custom domain, and another one of the same account. */
let shop: { id: string; pathKey: string; secret: string };
let other: { id: string; publishableKey: string };
/** A session token minted while the domain was set. */
let mintedOnDomain: string;

const dash = (method: string, path: string, body?: unknown) => owner.b.dash(method, `/accounts/${owner.accountId}${path}`, { body });
const setDomain = (instanceId: string, custom_domain: unknown) => dash('PATCH', `/instances/${instanceId}/settings`, { custom_domain });
/** A request to the custom domain's host (as a reverse proxy or the browser sends it). */
const onDomain = (method: string, path: string, o: { headers?: Record<string, string>; key?: string; body?: unknown } = {}) =>
  h.call(method, path, { ...o, headers: { host: DOMAIN, ...o.headers } });

beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  const created = await dash('POST', '/instances', { name: 'Shop', environment: 'test' });
  const second = await dash('POST', '/instances', { name: 'Other', environment: 'test' });
  const key = await h.createKey(created.body.id, '*');
  shop = { id: created.body.id, pathKey: created.body.publishable_key, secret: key.secret };
  other = { id: second.body.id, publishableKey: second.body.publishable_key };
});
afterAll(() => h.close());

describe('custom_domain in the settings API', () => {
  it('refuses anything but a lowercase hostname, naming the param', async () => {
    for (const bad of [
      'Auth.Shop.Example',
      'https://auth.shop.example',
      'auth.shop.example:443',
      'auth.shop.example/sign-in',
      'auth.shop.example.',
      '10.0.0.1',
      'localhost',
      '-a.example',
      'a..example',
      `${'a'.repeat(64)}.example`,
      '',
      42,
    ]) {
      const res = await setDomain(shop.id, bad);
      expect(res.status, String(bad)).toBe(422);
      expect(res.body.errors[0].meta).toMatchObject({ param: 'custom_domain' });
    }
    const res = await setDomain(shop.id, 'Auth.Shop.Example');
    expect(res.body.errors[0].meta.reason).toBe('invalid_domain');
  });

  it("refuses PUBLIC_URL's own host", async () => {
    const deps = { ...h.runtime.deps, config: { ...h.runtime.deps.config, PUBLIC_URL: 'https://id.example.com' } };
    await expect(updateInstanceSettings(deps, shop.id, { custom_domain: 'id.example.com' }, { actor: 'test' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      meta: { param: 'custom_domain', reason: 'public_url_host' },
    });
  });

  it('sets the domain: fapi_url https://<domain>, the publishable key derived from it, audited', async () => {
    const res = await setDomain(shop.id, DOMAIN);
    expect(res.status).toBe(200);
    expect(res.body.custom_domain).toBe(DOMAIN);
    const got = await dash('GET', `/instances/${shop.id}`);
    expect(got.body).toMatchObject({ custom_domain: DOMAIN, fapi_url: `https://${DOMAIN}`, settings: { custom_domain: DOMAIN } });
    expect(got.body.publishable_key).toBe(`pk_test_${Buffer.from(`${DOMAIN}$`).toString('base64url')}`);
    expect(fapiAddressOf(got.body.publishable_key)).toBe(DOMAIN);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, shop.id), eq(auditLogs.action, 'instance.settings_updated')));
    expect(entry!.details).toMatchObject({ changes: { custom_domain: { from: null, to: DOMAIN } } });
    expect(entry!.actor).toBe(`operator:${owner.operator.id}`);
  });

  it('keeps a domain to one instance: 409 domain_in_use naming the param', async () => {
    const res = await setDomain(other.id, DOMAIN);
    expect(res.status).toBe(409);
    expect(res.body.errors[0]).toMatchObject({ code: 'CONFLICT', meta: { param: 'custom_domain', reason: 'domain_in_use' } });
    const [row] = await h.runtime.deps.db.select().from(instances).where(eq(instances.id, other.id));
    expect(row!.customDomain).toBeNull();
    // Setting the same value again is no change.
    expect((await setDomain(shop.id, DOMAIN)).status).toBe(200);
  });
});

describe('requests on the custom domain', () => {
  let domainKey: string;
  beforeAll(async () => {
    domainKey = (await dash('GET', `/instances/${shop.id}`)).body.publishable_key;
  });

  it('serves the FAPI at the host root, as under {PUBLIC_URL}/fapi/<id>', async () => {
    const root = await onDomain('GET', '/v1/client', { headers: { 'x-publishable-key': domainKey } });
    const byPath = await h.call('GET', `/fapi/${shop.id}/v1/client`, { headers: { 'x-publishable-key': domainKey } });
    expect(root.status).toBe(200);
    expect(root.body).toEqual(byPath.body);
    const env = await onDomain('GET', '/v1/environment');
    expect(env.body.instance).toMatchObject({ fapi_url: `https://${DOMAIN}`, publishable_key: domainKey });
    const jwks = await onDomain('GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body).toEqual((await h.call('GET', `/fapi/${shop.id}/.well-known/jwks.json`)).body);
    // Host matching ignores case, the port and a trailing dot.
    expect((await h.call('GET', '/v1/environment', { headers: { host: 'AUTH.shop.example.:443' } })).body.instance.fapi_url).toBe(
      `https://${DOMAIN}`,
    );
    // Another instance's key is refused there.
    const foreign = await onDomain('GET', '/v1/client', { headers: { 'x-publishable-key': other.publishableKey } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].meta.reason).toBe('wrong_instance');
  });

  it('does not serve the backend API, the dashboard, ops or another fapi path there (404)', async () => {
    expect((await h.call('GET', '/v1/users', { key: shop.secret })).status).toBe(200);
    const bapi = await onDomain('GET', '/v1/users', { key: shop.secret });
    expect(bapi.status).toBe(404);
    expect((await onDomain('GET', '/v1/dashboard/me')).status).toBe(404);
    expect((await onDomain('GET', '/healthz')).status).toBe(404);
    expect((await onDomain('GET', '/readyz')).status).toBe(404);
    expect((await onDomain('GET', `/fapi/${shop.id}/v1/environment`)).status).toBe(404);
    expect((await onDomain('GET', `/fapi/${other.id}/v1/environment`)).status).toBe(404);
  });

  it('signs up at the root: the cookie is at Path=/ and Secure, tokens carry iss = https://<domain>', async () => {
    const b = fapiClient(h, shop.id, { publishableKey: domainKey, host: DOMAIN });
    const started = await b.call('POST', '/v1/client/sign_ups', {
      body: { email_address: 'ann@shop.example', password: 'correct horse battery' },
    });
    expect(started.setCookie).toMatch(/^__client=ct_[^;]+; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=\d+$/);
    const { sessionId } = await signUp(h, b, { email_address: 'bob@shop.example', password: 'correct horse battery' });
    const token = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`);
    expect(token.status).toBe(200);
    expect(decodeJwt(token.body.jwt).iss).toBe(`https://${DOMAIN}`);
    const verified = await h.call('POST', '/v1/sessions/verify', { key: shop.secret, body: { token: token.body.jwt } });
    expect(verified.status).toBe(200);
    mintedOnDomain = token.body.jwt;
    // A page of another origin may not write with the cookie; the domain's own origin may.
    const foreign = await b.call('POST', `/v1/client/sessions/${sessionId}/touch`, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/touch`)).status).toBe(200);
  });

  it('still serves the instance under {PUBLIC_URL}/fapi/<id>, with the old and the new publishable key', async () => {
    for (const key of [shop.pathKey, domainKey]) {
      const res = await h.call('GET', `/fapi/${shop.id}/v1/client`, { headers: { 'x-publishable-key': key } });
      expect(res.status, key).toBe(200);
    }
    // Cookies there stay under the path, and the PUBLIC_URL origin is the instance's own.
    const b = fapiClient(h, shop.id, { publishableKey: shop.pathKey });
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'ann@shop.example' } });
    expect(started.status).toBe(200);
    expect(started.setCookie).toContain(`Path=/fapi/${shop.id};`);
    expect(started.setCookie).not.toContain('Secure');
  });

  it('npm start sends API paths of the domain to the routers and the rest to its hosted pages, never the console', async () => {
    const at = (host: string, path: string) => destinationOf(h.runtime.deps, (n) => (n === 'host' ? host : undefined), path);
    expect(await at(DOMAIN, '/v1/client')).toEqual({ to: 'api' });
    expect(await at(DOMAIN, '/.well-known/jwks.json')).toEqual({ to: 'api' });
    expect(await at(DOMAIN, '/v1/dashboard/me')).toEqual({ to: 'api' }); // the FAPI's 404
    for (const page of ['/', '/sign-in', '/accounts/acct_x', '/healthz']) {
      expect(await at(DOMAIN, page), page).toEqual({ to: 'pages', customDomainInstance: shop.id });
    }
    expect(await at('localhost:3000', '/sign-in')).toEqual({ to: 'pages', customDomainInstance: null });
    expect(await at('localhost:3000', '/v1/users')).toEqual({ to: 'api' });
    expect(await at('localhost:3000', '/.well-known/jwks.json')).toEqual({ to: 'pages', customDomainInstance: null });
    // Every surface under the fapi_url is mapped, so a new one (OIDC's /oauth2) needs no code here.
    for (const surface of SURFACES.filter((s) => s.base === 'fapi_url')) {
      for (const prefix of surface.prefixes) expect(await at(DOMAIN, `${prefix}/x`), prefix).toEqual({ to: 'api' });
    }
  });

  it('ignores X-Forwarded-Host unless TRUST_PROXY is set', async () => {
    const headers = { host: 'localhost:3000', 'x-forwarded-host': DOMAIN };
    expect(requestHostname((n) => (headers as Record<string, string>)[n], false)).toBe('localhost');
    expect(requestHostname((n) => (headers as Record<string, string>)[n], true)).toBe(DOMAIN);
    // Not mapped: the backend API answers (and wants a secret key), where the domain would answer 404.
    expect((await h.call('GET', '/v1/users', { headers })).status).toBe(401);
    expect((await onDomain('GET', '/v1/users')).status).toBe(404);
  });
});

describe('clearing and moving the domain', () => {
  it('restores the path fapi_url and publishable key; the domain stops answering and can be claimed again', async () => {
    const res = await setDomain(shop.id, null);
    expect(res.status).toBe(200);
    expect(res.body.custom_domain).toBeNull();
    const got = await dash('GET', `/instances/${shop.id}`);
    expect(got.body).toMatchObject({
      custom_domain: null,
      fapi_url: `http://localhost:3000/fapi/${shop.id}`,
      publishable_key: shop.pathKey,
    });
    // A token minted before the change names the old issuer: refused until it expires anyway.
    const stale = await h.call('POST', '/v1/sessions/verify', { key: shop.secret, body: { token: mintedOnDomain } });
    expect(stale.body.errors[0].code).toBe('TOKEN_INVALID');
    // This node forgot the host at once.
    expect((await onDomain('GET', '/v1/environment')).status).toBe(404);
    expect((await setDomain(other.id, DOMAIN)).status).toBe(200);
    expect((await onDomain('GET', '/v1/environment')).body.instance.publishable_key).not.toBe(shop.pathKey);
  });

  it('other nodes see a change within the host cache TTL', async () => {
    // A change made elsewhere (another node) goes straight to the database.
    await h.runtime.deps.db
      .update(instances)
      .set({ customDomain: null, fapiUrl: `http://localhost:3000/fapi/${other.id}` })
      .where(eq(instances.id, other.id));
    h.clock.advance(HOST_CACHE_TTL_MS + 1);
    expect((await onDomain('GET', '/v1/environment')).status).toBe(404);
  });
});

describe('the CLI', () => {
  const cli = (...argv: string[]) => runCommand(h.runtime.deps, ['instance', 'domain', ...argv]);

  it('sets and clears a domain, validating it like the settings API', async () => {
    const set = await cli('--instance', shop.id, '--set', 'login.shop.example', '--json');
    expect(set.exitCode).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ custom_domain: 'login.shop.example', fapi_url: 'https://login.shop.example' });
    expect((await h.call('GET', '/v1/environment', { headers: { host: 'login.shop.example' } })).body.instance.fapi_url).toBe(
      'https://login.shop.example',
    );
    expect((await cli('--instance', other.id, '--set', 'login.shop.example')).stderr).toContain('custom_domain');
    expect((await cli('--instance', other.id, '--set', 'Login.Shop.Example')).exitCode).toBe(1);
    expect((await cli('--instance', other.id)).exitCode).toBe(2);
    const cleared = await cli('--instance', shop.id, '--clear', '--json');
    expect(JSON.parse(cleared.stdout)).toMatchObject({ custom_domain: null, publishable_key: shop.pathKey });
  });

  it("refuses a domain for the console's own instance", async () => {
    const res = await cli('--instance', owner.platform.id, '--set', 'console.shop.example');
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain("console's own instance");
  });
});

describe('behind a trusted proxy (TRUST_PROXY=1)', () => {
  it('matches the domain on X-Forwarded-Host', async () => {
    const proxied = await createHarness({ env: { TRUST_PROXY: '1' } });
    try {
      const i = await proxied.createInstance();
      await updateInstanceSettings(proxied.runtime.deps, i.instanceId, { custom_domain: DOMAIN }, { actor: 'test' });
      const res = await proxied.call('GET', '/v1/environment', { headers: { host: '10.0.0.5:3000', 'x-forwarded-host': DOMAIN } });
      expect(res.body.instance).toMatchObject({ fapi_url: `https://${DOMAIN}` });
      expect((await proxied.call('GET', '/v1/users', { key: i.secret, headers: { 'x-forwarded-host': DOMAIN } })).status).toBe(404);
      expect((await proxied.call('GET', '/v1/users', { key: i.secret })).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});
