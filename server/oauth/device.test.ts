import * as client from 'openid-client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthDeviceCodes } from '../db/schema';
import { sha256Hex } from '../crypto/secrets';
import { TestClock } from '../testing/harness';
import { Browser, PASSWORD, parseForm, startOp, type Op } from '../testing/oidc-conformance';
import { DEVICE_ENTRY_LIMITS } from './device-page';

/**
 * The Device Authorization Grant (RFC 8628) over a real socket: openid-client's device flow
 * (initiateDeviceAuthorization, pollDeviceAuthorizationGrant) on the device, and a browser
 * on the verification page (hosted sign-in, the code, the app's name and scopes, allow/deny).
 * The clock runs (polling is timed), with a one-second interval.
 */
let op: Op;
beforeAll(async () => {
  op = await startOp({ clock: TestClock.running(), env: { OAUTH_DEVICE_POLL_INTERVAL: '1' } });
}, 120_000);
afterAll(() => op?.close());

const CODE_RE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

async function bapi(method: string, path: string, body: unknown) {
  const res = await fetch(`${op.server.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${op.instance.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function deviceApp(extra: Record<string, unknown> = {}) {
  const app = await bapi('POST', '/v1/oauth_applications', {
    name: 'Acme CLI',
    public: true,
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    device_flow_enabled: true,
    ...extra,
  });
  return app as { client_id: string; client_secret: string | null; device_flow_enabled: boolean };
}

async function device(app: { client_id: string; client_secret: string | null }) {
  const auth = app.client_secret ? client.ClientSecretBasic(app.client_secret) : client.None();
  return client.discovery(new URL(op.issuer), app.client_id, undefined, auth, { execute: [client.allowInsecureRequests] });
}

/** The device polling as a script would, without openid-client's waiting: the token endpoint's answer. */
async function poll(app: { client_id: string }, deviceCode: string) {
  const res = await fetch(op.discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: deviceCode,
      client_id: app.client_id,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** The user on the verification page: follows the hosted sign-in (signing in), then answers the confirmation page. */
async function visit(b: Browser, url: string) {
  let res = await b.request('GET', url);
  const signIns: URL[] = [];
  while (res.status === 302) {
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname.endsWith('/sign-in')).toBe(true);
    signIns.push(location);
    await b.signIn();
    res = await b.request('GET', location.searchParams.get('redirect_url')!);
  }
  return { status: res.status, html: await res.text(), signIns };
}

const origin = () => ({ origin: new URL(op.issuer).origin });

describe('device authorization grant (RFC 8628)', () => {
  it('is in discovery', () => {
    expect(op.discovery.device_authorization_endpoint).toBe(`${op.issuer}/oauth2/device_authorization`);
    expect(op.discovery.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');
  });

  it('a CLI signs a user in: the code from verification_uri_complete, hosted sign-in, consent, tokens by polling', async () => {
    const app = await deviceApp();
    expect(app.device_flow_enabled).toBe(true);
    const config = await device(app);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile email offline_access' });
    expect(started.user_code).toMatch(CODE_RE);
    expect(started.verification_uri).toBe(`${op.issuer}/oauth2/device`);
    expect(started.verification_uri_complete).toBe(`${op.issuer}/oauth2/device?user_code=${started.user_code}`);
    expect(started.expires_in).toBe(600);
    expect(started.interval).toBe(1);
    // The device_code is kept as its digest only.
    const rows = await op.server.h.runtime.deps.db
      .select()
      .from(oauthDeviceCodes)
      .where(eq(oauthDeviceCodes.digest, sha256Hex(started.device_code)));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(started.device_code);
    expect(JSON.stringify(rows[0])).not.toContain(started.user_code.replace('-', ''));
    // The user code (~35 bits) is kept as a keyed MAC: a plain hash of it could be reversed by trying every code.
    expect(rows[0]!.userCodeDigest).not.toBe(sha256Hex(started.user_code.replace('-', '')));

    const polling = client.pollDeviceAuthorizationGrant(config, started);
    const b = new Browser(op);
    const page = await visit(b, started.verification_uri_complete!);
    expect(page.signIns).toHaveLength(1);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Connect Acme CLI?');
    expect(page.html).toContain('See your email address');
    expect(page.html).toContain('Keep access while you are away');
    expect(page.html).toContain(started.user_code);
    const form = parseForm(page.html);
    expect(form.action).toBe(started.verification_uri);
    const done = await b.request('POST', form.action, { ...form.fields, decision: 'allow' }, origin());
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('you can return to your device');

    const tokens = await polling;
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(op.user.id);
    expect(claims.aud).toBe(app.client_id);
    expect(tokens.refresh_token).toMatch(/^ort_/);
    expect(tokens.scope).toBe('openid profile email offline_access');
    const me = await client.fetchUserInfo(config, tokens.access_token, op.user.id);
    expect(me.email).toBe(op.user.email);

    // Single use: the device_code issues its tokens once; the user code no longer names anything.
    expect((await poll(app, started.device_code)).body.error).toBe('invalid_grant');
    // …and a replayed device_code revokes what it issued (it has leaked), as a replayed authorization code does.
    await expect(client.fetchUserInfo(config, tokens.access_token, op.user.id)).rejects.toThrow();
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const again = await b.request('POST', started.verification_uri, { user_code: started.user_code }, origin());
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('not valid or has expired');
  });

  it('polling: authorization_pending, slow_down (+5 s) when too soon, access_denied once the user denies', async () => {
    const app = await deviceApp({ public: false });
    expect(app.client_secret).toMatch(/^oas_/);
    const config = await device(app);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const tokenAs = (deviceCode: string) =>
      fetch(op.discovery.token_endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
    expect((await tokenAs(started.device_code)).body.error).toBe('authorization_pending');
    const tooSoon = await tokenAs(started.device_code);
    expect(tooSoon.status).toBe(400);
    expect(tooSoon.body.error).toBe('slow_down');
    const [row] = await op.server.h.runtime.deps.db
      .select({ interval: oauthDeviceCodes.interval })
      .from(oauthDeviceCodes)
      .where(eq(oauthDeviceCodes.digest, sha256Hex(started.device_code)));
    expect(row!.interval).toBe(6);
    // A device code is the client's own: another client gets nothing from it.
    const other = await deviceApp();
    expect((await poll(other, started.device_code)).body.error).toBe('invalid_grant');

    // The user types the code (lower case, without the dash), sees the app, and denies.
    const b = new Browser(op);
    await b.signIn();
    const entry = await b.request('GET', started.verification_uri);
    expect(entry.status).toBe(200);
    expect(await entry.text()).toContain('Enter the code shown on your device.');
    const typed = started.user_code.replace('-', '').toLowerCase();
    const confirm = await b.request('POST', started.verification_uri, { user_code: typed }, origin());
    const form = parseForm(await confirm.text());
    expect(form.fields.user_code).toBe(started.user_code);
    const denied = await b.request('POST', form.action, { ...form.fields, decision: 'deny' }, origin());
    expect(await denied.text()).toContain('Access denied');
    await expect(client.pollDeviceAuthorizationGrant(config, { ...started, interval: 6 })).rejects.toMatchObject({
      error: 'access_denied',
    });
  }, 30_000);

  it('expired_token once the code has expired; the page no longer knows the code', async () => {
    const app = await deviceApp();
    const started = await client.initiateDeviceAuthorization(await device(app), { scope: 'openid' });
    op.server.h.clock.advance(601_000);
    expect(await poll(app, started.device_code)).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    const b = new Browser(op);
    await b.signIn();
    expect((await b.request('GET', started.verification_uri_complete!)).status).toBe(400);
  });

  it('refuses an app not allowed the grant (unauthorized_client), and scopes the app may not ask for', async () => {
    const plain = await bapi('POST', '/v1/oauth_applications', { name: 'Web', public: true });
    const config = await device(plain as { client_id: string; client_secret: null });
    await expect(client.initiateDeviceAuthorization(config, { scope: 'openid' })).rejects.toMatchObject({ error: 'unauthorized_client' });
    const enabled = await bapi('PATCH', `/v1/oauth_applications/${plain.client_id as string}`, { device_flow_enabled: true });
    expect(enabled.device_flow_enabled).toBe(true);
    await expect(client.initiateDeviceAuthorization(config, { scope: 'openid admin' })).rejects.toMatchObject({ error: 'invalid_scope' });
    await expect(client.initiateDeviceAuthorization(config, { scope: 'openid' })).resolves.toMatchObject({
      user_code: expect.stringMatching(CODE_RE),
    });
  });

  it('code entry is rate-limited per user: guessing stops after a few tries', async () => {
    const email = 'guesser@conformance.test';
    await bapi('POST', '/v1/users', { email_address: [email], password: PASSWORD });
    const b = new Browser(op, { email, password: PASSWORD });
    await b.signIn();
    const url = `${op.issuer}/oauth2/device`;
    for (let i = 0; i < DEVICE_ENTRY_LIMITS.perUser.limit; i++) {
      const res = await b.request('POST', url, { user_code: 'BBBB-BBBB' }, origin());
      expect(res.status).toBe(400);
      await res.text();
    }
    const limited = await b.request('POST', url, { user_code: 'BBBB-BBBB' }, origin());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.text()).toContain('Too many attempts');
  });

  it('a link cannot answer for the user: a decision on GET only shows the confirmation', async () => {
    const app = await deviceApp();
    const started = await client.initiateDeviceAuthorization(await device(app), { scope: 'openid' });
    const b = new Browser(op);
    await b.signIn();
    const res = await b.request('GET', `${started.verification_uri_complete!}&decision=allow`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Connect Acme CLI?');
    expect((await poll(app, started.device_code)).body.error).toBe('authorization_pending');
  });
});
