import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fapiClient } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { createTestCa, startTlsServer, type TestCa, type TestTlsServer } from '../testing/tls';
import { verifyDelivery } from '../testing/webhook-receiver';
import { runWebhookWorkerOnce } from '../webhooks/worker';
import { guardedRequest } from './outbound';
import { guardedFetch } from './outbound-fetch';

/**
 * The outbound HTTPS path (live instances require https for webhooks, IdP discovery, social
 * providers, LTI key sets, the range API and Stripe) against TLS servers on loopback with a
 * CA made for this run. Names resolve through an injected resolver to 127.0.0.1, so every
 * connection that works went to the pinned address with the URL's name in SNI and Host.
 */

let ca: TestCa;
let otherCa: TestCa;
const servers: TestTlsServer[] = [];
let privateHits = 0;
let privateServer: Server;
let privatePort: number;

beforeAll(async () => {
  [ca, otherCa] = await Promise.all([createTestCa(), createTestCa('Someone Else CA')]);
  privateServer = createServer((_req, res) => {
    privateHits++;
    res.end('internal');
  });
  await new Promise<void>((resolve) => privateServer.listen(0, '127.0.0.1', resolve));
  privatePort = (privateServer.address() as AddressInfo).port;
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  privateServer.closeAllConnections();
  await new Promise((r) => privateServer.close(r));
});

async function tlsServer(names: string[], by: TestCa = ca) {
  const server = await startTlsServer(await by.issue(names));
  servers.push(server);
  return server;
}

const loopback = { allowPrivate: true, requireHttps: false };
const toLoopback = async () => [{ address: '127.0.0.1', family: 4 as const }];
const get = (url: string, extra: { headers?: Record<string, string>; testTrustedCas?: string[] } = {}) =>
  guardedRequest({
    url,
    method: 'GET',
    headers: extra.headers ?? {},
    body: '',
    timeoutMs: 5000,
    maxResponseBytes: 4096,
    policy: loopback,
    resolve: toLoopback,
    testTrustedCas: extra.testTrustedCas ?? [ca.certPem],
  });

