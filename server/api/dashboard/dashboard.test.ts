import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../cli/commands';
import { auditLogs } from '../../db/schema';
import { sendEmail } from '../../email/mailer';
import { sendSms } from '../../sms/send';
import { bootstrapConsole, bootstrapEmptyStore } from '../../instances/bootstrap';
import { issueSetupLink } from '../../instances/platform';
import { claimedConsole, consoleBrowser, consoleSetupToken, type ConsoleBrowser } from '../../testing/console-client';
import { fapiClient } from '../../testing/fapi-client';
import { sharedHarness } from '../../testing/harness';

const h = sharedHarness();
let dev: NonNullable<Awaited<ReturnType<typeof bootstrapEmptyStore>>>;

beforeAll(async () => {
  dev = (await bootstrapEmptyStore(h.runtime.deps))!;
});

const auditOf = (instanceId: string | null, action: string) =>
  h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(instanceId ? and(eq(auditLogs.instanceId, instanceId), eq(auditLogs.action, action)) : eq(auditLogs.action, action));

/** Signs an operator in through the platform instance's FAPI (identifier, then password), as the console does. */
async function signIn(b: ConsoleBrowser, email: string, password: string) {
  const started = await b.fapi('POST', '/v1/client/sign_ins', { body: { identifier: email } });
  expect(started.status).toBe(200);
  const done = await b.fapi('POST', `/v1/client/sign_ins/${started.body.response.id}/attempt_first_factor`, {
    body: { strategy: 'password', password },
  });
  expect(done.status).toBe(200);
  expect(done.body.response.status).toBe('complete');
  return done;
}

let owner: Awaited<ReturnType<typeof claimedConsole>>;
let platform: { id: string; publishableKey: string };

describe('first-run setup', () => {
  it('refuses without a token, with a wrong one, and without the console Origin', async () => {
    const { token, url, platform: p } = await consoleSetupToken(h);
    platform = p;
    expect(url).toMatch(/^http:\/\/localhost:3000\/setup\?token=setup_/);
    const b = consoleBrowser(h, p);
    const body = { email_address: 'owner@example.com', password: 'correct horse battery' };
    const missing = await b.dash('POST', '/setup', { body });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].meta.param).toBe('token');
    const wrong = await b.dash('POST', '/setup', { body: { ...body, token: `setup_${'A'.repeat(43)}` } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.errors[0].meta.reason).toBe('setup_token_invalid');
    const noOrigin = await b.dash('POST', '/setup', { body: { ...body, token }, origin: null });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.errors[0].code).toBe('ORIGIN_NOT_ALLOWED');
    expect(b.cookie).toBeNull();
    // A new link replaces the unused one.
    const again = await issueSetupLink(h.runtime.deps, 'test');
    const replaced = await b.dash('POST', '/setup', { body: { ...body, token } });
    expect(replaced.status).toBe(403);
    expect(new URL(again.url).searchParams.get('token')).toBe(again.token);
  });

  it('creates the first owner with the Development account and signs them in; the token works once', async () => {
    owner = await claimedConsole(h);
    expect(owner.b.cookie).toMatch(/^ct_/);
    const me = await owner.b.dash('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.user.email_addresses[0].email_address).toBe('owner@example.com');
    expect(me.body.user).not.toHaveProperty('private_metadata');
    expect(me.body.accounts).toEqual([expect.objectContaining({ id: owner.accountId, role: 'owner' })]);
    const list = await owner.b.dash('GET', `/accounts/${owner.accountId}/instances`);
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([dev.instance.id]);
    expect(list.body.data.some((i: { id: string }) => i.id === platform.id)).toBe(false);
    // Console claimed: the next start prints no link; a used token is refused.
    expect(await bootstrapConsole(h.runtime.deps)).toBeNull();
    expect((await auditOf(null, 'console.setup_completed')).length).toBe(1);
  });

  it('sets the console cookie at Path=/, HttpOnly, SameSite=Lax', async () => {
    const { token } = { token: (await issueSetupLink(h.runtime.deps, 'test')).token };
    const b = consoleBrowser(h, platform);
    const res = await b.dash('POST', '/setup', {
      body: { token, email_address: 'second-owner@example.com', password: 'another passphrase' },
    });
    expect(res.status).toBe(201);
    expect(res.setCookie).toMatch(/^__console_client=ct_[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    // The default account is claimed already: this owner gets a new one.
    expect(res.body.accounts[0].id).not.toBe(owner.accountId);
    const reused = await consoleBrowser(h, platform).dash('POST', '/setup', {
      body: { token, email_address: 'x@example.com', password: 'another passphrase' },
    });
    expect(reused.status).toBe(403);
  });

  it('the CLI prints a new link that works once', async () => {
    const out = await runCommand(h.runtime.deps, ['setup-link', '--json']);
    expect(out.exitCode).toBe(0);
    const { url } = JSON.parse(out.stdout) as { url: string };
    const token = new URL(url).searchParams.get('token');
    const b = consoleBrowser(h, platform);
    expect(
      (await b.dash('POST', '/setup', { body: { token, email_address: 'recovered@example.com', password: 'recovery passphrase' } })).status,
    ).toBe(201);
    expect(
      (await b.dash('POST', '/setup', { body: { token, email_address: 'again@example.com', password: 'recovery passphrase' } })).status,
    ).toBe(403);
  });

  it('GET /console tells the console the platform instance to sign in with', async () => {
    const res = await consoleBrowser(h, platform).dash('GET', '/console');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'console',
      platform_instance_id: platform.id,
      publishable_key: platform.publishableKey,
      fapi_url: `http://localhost:3000/fapi/${platform.id}`,
      signed_in: false,
    });
  });
});

