import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as client from 'openid-client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLogs, oauthApplications, oauthInitialAccessTokens } from '../db/schema';
import { systemContext } from '../http/actor';
import { Browser, REDIRECT_URI, random, startOp, type Op } from '../testing/oidc-conformance';
import { createInitialAccessToken, revokeInitialAccessToken } from './initial-access-tokens';

/**
 * Dynamic Client Registration (RFC 7591) and its management (RFC 7592) over a real socket:
 * openid-client's dynamicClientRegistration() with an initial access token, then a full code
 * flow with the client it registered; the error answers; read, update and delete.
 */
let op: Op;
beforeAll(async () => {
  op = await startOp();
}, 120_000);
afterAll(() => op?.close());

const deps = () => op.server.h.runtime.deps;
const initialToken = async (o: { max_uses?: number | null; expires_in_seconds?: number | null } = {}) =>
  createInitialAccessToken(
    deps(),
    op.instance.instanceId,
    { name: 'conformance', expires_in_seconds: o.expires_in_seconds ?? 3600, max_uses: o.max_uses ?? null },
    systemContext('test'),
  );

const registrationEndpoint = () => `${op.issuer}/oauth2/register`;

/** Each test registers from its own address (the per-IP budget is 20 a minute): startOp maps the visitor tag to an IP. */
let visitor = 9000;
let currentVisitor = `ConformanceVisitor/${visitor}`;
beforeEach(() => {
  currentVisitor = `ConformanceVisitor/${++visitor}`;
});