describe('guardedRequest over TLS', () => {
  it('connects to the pinned address, asks for the URL’s name in SNI and checks the certificate against it', async () => {
    const s = await tlsServer(['hooks.example']);
    const res = await get(`https://hooks.example:${s.port}/x`);
    expect(res).toMatchObject({ status: 200, body: 'ok' });
    expect(s.received).toMatchObject([{ path: '/x', servername: 'hooks.example', headers: { host: `hooks.example:${s.port}` } }]);
  });

  it('keeps SNI and the certificate check on the URL’s name when a caller sets another Host header', async () => {
    const s = await tlsServer(['hooks.example']);
    const res = await get(`https://hooks.example:${s.port}/`, { headers: { host: 'other.example' } });
    expect(res.status).toBe(200);
    expect(s.received).toMatchObject([{ servername: 'hooks.example', headers: { host: 'other.example' } }]);
  });

  it('refuses a certificate for another name', async () => {
    const s = await tlsServer(['other.example']);
    await expect(get(`https://hooks.example:${s.port}/`)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(s.received).toEqual([]);
  });

  it('refuses a certificate from a CA it does not trust, and the test CA without the test-only option', async () => {
    const stranger = await tlsServer(['hooks.example'], otherCa);
    await expect(get(`https://hooks.example:${stranger.port}/`)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    const s = await tlsServer(['hooks.example']);
    const systemRoots = guardedRequest({
      url: `https://hooks.example:${s.port}/`,
      method: 'GET',
      headers: {},
      body: '',
      timeoutMs: 5000,
      maxResponseBytes: 4096,
      policy: loopback,
      resolve: toLoopback,
    });
    await expect(systemRoots).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect([...stranger.received, ...s.received]).toEqual([]);
  });

  it('checks an IP literal against the certificate’s IP addresses, with no SNI', async () => {
    const s = await tlsServer(['127.0.0.1']);
    expect((await get(`https://127.0.0.1:${s.port}/`)).status).toBe(200);
    expect(s.received).toMatchObject([{ servername: false }]);
    const named = await tlsServer(['hooks.example']);
    await expect(get(`https://127.0.0.1:${named.port}/`)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('never follows a redirect, so one to a private address after the handshake reaches nothing', async () => {
    const s = await tlsServer(['hooks.example']);
    s.reply = (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${privatePort}/admin` });
      res.end();
    };
    const res = await get(`https://hooks.example:${s.port}/`);
    expect(res).toMatchObject({ status: 302, headers: { location: `http://127.0.0.1:${privatePort}/admin` } });
    // Libraries given the guarded fetch (openid-client, the Stripe SDK) see the 302 itself, whatever `redirect` says.
    const viaFetch = await guardedFetch({ policy: loopback, resolve: toLoopback, testTrustedCas: [ca.certPem] })(
      `https://hooks.example:${s.port}/`,
    );
    expect(viaFetch.status).toBe(302);
    expect(privateHits).toBe(0);
  });
});

/** Consumers over https, on a test instance whose private targets are allowed (the TLS server is on loopback). */
const h = sharedHarness({
  env: { ALLOW_PRIVATE_TARGETS: '1', BAPI_RATE_LIMIT: '100000' },
  dns: async (host) => (host.endsWith('.example') || host.endsWith('.test') ? [{ address: '127.0.0.1', family: 4 }] : []),
});
const i = sharedInstance(h);
beforeAll(() => {
  h.runtime.deps.testTrustedCas = [ca.certPem];
});
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });

describe('webhook delivery over https', () => {
  const endpoints: string[] = [];
  afterEach(async () => {
    for (const id of endpoints.splice(0)) await bapi('DELETE', `/v1/webhook_endpoints/${id}`);
  });

  async function deliverTo(url: string) {
    const created = await bapi('POST', '/v1/webhook_endpoints', { url, event_types: ['user.created'] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    endpoints.push(created.body.id);
    await bapi('POST', '/v1/users', { email_address: [`tls.${Date.now()}.${Math.random()}@example.com`] });
    await runWebhookWorkerOnce(h.runtime.deps);
    const [message] = (await bapi('GET', `/v1/webhook_endpoints/${created.body.id}/deliveries`)).body.data;
    return { endpoint: created.body as { id: string; secret: string }, message, attempt: message.attempts[0] };
  }

  it('delivers a signed event to the endpoint’s name over TLS', async () => {
    const s = await tlsServer(['hooks.example']);
    const { endpoint, message, attempt } = await deliverTo(`https://hooks.example:${s.port}/hook`);
    expect(message.status).toBe('succeeded');
    expect(attempt).toMatchObject({ status_code: 200, error: null });
    expect(s.received).toHaveLength(1);
    expect(s.received[0]).toMatchObject({ method: 'POST', path: '/hook', servername: 'hooks.example' });
    expect(verifyDelivery(endpoint.secret, s.received[0]!)).toMatchObject({ type: 'user.created' });
  });

  it('records a certificate for another name as a failed attempt, sending nothing', async () => {
    const s = await tlsServer(['elsewhere.example']);
    const { attempt } = await deliverTo(`https://hooks.example:${s.port}/hook`);
    expect(attempt).toMatchObject({ status_code: null, error: expect.stringMatching(/altnames/) });
    expect(s.received).toEqual([]);
  });

  it('records a redirect to a private address as the endpoint’s answer, without following it', async () => {
    const s = await tlsServer(['hooks.example']);
    s.reply = (_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${privatePort}/admin` });
      res.end();
    };
    const { message, attempt } = await deliverTo(`https://hooks.example:${s.port}/hook`);
    expect(attempt).toMatchObject({ status_code: 307 });
    expect(message.status).toBe('pending');
    expect(privateHits).toBe(0);
  });
});

describe('OIDC discovery over https', () => {
  it('an enterprise OIDC connection discovers its issuer over TLS and sends the browser to the discovered endpoint', async () => {
    const s = await tlsServer(['idp.example']);
    const issuer = `https://idp.example:${s.port}`;
    s.reply = (req, res) => {
      if (req.path !== '/.well-known/openid-configuration') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
        }),
      );
    };
    const org = (await bapi('POST', '/v1/organizations', { name: 'Lovelace Ltd' })).body;
    const domain = (await bapi('POST', `/v1/organizations/${org.id}/domains`, { name: 'lovelace.test' })).body;
    await bapi('PATCH', `/v1/organizations/${org.id}/domains/${domain.id}`, { verified: true });
    const created = await bapi('POST', '/v1/sso_connections', {
      organization_id: org.id,
      provider: 'oidc',
      name: 'Lovelace IdP',
      domains: ['lovelace.test'],
      active: true,
      oidc: { issuer, client_id: 'latchkey', client_secret: 'a-long-enough-client-secret-for-hs256' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const b = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    const start = await b.call('POST', '/v1/client/sign_ins', {
      body: { strategy: 'enterprise_sso', identifier: 'ada@lovelace.test', redirect_url: 'http://localhost:3000/done' },
    });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const authUrl = new URL(start.body.response.first_factor_verification.external_verification_redirect_url);
    expect(authUrl.origin + authUrl.pathname).toBe(`${issuer}/authorize`);
    expect(s.received).toMatchObject([{ method: 'GET', path: '/.well-known/openid-configuration', servername: 'idp.example' }]);
  });
});

describe('breached-password range API over https', () => {
  it('refuses a password the range API lists, asked over TLS with only the hash prefix', async () => {
    const password = 'correct horse battery staple tls';
    const sha1 = createHash('sha1').update(password).digest('hex').toUpperCase();
    const s = await tlsServer(['range.example']);
    s.reply = (_req, res) => res.end(`0000000000000000000000000000000000A:0\r\n${sha1.slice(5)}:42\r\n`);
    const patched = await bapi('PATCH', '/v1/attack_protection', {
      breached_passwords: { enabled: true, range_api_url: `https://range.example:${s.port}/range` },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    h.clock.advance(10_000); // past the instance cache
    const created = await bapi('POST', '/v1/users', { email_address: ['breached.tls@example.com'], password });
    expect(created.status).toBe(422);
    expect(created.body.errors[0].meta).toMatchObject({ param: 'password', reason: 'password_compromised' });
    expect(s.received).toMatchObject([{ method: 'GET', path: `/range/${sha1.slice(0, 5)}`, servername: 'range.example' }]);
  });
});