describe('console session', () => {
  it('comes from a sign-in on the platform FAPI; the cookie reaches the dashboard API', async () => {
    const b = consoleBrowser(h, platform);
    const done = await signIn(b, 'owner@example.com', owner.password);
    expect(done.setCookie).toMatch(/^__console_client=ct_[^;]+; Path=\/;/);
    const me = await b.dash('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(owner.operator.id);
    // Signing out on the FAPI ends the console session.
    const out = await b.fapi('DELETE', '/v1/client/sessions');
    expect(out.status).toBe(200);
    expect((await b.dash('GET', '/me')).status).toBe(401);
  });

  it('is required: 401 without a cookie, with a bad one, or with a customer instance cookie', async () => {
    const anon = consoleBrowser(h, platform);
    const res = await anon.dash('GET', '/me');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].code).toBe('UNAUTHENTICATED');
    anon.cookie = `ct_${'x'.repeat(43)}`;
    expect((await anon.dash('GET', `/accounts/${owner.accountId}/instances`)).status).toBe(401);
    const customer = await h.call('GET', `/v1/dashboard/me`, { headers: { cookie: `__client=${owner.b.cookie}` } });
    expect(customer.status).toBe(401);
  });

  it('the platform FAPI CSRF-checks writes carrying the console cookie', async () => {
    const res = await owner.b.fapi('DELETE', '/v1/client/sessions', { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].code).toBe('ORIGIN_NOT_ALLOWED');
    expect((await owner.b.fapi('DELETE', '/v1/client/sessions', { origin: null })).status).toBe(403);
    expect((await owner.b.dash('GET', '/me')).status).toBe(200);
  });

  it('nobody signs up to the platform instance on its FAPI', async () => {
    const b = consoleBrowser(h, platform);
    const res = await b.fapi('POST', '/v1/client/sign_ups', {
      body: { email_address: 'intruder@example.com', password: 'a long passphrase' },
    });
    expect(res.status).toBe(403);
  });
});