async function register(body: unknown, token: string | null) {
  const res = await fetch(registrationEndpoint(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': currentVisitor,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe('Dynamic Client Registration (RFC 7591)', () => {
  it('discovery advertises the registration endpoint under the issuer', () => {
    expect(op.discovery.registration_endpoint).toBe(registrationEndpoint());
  });

  it('openid-client registers a confidential client with an initial access token, then runs a code flow with it', async () => {
    const iat = await initialToken();
    const config = await client.dynamicClientRegistration(
      new URL(op.issuer),
      {
        redirect_uris: [REDIRECT_URI],
        client_name: 'Registered RP',
        logo_uri: 'https://rp.conformance.test/logo.png',
        policy_uri: 'https://rp.conformance.test/policy',
        tos_uri: 'https://rp.conformance.test/tos',
        contacts: ['ops@rp.conformance.test'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'openid profile email offline_access',
      },
      undefined,
      { initialAccessToken: iat.token, execute: [client.allowInsecureRequests] },
    );
    const meta = config.clientMetadata();
    expect(meta.client_id).toMatch(/^oa_/);
    expect(meta.client_secret).toMatch(/^oas_/);
    expect(meta.client_secret_expires_at).toBe(0);
    expect(typeof meta.client_id_issued_at).toBe('number');
    expect(meta.registration_access_token).toMatch(/^rat_/);
    expect(meta.registration_client_uri).toBe(`${op.issuer}/oauth2/register/${meta.client_id}`);
    expect(meta).toMatchObject({
      client_name: 'Registered RP',
      logo_uri: 'https://rp.conformance.test/logo.png',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    });

    // Secrets at rest are digests; the token's use is counted; the registration is audited.
    const [row] = await deps().db.select().from(oauthApplications).where(eq(oauthApplications.id, meta.client_id));
    expect(row!.secretDigest).not.toContain(meta.client_secret as string);
    expect(row!.registrationTokenDigest).not.toBe(meta.registration_access_token);
    expect(row!.name).toBe('Registered RP');
    const [counted] = await deps().db.select().from(oauthInitialAccessTokens).where(eq(oauthInitialAccessTokens.id, iat.id));
    expect(counted!.useCount).toBe(1);
    const [entry] = await deps()
      .db.select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'oauth_application.registered'), eq(auditLogs.target, meta.client_id)));
    expect(entry).toMatchObject({ actor: `oauth_initial_access_token:${iat.id}`, actorKind: 'oauth_client' });
    expect(JSON.stringify(entry)).not.toContain(iat.token);

    // The registered client as the operator's console lists it.
    const listed = await fetch(`${op.server.apiUrl}/v1/oauth_applications/${meta.client_id}`, {
      headers: { authorization: `Bearer ${op.instance.secret}` },
    });
    expect(await listed.json()).toMatchObject({ registered_dynamically: true, public: false, consent_screen_enabled: true });

    // A full code flow with the registered client, through openid-client.
    const verifier = client.randomPKCECodeVerifier();
    const state = random();
    const nonce = random();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const answer = await new Browser(op).authorize(url.href);
    expect(answer.kind, answer.kind === 'error-page' ? answer.html : '').toBe('callback');
    const callback = new URL(REDIRECT_URI);
    for (const [k, v] of Object.entries((answer as { params: Record<string, string> }).params)) callback.searchParams.set(k, v);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.claims()!.aud).toBe(meta.client_id);
    expect(tokens.claims()!.sub).toBe(op.user.id);
    const info = await client.fetchUserInfo(config, tokens.access_token, op.user.id);
    expect(info.email).toBe(op.user.email);
  });

  it('the docs’ register-client.js runs as written (node, openid-client) and registers a client', async () => {
    const doc = readFileSync(join(process.cwd(), 'docs/oidc-provider.md'), 'utf8');
    const script = /saved as `register-client\.js`[\s\S]*?```js\n([\s\S]*?)```/.exec(doc)![1]!;
    // A project of its own under the repository, so that `openid-client` resolves from its node_modules.
    const dir = mkdtempSync(join(process.cwd(), '.docs-snippet-'));
    try {
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      writeFileSync(join(dir, 'register-client.js'), script);
      const iat = await initialToken();
      const { stdout } = await promisify(execFile)(process.execPath, ['register-client.js'], {
        cwd: dir,
        env: { PATH: process.env.PATH, NODE_ENV: 'production', ISSUER: op.issuer, INITIAL_ACCESS_TOKEN: iat.token },
      });
      const out = JSON.parse(stdout) as Record<string, string>;
      expect(out.client_id).toMatch(/^oa_/);
      expect(out.client_secret).toMatch(/^oas_/);
      expect(out.registration_client_uri).toBe(`${op.issuer}/oauth2/register/${out.client_id}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('registers a public native client (none, PKCE) with a private-use scheme redirect', async () => {
    const iat = await initialToken();
    const res = await register(
      {
        application_type: 'native',
        redirect_uris: ['com.example.app:/oauth2redirect', 'http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
        client_name: 'Native app',
        'client_name#fr': 'Appli native',
        unknown_field: 'ignored',
      },
      iat.token,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body.client_secret_expires_at).toBeUndefined();
    expect(res.body).toMatchObject({ token_endpoint_auth_method: 'none', application_type: 'native', 'client_name#fr': 'Appli native' });
    expect(res.body.unknown_field).toBeUndefined();
    // An operator edits it in the console (the form sends every redirect URI back): its private-use scheme stays accepted.
    const edited = await fetch(`${op.server.apiUrl}/v1/oauth_applications/${res.body.client_id as string}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${op.instance.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Native app (edited)',
        redirect_uris: ['com.example.app:/oauth2redirect', 'http://127.0.0.1/callback'],
      }),
    });
    expect(edited.status).toBe(200);
    const added = await fetch(`${op.server.apiUrl}/v1/oauth_applications/${res.body.client_id as string}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${op.instance.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['com.example.app:/oauth2redirect', 'com.other.app:/cb'] }),
    });
    expect(added.status).toBe(422);
  });

  it('refuses a missing, unknown, expired, revoked or used-up initial access token with 401 invalid_token', async () => {
    const body = { redirect_uris: [REDIRECT_URI] };
    const missing = await register(body, null);
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('invalid_token');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await register(body, 'iat_not-a-token')).status).toBe(401);

    const single = await initialToken({ max_uses: 1 });
    expect((await register(body, single.token)).status).toBe(201);
    const again = await register(body, single.token);
    expect(again.status).toBe(401);
    expect(again.body.error).toBe('invalid_token');

    const expiring = await initialToken({ expires_in_seconds: 60 });
    op.server.h.clock.advance(61_000);
    expect((await register(body, expiring.token)).status).toBe(401);

    const revoked = await initialToken();
    await revokeInitialAccessToken(deps(), op.instance.instanceId, revoked.id, systemContext('test'));
    expect((await register(body, revoked.token)).status).toBe(401);

    // A secret key of the instance is no initial access token.
    expect((await register(body, op.instance.secret)).status).toBe(401);
  });

  it('answers invalid_redirect_uri and invalid_client_metadata (400) for metadata it cannot accept, without using the token', async () => {
    const iat = await initialToken({ max_uses: 1 });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'invalid_redirect_uri'],
      [{ redirect_uris: ['http://rp.example.com/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://rp.example.com/cb#frag'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['com.example.app:/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['not a url'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: [REDIRECT_URI], grant_types: ['implicit'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], response_types: ['id_token'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], response_types: ['code'], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
      [
        { redirect_uris: [REDIRECT_URI], jwks_uri: 'https://rp.example.com/jwks', jwks: { keys: [{ kty: 'RSA' }] } },
        'invalid_client_metadata',
      ],
      [{ redirect_uris: [REDIRECT_URI], jwks_uri: 'https://169.254.169.254/keys' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], logo_uri: 'javascript:alert(1)' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], client_name: 42 }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], id_token_signed_response_alg: 'none' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], userinfo_signed_response_alg: 'HS256' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], userinfo_encrypted_response_alg: 'RSA-OAEP' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT_URI], subject_type: 'pairwise' }, 'invalid_client_metadata'],
    ];
    for (const [body, error] of cases) {
      const res = await register(body, iat.token);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toBe(error);
      expect(res.body.error_description).toEqual(expect.any(String));
    }
    const notJson = await fetch(registrationEndpoint(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${iat.token}` },
      body: '[1,2]',
    });
    expect(notJson.status).toBe(400);
    // None of those used the single-use token.
    expect((await register({ redirect_uris: [REDIRECT_URI] }, iat.token)).status).toBe(201);
  });

  it('rate-limits registrations per caller address (20 a minute), bad tokens included', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await register({ redirect_uris: [REDIRECT_URI] }, 'iat_guess')).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
  });
});