describe('instances, settings and keys', () => {
  const base = () => `/accounts/${owner.accountId}/instances`;
  let liveId: string;

  it('creates an instance and shows its publishable key, FAPI URL and settings', async () => {
    const created = await owner.b.dash('POST', base(), { body: { name: 'Production', environment: 'live' } });
    expect(created.status).toBe(201);
    liveId = created.body.id;
    expect(created.body).toMatchObject({
      object: 'instance',
      account_id: owner.accountId,
      name: 'Production',
      environment: 'live',
      fapi_url: `http://localhost:3000/fapi/${liveId}`,
    });
    expect(created.body.publishable_key).toMatch(/^pk_live_/);
    const got = await owner.b.dash('GET', `${base()}/${liveId}`);
    expect(got.status).toBe(200);
    expect(got.body.settings).toMatchObject({ sign_up_mode: 'public', mfa_required: false, redirect_urls: [] });
    expect((await owner.b.dash('POST', base(), { body: { name: '' } })).status).toBe(422);
    expect((await auditOf(liveId, 'instance.created'))[0]!.actor).toBe(`operator:${owner.operator.id}`);
  });

  it('changes settings, validated; audited', async () => {
    const url = `${base()}/${dev.instance.id}/settings`;
    const ok = await owner.b.dash('PATCH', url, {
      body: {
        sign_up_mode: 'restricted',
        allowlist: ['acme.com'],
        session_lifetime_seconds: 86400,
        session_inactivity_timeout_seconds: 3600,
        mfa_required: true,
        allowed_origins: ['https://app.acme.com'],
        redirect_urls: ['https://app.acme.com/after'],
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      sign_up_mode: 'restricted',
      session_lifetime_seconds: 86400,
      mfa_required: true,
      redirect_urls: ['https://app.acme.com/after'],
    });
    // A later patch keeps the other fields.
    const again = await owner.b.dash('PATCH', url, { body: { mfa_required: false } });
    expect(again.body).toMatchObject({ sign_up_mode: 'restricted', mfa_required: false, allowed_origins: ['https://app.acme.com'] });
    for (const bad of [
      { allowed_origins: ['https://app.acme.com/path'] },
      { session_lifetime_seconds: 5 },
      { sign_up_mode: 'open' },
      { redirect_urls: ['javascript:alert(1)'] },
      { nope: 1 },
    ]) {
      const res = await owner.b.dash('PATCH', url, { body: bad });
      expect(res.status, JSON.stringify(bad)).toBe(422);
    }
    const [entry] = await auditOf(dev.instance.id, 'instance.settings_updated');
    expect(entry!.actor).toBe(`operator:${owner.operator.id}`);
    await owner.b.dash('PATCH', url, { body: { sign_up_mode: 'public', allowlist: [] } });
  });

  it('creates a scoped key whose secret is shown once, lists hints, revokes', async () => {
    const keys = `${base()}/${dev.instance.id}/keys`;
    const created = await owner.b.dash('POST', keys, { body: { name: 'Reader', scopes: ['users:read'] } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^sk_test_/);
    expect(created.body.scopes).toEqual(['users:read']);
    const list = await owner.b.dash('GET', keys);
    const listed = list.body.data.find((k: { id: string }) => k.id === created.body.id);
    expect(listed).toMatchObject({ name: 'Reader', hint: created.body.secret.slice(0, 12), revoked_at: null });
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect((await h.call('GET', '/v1/users', { key: created.body.secret })).status).toBe(200);
    expect((await owner.b.dash('POST', keys, { body: { scopes: ['users:fly'] } })).status).toBe(422);
    const revoked = await owner.b.dash('POST', `${keys}/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect((await h.call('GET', '/v1/users', { key: created.body.secret })).body.errors[0].code).toBe('INVALID_KEY');
    // A key of another instance is not found here.
    const other = await h.createInstance();
    expect((await owner.b.dash('POST', `${keys}/${other.keyId}/revoke`)).status).toBe(404);
    expect((await auditOf(dev.instance.id, 'secret_key.created')).some((e) => e.actor === `operator:${owner.operator.id}`)).toBe(true);
  });

  it('renames the account and an instance, validated; audited', async () => {
    const account = await owner.b.dash('PATCH', `/accounts/${owner.accountId}`, { body: { name: '  Acme Holdings ' } });
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ object: 'account', id: owner.accountId, name: 'Acme Holdings', role: 'owner' });
    expect((await owner.b.dash('GET', `/accounts/${owner.accountId}`)).body.name).toBe('Acme Holdings');
    expect((await auditOf(null, 'account.updated')).some((e) => e.target === owner.accountId)).toBe(true);

    const renamed = await owner.b.dash('PATCH', `${base()}/${liveId}`, { body: { name: 'Production EU' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ object: 'instance', id: liveId, name: 'Production EU' });
    expect((await auditOf(liveId, 'instance.updated'))[0]!.actor).toBe(`operator:${owner.operator.id}`);
    for (const bad of [{ name: '' }, { name: 'x'.repeat(257) }, { environment: 'test' }, {}]) {
      expect((await owner.b.dash('PATCH', `${base()}/${liveId}`, { body: bad })).status, JSON.stringify(bad)).toBe(422);
    }
  });

  it('deletes an instance: 404 on every surface, its keys refused, gone from the list; owners only', async () => {
    const created = await owner.b.dash('POST', base(), { body: { name: 'Doomed', environment: 'test' } });
    const id: string = created.body.id;
    const key = await owner.b.dash('POST', `${base()}/${id}/keys`, { body: { name: 'Doomed key', scopes: '*' } });
    expect((await h.call('GET', '/v1/users', { key: key.body.secret })).status).toBe(200);
    const fapi = fapiClient(h, id, { publishableKey: created.body.publishable_key });
    expect((await fapi.call('GET', '/v1/environment')).status).toBe(200);

    const deleted = await owner.b.dash('DELETE', `${base()}/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'instance', id, deleted: true });
    expect((await owner.b.dash('GET', `${base()}/${id}`)).status).toBe(404);
    expect((await owner.b.dash('GET', base())).body.data.some((i: { id: string }) => i.id === id)).toBe(false);
    expect((await h.call('GET', '/v1/users', { key: key.body.secret })).body.errors[0].code).toBe('INVALID_KEY');
    h.clock.advance(10_000); // past the node's instance cache
    expect((await fapi.call('GET', '/v1/environment')).status).toBe(404);
    expect((await owner.b.dash('DELETE', `${base()}/${id}`)).status).toBe(404);
    expect((await auditOf(id, 'instance.deleted'))[0]!.actor).toBe(`operator:${owner.operator.id}`);
  });
});

describe('users, sessions, impersonation, audit log, outbox', () => {
  const inst = () => `/accounts/${owner.accountId}/instances/${dev.instance.id}`;
  let userId: string;

  beforeAll(async () => {
    for (const [i, email] of ['ann@acme.com', 'bob@acme.com', 'cat@other.org'].entries()) {
      const res = await h.call('POST', '/v1/users', { key: dev.secret, body: { email_address: [email], first_name: `U${i}` } });
      if (i === 0) userId = res.body.id;
    }
  });

  it('lists with search and cursor paging; gets one', async () => {
    const page1 = await owner.b.dash('GET', `${inst()}/users?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.has_more).toBe(true);
    const page2 = await owner.b.dash('GET', `${inst()}/users?limit=2&starting_after=${page1.body.next_cursor}`);
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.body.data).toHaveLength(1);
    const found = await owner.b.dash('GET', `${inst()}/users?query=acme.com`);
    expect(found.body.data).toHaveLength(2);
    const got = await owner.b.dash('GET', `${inst()}/users/${userId}`);
    expect(got.body).toMatchObject({ id: userId, email_addresses: [{ email_address: 'ann@acme.com' }] });
    expect((await owner.b.dash('GET', `${inst()}/users/user_01ARZ3NDEKTSV4RRFFQ69G5FAV`)).status).toBe(404);
  });

  it('edits metadata (validated), bans and unbans, audited', async () => {
    const url = `${inst()}/users/${userId}`;
    const ok = await owner.b.dash('PATCH', url, { body: { public_metadata: { plan: 'pro' }, private_metadata: { note: 'vip' } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ public_metadata: { plan: 'pro' }, private_metadata: { note: 'vip' } });
    expect((await owner.b.dash('PATCH', url, { body: { public_metadata: ['not', 'an', 'object'] } })).status).toBe(422);
    let deep: Record<string, unknown> = {};
    for (let d = 1; d < 11; d++) deep = { k: deep };
    const tooDeep = await owner.b.dash('PATCH', url, { body: { unsafe_metadata: deep } });
    expect([tooDeep.status, tooDeep.body.errors[0].meta]).toEqual([422, { param: 'unsafe_metadata', reason: 'too_deep' }]);
    expect((await owner.b.dash('PATCH', url, { body: { private_metadata: { big: 'x'.repeat(6000) } } })).status).toBe(200);
    const tooBig = await owner.b.dash('PATCH', url, { body: { private_metadata: { more: 'x'.repeat(6000) } } });
    expect([tooBig.status, tooBig.body.errors[0].meta]).toEqual([422, { param: 'private_metadata', reason: 'too_large' }]);
    expect((await owner.b.dash('PATCH', url, { body: { password: 'sneaky password' } })).status).toBe(422);
    expect((await owner.b.dash('POST', `${url}/ban`)).body.banned).toBe(true);
    expect((await owner.b.dash('POST', `${url}/unban`)).body.banned).toBe(false);
    for (const action of ['user.updated', 'user.banned', 'user.unbanned']) {
      expect((await auditOf(dev.instance.id, action))[0]?.actor, action).toBe(`operator:${owner.operator.id}`);
    }
  });

  it('lists a user’s sessions, revokes one, revokes all', async () => {
    const mint = () => h.call('POST', '/v1/sessions', { key: dev.secret, body: { user_id: userId } });
    const s1 = (await mint()).body;
    const s2 = (await mint()).body;
    const s3 = (await mint()).body;
    const list = await owner.b.dash('GET', `${inst()}/users/${userId}/sessions`);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([s3.id, s2.id, s1.id]);
    const one = await owner.b.dash('POST', `${inst()}/sessions/${s1.id}/revoke`);
    expect(one.body).toMatchObject({ id: s1.id, status: 'revoked' });
    const refresh = await h.call('POST', `/v1/sessions/${s1.id}/refresh`, { key: dev.secret, body: { refresh_token: s1.refresh_token } });
    expect(refresh.status).toBe(401);
    const all = await owner.b.dash('POST', `${inst()}/users/${userId}/sessions/revoke`);
    expect(all.body.data.map((s: { id: string }) => s.id).sort()).toEqual([s2.id, s3.id].sort());
    expect((await auditOf(dev.instance.id, 'session.revoked_all'))[0]!.actor).toBe(`operator:${owner.operator.id}`);
    expect((await owner.b.dash('POST', `${inst()}/sessions/sess_01ARZ3NDEKTSV4RRFFQ69G5FAV/revoke`)).status).toBe(404);
  });

  it('impersonates: an actor token naming the operator, redeemable on the FAPI, audited', async () => {
    const res = await owner.b.dash('POST', `${inst()}/users/${userId}/impersonate`, { body: {} });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'actor_token',
      user_id: userId,
      actor: { sub: `operator:${owner.operator.id}` },
      status: 'pending',
    });
    expect(res.body.token).toMatch(/^tkt_/);
    const [entry] = await auditOf(dev.instance.id, 'impersonation.actor_token_created');
    expect(entry).toMatchObject({ actor: `operator:${owner.operator.id}`, target: res.body.id });
    const browser = fapiClient(h, dev.instance.id, { publishableKey: dev.instance.publishableKey });
    const redeemed = await browser.signInWithTicket(res.body.token);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.client.session.impersonated_by).toBe(`operator:${owner.operator.id}`);
    // The hosted profile names the operator, not the ref.
    const me = await browser.call('GET', '/v1/me');
    expect(me.body.impersonator).toEqual({ ref: `operator:${owner.operator.id}`, name: 'Olive', email: 'owner@example.com' });
    const logs = await owner.b.dash('GET', `${inst()}/audit_logs?action=impersonation.actor_token_created`);
    expect(logs.status).toBe(200);
    expect(logs.body.data[0]).toMatchObject({ actor: `operator:${owner.operator.id}`, target: res.body.id });
    expect((await owner.b.dash('POST', `${inst()}/users/user_01ARZ3NDEKTSV4RRFFQ69G5FAV/impersonate`, { body: {} })).status).toBe(404);
  });

  it('filters the audit log and pages it', async () => {
    const res = await owner.b.dash('GET', `${inst()}/audit_logs?limit=1&actor=operator:${owner.operator.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.has_more).toBe(true);
    expect((await owner.b.dash('GET', `${inst()}/audit_logs?since=10&until=5`)).status).toBe(422);
  });

  it('shows the email and SMS outbox of test instances, and a live instance’s SMS without their text', async () => {
    await sendEmail(h.runtime.deps, {
      instanceId: dev.instance.id,
      to: 'ann@acme.com',
      template: 'verification_code',
      data: { code: '123456' },
    });
    const list = await owner.b.dash('GET', `${inst()}/emails?to=ann@acme.com`);
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({ object: 'email', to: 'ann@acme.com', template: 'verification_code' });
    expect(list.body.data[0].html).toContain('123456');
    const one = await owner.b.dash('GET', `${inst()}/emails/${list.body.data[0].id}`);
    expect(one.body.id).toBe(list.body.data[0].id);
    expect((await owner.b.dash('GET', `${inst()}/sms`)).status).toBe(200);
    const live = (await owner.b.dash('GET', `/accounts/${owner.accountId}/instances`)).body.data.find(
      (i: { environment: string }) => i.environment === 'live',
    );
    const refused = await owner.b.dash('GET', `/accounts/${owner.accountId}/instances/${live.id}/emails`);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].meta.reason).toBe('live_instance');
    const text = await sendSms(h.runtime.deps, {
      instanceId: live.id,
      to: '+14155550142',
      template: 'verification_code',
      data: { code: '424242' },
    });
    const texts = await owner.b.dash('GET', `/accounts/${owner.accountId}/instances/${live.id}/sms`);
    expect(texts.status).toBe(200);
    expect(texts.body.data).toEqual([{ ...text, body: null, data: {}, body_redacted: true }]);
    const textOne = await owner.b.dash('GET', `/accounts/${owner.accountId}/instances/${live.id}/sms/${text.id}`);
    expect(textOne.body).toMatchObject({ id: text.id, status: 'delivered', body: null, body_redacted: true });
    expect(JSON.stringify([texts.body, textOne.body])).not.toContain('424242');
  });

  it('deletes a user, audited', async () => {
    const del = await owner.b.dash('DELETE', `${inst()}/users/${userId}`);
    expect(del.body).toEqual({ object: 'user', id: userId, deleted: true });
    expect((await owner.b.dash('GET', `${inst()}/users/${userId}`)).status).toBe(404);
    expect((await auditOf(dev.instance.id, 'user.deleted'))[0]!.actor).toBe(`operator:${owner.operator.id}`);
  });
});