describe('Client management (RFC 7592)', () => {
  async function registered() {
    const iat = await initialToken();
    const res = await register(
      { redirect_uris: [REDIRECT_URI], client_name: 'Managed RP', token_endpoint_auth_method: 'client_secret_post' },
      iat.token,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { client_id: string; client_secret: string; registration_access_token: string; registration_client_uri: string };
  }
  const call = (method: string, url: string, token: string | null, body?: unknown) =>
    fetch(url, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  it('reads the registration with its registration access token; another token or client is 401', async () => {
    const a = await registered();
    const b = await registered();
    const res = await call('GET', a.registration_client_uri, a.registration_access_token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ client_id: a.client_id, client_name: 'Managed RP', registration_client_uri: a.registration_client_uri });
    expect(body.client_secret).toBeUndefined();
    expect((await call('GET', a.registration_client_uri, b.registration_access_token)).status).toBe(401);
    expect((await call('GET', a.registration_client_uri, null)).status).toBe(401);
    expect((await call('GET', `${op.issuer}/oauth2/register/oa_doesnotexist`, a.registration_access_token)).status).toBe(401);
    // An application an operator created cannot be managed this way.
    expect((await call('GET', `${op.issuer}/oauth2/register/${op.client.client_id}`, a.registration_access_token)).status).toBe(401);
  });

  it('replaces the metadata on PUT (client_id must match, a client_secret sent must be current), then deletes the client', async () => {
    const a = await registered();
    const put = (body: Record<string, unknown>) => call('PUT', a.registration_client_uri, a.registration_access_token, body);
    const updated = await put({
      client_id: a.client_id,
      client_secret: a.client_secret,
      redirect_uris: ['https://rp.conformance.test/other'],
      client_name: 'Renamed RP',
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ client_name: 'Renamed RP', redirect_uris: ['https://rp.conformance.test/other'] });
    const [row] = await deps().db.select().from(oauthApplications).where(eq(oauthApplications.id, a.client_id));
    expect(row).toMatchObject({ name: 'Renamed RP', redirectUris: ['https://rp.conformance.test/other'] });

    expect((await put({ client_id: 'oa_other', redirect_uris: [REDIRECT_URI] })).status).toBe(400);
    expect((await put({ client_id: a.client_id, client_secret: 'oas_wrong', redirect_uris: [REDIRECT_URI] })).status).toBe(400);
    const bad = await put({ client_id: a.client_id, redirect_uris: ['http://evil.example/cb'] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    const toPublic = await put({ client_id: a.client_id, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });
    expect(((await toPublic.json()) as { error: string }).error).toBe('invalid_client_metadata');

    const deleted = await call('DELETE', a.registration_client_uri, a.registration_access_token);
    expect(deleted.status).toBe(204);
    expect(await deps().db.select().from(oauthApplications).where(eq(oauthApplications.id, a.client_id))).toEqual([]);
    expect((await call('GET', a.registration_client_uri, a.registration_access_token)).status).toBe(401);
    const audited = await deps()
      .db.select({ action: auditLogs.action, actor: auditLogs.actor })
      .from(auditLogs)
      .where(eq(auditLogs.target, a.client_id));
    expect(audited.map((e) => e.action).sort()).toEqual([
      'oauth_application.deleted',
      'oauth_application.registered',
      'oauth_application.updated',
    ]);
    expect(audited.find((e) => e.action === 'oauth_application.deleted')!.actor).toBe(`oauth_client:${a.client_id}`);
  });
});