describe('invitations and roles', () => {
  let viewer: ConsoleBrowser;
  let admin: ConsoleBrowser;
  let viewerAccountId: string;

  it('invites an operator by email; accepting creates and signs them in; the token works once', async () => {
    const inv = await owner.b.dash('POST', `/accounts/${owner.accountId}/invitations`, {
      body: { email_address: 'vera@example.com', role: 'viewer' },
    });
    expect(inv.status).toBe(201);
    expect(inv.body).toMatchObject({ object: 'account_invitation', email_address: 'vera@example.com', role: 'viewer', status: 'pending' });
    const [mail] = await h.outbox('vera@example.com');
    // The accept link is in the answer (to pass on where no mail goes out), and never again.
    expect(inv.body.url).toBe(mail!.data.url);
    expect(mail!.template).toBe('invitation');
    expect(String(mail!.data.inviter_name)).toBe('Olive');
    const token = new URL(String(mail!.data.url)).searchParams.get('token')!;
    expect(String(mail!.data.url)).toMatch(/^http:\/\/localhost:3000\/accept-invitation\?token=inv_/);
    const listed = (await owner.b.dash('GET', `/accounts/${owner.accountId}/invitations`)).body.data;
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toMatch(/\binv_[A-Za-z0-9_-]{43}/);

    viewer = consoleBrowser(h, platform);
    expect((await viewer.dash('POST', '/invitations/accept', { body: { token } })).status).toBe(422);
    const accepted = await viewer.dash('POST', '/invitations/accept', {
      body: { token, password: 'viewer passphrase', first_name: 'Vera' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.accounts).toEqual([expect.objectContaining({ id: owner.accountId, role: 'viewer' })]);
    expect(viewer.cookie).toMatch(/^ct_/);
    expect(
      (await consoleBrowser(h, platform).dash('POST', '/invitations/accept', { body: { token, password: 'viewer passphrase' } })).status,
    ).toBe(403);
    const members = await owner.b.dash('GET', `/accounts/${owner.accountId}/members`);
    expect(members.body.data.map((m: { email_address: string; role: string }) => [m.email_address, m.role])).toEqual([
      ['owner@example.com', 'owner'],
      ['vera@example.com', 'viewer'],
    ]);
    // The new operator signs in again through the platform FAPI.
    await signIn(consoleBrowser(h, platform), 'vera@example.com', 'viewer passphrase');
  });

  it('a signed-in operator accepts with the invited address only', async () => {
    const other = await owner.b.dash('POST', '/accounts', { body: { name: 'Side project' } });
    expect(other.status).toBe(201);
    await owner.b.dash('POST', `/accounts/${other.body.id}/invitations`, {
      body: { email_address: 'someone-else@example.com', role: 'admin' },
    });
    const [mail] = await h.outbox('someone-else@example.com');
    const token = new URL(String(mail!.data.url)).searchParams.get('token')!;
    const res = await viewer.dash('POST', '/invitations/accept', { body: { token } });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].meta.reason).toBe('email_mismatch');
  });

  it('an invitation never lowers a role already held', async () => {
    await owner.b.dash('POST', `/accounts/${owner.accountId}/invitations`, {
      body: { email_address: 'owner@example.com', role: 'viewer' },
    });
    const token = new URL(String((await h.outbox('owner@example.com'))[0]!.data.url)).searchParams.get('token')!;
    const res = await owner.b.dash('POST', '/invitations/accept', { body: { token } });
    expect(res.status).toBe(200);
    expect(res.body.accounts.find((a: { id: string }) => a.id === owner.accountId).role).toBe('owner');
  });

  it('viewers read but cannot write (403)', async () => {
    const base = `/accounts/${owner.accountId}/instances`;
    expect((await viewer.dash('GET', base)).status).toBe(200);
    expect((await viewer.dash('GET', `${base}/${dev.instance.id}/users`)).status).toBe(200);
    const writes: [string, string, unknown][] = [
      ['POST', base, { name: 'Nope' }],
      ['PATCH', `${base}/${dev.instance.id}/settings`, { mfa_required: true }],
      ['POST', `${base}/${dev.instance.id}/keys`, {}],
      ['POST', `/accounts/${owner.accountId}/invitations`, { email_address: 'z@example.com' }],
    ];
    for (const [method, path, body] of writes) {
      const res = await viewer.dash(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', meta: { reason: 'role_required' } });
    }
  });

  it('an admin cannot invite an owner', async () => {
    const inv = await owner.b.dash('POST', `/accounts/${owner.accountId}/invitations`, {
      body: { email_address: 'adam@example.com', role: 'admin' },
    });
    const token = new URL(String((await h.outbox('adam@example.com'))[0]!.data.url)).searchParams.get('token')!;
    admin = consoleBrowser(h, platform);
    expect((await admin.dash('POST', '/invitations/accept', { body: { token, password: 'admin passphrase' } })).status).toBe(200);
    expect(inv.status).toBe(201);
    const res = await admin.dash('POST', `/accounts/${owner.accountId}/invitations`, {
      body: { email_address: 'o2@example.com', role: 'owner' },
    });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].meta.reason).toBe('role_too_high');
    expect(
      (await admin.dash('PATCH', `/accounts/${owner.accountId}/instances/${dev.instance.id}/settings`, { body: { mfa_required: false } }))
        .status,
    ).toBe(200);
  });

  it('revokes a pending invitation; its link stops working', async () => {
    const inv = await owner.b.dash('POST', `/accounts/${owner.accountId}/invitations`, {
      body: { email_address: 'revoke-me@example.com' },
    });
    expect(inv.body.role).toBe('viewer');
    const token = new URL(String((await h.outbox('revoke-me@example.com'))[0]!.data.url)).searchParams.get('token')!;
    const revoked = await owner.b.dash('POST', `/accounts/${owner.accountId}/invitations/${inv.body.id}/revoke`);
    expect(revoked.body.status).toBe('revoked');
    expect((await owner.b.dash('POST', `/accounts/${owner.accountId}/invitations/${inv.body.id}/revoke`)).status).toBe(409);
    expect(
      (await consoleBrowser(h, platform).dash('POST', '/invitations/accept', { body: { token, password: 'some passphrase' } })).status,
    ).toBe(403);
  });

  it('owners change roles and remove members; an account keeps an owner', async () => {
    const members = (await owner.b.dash('GET', `/accounts/${owner.accountId}/members`)).body.data as {
      id: string;
      email_address: string;
    }[];
    const id = (email: string) => members.find((m) => m.email_address === email)!.id;
    const url = (email: string) => `/accounts/${owner.accountId}/members/${id(email)}`;
    expect((await admin.dash('PATCH', url('vera@example.com'), { body: { role: 'admin' } })).status).toBe(403);
    const promoted = await owner.b.dash('PATCH', url('vera@example.com'), { body: { role: 'admin' } });
    expect(promoted.body).toMatchObject({ role: 'admin', email_address: 'vera@example.com' });
    await owner.b.dash('PATCH', url('vera@example.com'), { body: { role: 'viewer' } });
    const lastOwner = await owner.b.dash('PATCH', url('owner@example.com'), { body: { role: 'admin' } });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body.errors[0].meta.reason).toBe('last_owner');
    expect((await owner.b.dash('DELETE', url('adam@example.com'))).body).toMatchObject({ deleted: true });
    expect((await admin.dash('GET', `/accounts/${owner.accountId}/instances`)).status).toBe(404);
    expect((await admin.dash('GET', '/me')).body.accounts).toEqual([]);
    expect((await auditOf(null, 'account_membership.removed'))[0]!.actor).toBe(`operator:${owner.operator.id}`);
  });

  it('another account’s ids answer 404, with the same body as missing ones', async () => {
    const mine = await viewer.dash('POST', '/accounts', { body: { name: 'Vera’s' } });
    viewerAccountId = mine.body.id;
    const theirs = await viewer.dash('POST', `/accounts/${viewerAccountId}/instances`, { body: { name: 'Vera app' } });
    expect(theirs.status).toBe(201);
    const missingAccount = await owner.b.dash('GET', `/accounts/acct_01ARZ3NDEKTSV4RRFFQ69G5FAV/instances`);
    const foreignAccount = await owner.b.dash('GET', `/accounts/${viewerAccountId}/instances`);
    expect(foreignAccount.status).toBe(404);
    expect(foreignAccount.body.errors).toEqual(missingAccount.body.errors);
    // Writes too: 404, not 403.
    expect((await owner.b.dash('POST', `/accounts/${viewerAccountId}/instances`, { body: { name: 'x' } })).status).toBe(404);
    // Their instance under my account id, and the platform instance: 404 like a missing one.
    const missingInstance = await owner.b.dash('GET', `/accounts/${owner.accountId}/instances/ins_01ARZ3NDEKTSV4RRFFQ69G5FAV`);
    for (const id of [theirs.body.id, platform.id]) {
      const res = await owner.b.dash('GET', `/accounts/${owner.accountId}/instances/${id}/users`);
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual(missingInstance.body.errors);
    }
    // A viewer asking a foreign instance under their own account with a write: 404 before 403.
    expect((await viewer.dash('POST', `/accounts/${owner.accountId}/instances/${theirs.body.id}/keys`, { body: {} })).status).toBe(404);
    expect((await owner.b.dash('GET', '/accounts/not-an-id/instances')).status).toBe(404);
  });

  it('refuses cookie-authenticated writes without the console Origin (CSRF)', async () => {
    const url = `/accounts/${owner.accountId}/instances`;
    for (const origin of [null, 'https://evil.example', 'http://localhost:3001']) {
      const res = await owner.b.dash('POST', url, { body: { name: 'csrf' }, origin });
      expect(res.status, String(origin)).toBe(403);
      expect(res.body.errors[0].code).toBe('ORIGIN_NOT_ALLOWED');
    }
    const viaReferer = await owner.b.dash('POST', url, {
      body: { name: 'via referer' },
      origin: null,
      headers: { referer: 'http://localhost:3000/instances' },
    });
    expect(viaReferer.status).toBe(201);
    // Reads need no Origin.
    expect((await owner.b.dash('GET', url, { origin: null })).status).toBe(200);
  });
});
