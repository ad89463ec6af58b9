import { createPublicKey } from 'node:crypto';
import { createClerkClient, verifyToken } from '@clerk/backend';
import { verifyWebhook } from '@clerk/backend/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '../../../http/actor';
import { instanceContext } from '../../../instances/instances';
import { beginTotpEnrollment, confirmTotp } from '../../../users/mfa';
import { createTestUser, setSettings, signedInClient, totpCode } from '../../../testing/fapi-helpers';
import { TestClock } from '../../../testing/harness';
import { sharedApiServer } from '../../../testing/api-server';
import { sharedInstance } from '../../../testing/harness';
import { answer, startWebhookReceiver, type WebhookReceiver } from '../../../testing/webhook-receiver';
import { runWebhookWorkerOnce } from '../../../webhooks/worker';

/**
 * Clerk's own backend SDK (`@clerk/backend`), unchanged and with its default options (its own
 * fetch), against the API on a real socket: only `apiUrl` points at Latchkey.
 */
const api = sharedApiServer({ clock: TestClock.running(), env: { BAPI_RATE_LIMIT: '100000', ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
const h = api.h;
const inst = sharedInstance(h);
const API_URL = () => api.apiUrl;
let rx: WebhookReceiver;

beforeAll(async () => {
  rx = await startWebhookReceiver();
});
afterAll(async () => {
  await rx?.close();
});

const clerk = () => createClerkClient({ secretKey: inst.secret, publishableKey: inst.publishableKey, apiUrl: API_URL(), apiVersion: 'v1' });
let seq = 0;
const email = () => `sdk${++seq}.${Date.now()}@example.com`;

/** The error the SDK throws, for its status, code, param and trace. */
async function sdkError(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) =>
      e as { status: number; clerkTraceId: string; errors: { code: string; meta?: { paramName?: string } }[]; clerkError?: boolean },
  );
  expect(err, 'the call should have failed').not.toBeNull();
  return err!;
}

describe('@clerk/backend: refreshSession', () => {
  it('exchanges the refresh token, checking that expired_token is this session’s', async () => {
    const c = clerk();
    const u = await c.users.createUser({ emailAddress: [email()] });
    // Latchkey's BAPI mints the session with its refresh token (the SDK's Session type drops it).
    const minted = (await h.call('POST', '/v1/sessions', { key: inst.secret, body: { user_id: u.id } })).body as {
      id: string;
      jwt: string;
      refresh_token: string;
    };
    const other = (await h.call('POST', '/v1/sessions', { key: inst.secret, body: { user_id: u.id } })).body as { jwt: string };

    const mismatched = await sdkError(
      c.sessions.refreshSession(minted.id, {
        expired_token: other.jwt,
        refresh_token: minted.refresh_token,
        request_origin: 'https://app.example.com',
      }),
    );
    expect(mismatched.status).toBe(401);
    expect(mismatched.errors[0]!.code).toBe('TOKEN_INVALID');

    const refreshed = await c.sessions.refreshSession(minted.id, {
      expired_token: minted.jwt,
      refresh_token: minted.refresh_token,
      request_origin: 'https://app.example.com',
    });
    const claims = await verifyToken(refreshed.jwt, { secretKey: inst.secret, apiUrl: API_URL(), apiVersion: 'v1' });
    expect(claims.sid).toBe(minted.id);
    // The refresh token rotates: the answer (the SDK hands it over as parsed) carries the next one, which refreshes again.
    const next = (refreshed as unknown as { refresh_token: string }).refresh_token;
    expect(next).toMatch(/^rt_/);
    expect(next).not.toBe(minted.refresh_token);
    const again = await c.sessions.refreshSession(minted.id, {
      expired_token: refreshed.jwt,
      refresh_token: next,
      request_origin: 'https://app.example.com',
    });
    expect(again.jwt).toMatch(/^ey/);
  });
});

describe('@clerk/backend: users', () => {
  it('creates, gets, lists with filters and offset, counts, updates, bans and deletes', async () => {
    const c = clerk();
    const a = await c.users.createUser({
      emailAddress: [email()],
      password: 'correct horse battery staple 9',
      firstName: 'Ann',
      externalId: 'ext-ann',
    });
    const b = await c.users.createUser({ emailAddress: [email()], skipPasswordRequirement: true, firstName: 'Bob' });
    expect(a.id).toMatch(/^user_/);
    expect(a.emailAddresses[0]!.linkedTo).toEqual([]);
    expect(a.imageUrl).toBe('');
    expect((await c.users.getUser(a.id)).firstName).toBe('Ann');

    const all = await c.users.getUserList({ limit: 1, offset: 1, orderBy: '-created_at' });
    expect(all.totalCount).toBeGreaterThanOrEqual(2);
    expect(all.data).toHaveLength(1);
    const first = await c.users.getUserList({ limit: 1 });
    expect(first.data[0]!.id).not.toBe(all.data[0]!.id);
    const filtered = await c.users.getUserList({ externalId: ['ext-ann'] });
    expect(filtered.data.map((u) => u.id)).toEqual([a.id]);
    expect(filtered.totalCount).toBe(1);
    expect(await c.users.getCount({ externalId: ['ext-ann'] })).toBe(1);

    expect((await c.users.updateUser(b.id, { lastName: 'Builder' })).lastName).toBe('Builder');
    await c.users.updateUserMetadata(b.id, { publicMetadata: { plan: 'pro', nested: { a: 1 } } });
    const merged = await c.users.updateUserMetadata(b.id, { publicMetadata: { nested: { b: 2 } }, privateMetadata: { note: 'x' } });
    expect(merged.publicMetadata).toEqual({ plan: 'pro', nested: { a: 1, b: 2 } });
    expect(merged.privateMetadata).toEqual({ note: 'x' });

    expect((await c.users.banUser(b.id)).banned).toBe(true);
    expect((await c.users.unbanUser(b.id)).banned).toBe(false);
    expect((await c.users.unlockUser(b.id)).locked).toBe(false);
    const deleted = await c.users.deleteUser(b.id);
    expect(deleted.id).toBe(b.id);
  });

  it('sets (multipart upload) and deletes a profile image', async () => {
    const c = clerk();
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    const u = await c.users.createUser({ emailAddress: [email()], skipPasswordRequirement: true });
    const withImage = await c.users.updateUserProfileImage(u.id, { file: new Blob([png], { type: 'image/png' }) });
    expect(withImage.hasImage).toBe(true);
    const image = await h.request('GET', new URL(withImage.imageUrl).pathname);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
    const cleared = await c.users.deleteUserProfileImage(u.id);
    expect(cleared.hasImage).toBe(false);
    expect(cleared.imageUrl).toBe('');
  });

  it('locks and unlocks a user, and turns off their MFA (lockUser, unlockUser, disableUserMFA)', async () => {
    const c = clerk();
    const u = await c.users.createUser({ emailAddress: [email()], skipPasswordRequirement: true });
    const locked = await c.users.lockUser(u.id);
    expect(locked.locked).toBe(true);
    expect((await c.users.getUser(u.id)).locked).toBe(true);
    expect((await c.users.unlockUser(u.id)).locked).toBe(false);

    // Enrolled in place (the server runs on the real clock: the session tests verify JWTs against real time).
    const context = await instanceContext(h.runtime.deps, inst.instanceId);
    const { secret } = await beginTotpEnrollment(h.runtime.deps, context, u.id);
    await confirmTotp(h.runtime.deps, context, u.id, totpCode(h, secret), null, systemContext('test'));
    expect((await c.users.getUser(u.id)).twoFactorEnabled).toBe(true);
    const off = (await c.users.disableUserMFA(u.id)) as unknown as { user_id?: string };
    expect(off.user_id).toBe(u.id);
    expect((await c.users.getUser(u.id)).twoFactorEnabled).toBe(false);
    expect((await sdkError(c.users.lockUser('user_01ZZZZZZZZZZZZZZZZZZZZZZZZ'))).status).toBe(404);
  });

  it('throws ClerkAPIResponseError with the status, code, param and trace on 404 and 422', async () => {
    const c = clerk();
    const missing = await sdkError(c.users.getUser('user_01ZZZZZZZZZZZZZZZZZZZZZZZZ'));
    expect(missing.status).toBe(404);
    expect(missing.errors[0]!.code).toBe('NOT_FOUND');
    expect(missing.clerkTraceId).toMatch(/^req_/);
    const invalid = await sdkError(c.users.createUser({ emailAddress: ['not an email'] }));
    expect(invalid.status).toBe(422);
    expect(invalid.errors[0]!.code).toBe('VALIDATION_FAILED');
    expect(invalid.errors[0]!.meta?.paramName).toMatch(/^email_address/);
  });
});

describe('@clerk/backend: sessions and tokens', () => {
  it('creates, gets, lists, gets a token, verifies and revokes a session', async () => {
    const c = clerk();
    const u = await c.users.createUser({ emailAddress: [email()] });
    const s = await c.sessions.createSession({ userId: u.id });
    expect(s.id).toMatch(/^sess_/);
    const got = await c.sessions.getSession(s.id);
    expect(got.userId).toBe(u.id);
    expect(got.status).toBe('active');
    const list = await c.sessions.getSessionList({ userId: u.id });
    expect(list.data.map((x) => x.id)).toEqual([s.id]);
    expect(list.totalCount).toBe(1);

    const { jwt } = await c.sessions.getToken(s.id);
    const verified = await c.sessions.verifySession(s.id, jwt);
    expect(verified.id).toBe(s.id);

    // verifyToken with the JWKS fetched from the BAPI, and with the PEM of that key.
    const claims = await verifyToken(jwt, { secretKey: inst.secret, apiUrl: API_URL(), apiVersion: 'v1' });
    expect(claims.sub).toBe(u.id);
    expect(claims.sid).toBe(s.id);
    const jwks = await c.jwks.getJwks();
    const pem = createPublicKey({ key: jwks.keys![0] as never, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    expect((await verifyToken(jwt, { jwtKey: pem })).sid).toBe(s.id);

    // authenticateRequest with a bearer token. The SDK parses the publishable key only to
    // find the frontend API for cookie handshakes; it wants standard base64 of a dotted host.
    const sdkPublishableKey = `pk_test_${Buffer.from('latchkey.example.com$').toString('base64')}`;
    const state = await createClerkClient({
      secretKey: inst.secret,
      publishableKey: sdkPublishableKey,
      apiUrl: API_URL(),
    }).authenticateRequest(new Request('https://app.example.com/api', { headers: { authorization: `Bearer ${jwt}` } }), {
      jwtKey: pem,
    });
    expect(state.isAuthenticated).toBe(true);
    expect(state.toAuth()).toMatchObject({ userId: u.id, sessionId: s.id });

    const template = await sdkError(c.sessions.getToken(s.id, 'supabase'));
    expect(template.status).toBe(404);

    expect((await c.sessions.revokeSession(s.id)).status).toBe('revoked');
    const afterRevoke = await sdkError(c.sessions.getToken(s.id));
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.errors[0]!.code).toBe('SESSION_REVOKED');
  });

  it('creates and revokes actor tokens and sign-in tokens', async () => {
    const c = clerk();
    const u = await c.users.createUser({ emailAddress: [email()] });
    const admin = await c.users.createUser({ emailAddress: [email()] });
    const at = await c.actorTokens.create({ userId: u.id, actor: { sub: admin.id } });
    expect(at.userId).toBe(u.id);
    expect(at.token).toBeTruthy();
    expect((await c.actorTokens.revoke(at.id)).status).toBe('revoked');
    const st = await c.signInTokens.createSignInToken({ userId: u.id, expiresInSeconds: 600 });
    expect(st.token).toBeTruthy();
    expect((await c.signInTokens.revokeSignInToken(st.id)).status).toBe('revoked');
  });
});

describe('@clerk/backend: organizations', () => {
  it('sets (multipart upload, naming the uploader) and deletes an organization’s logo (updateOrganizationLogo, deleteOrganizationLogo)', async () => {
    const c = clerk();
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    const owner = await c.users.createUser({ emailAddress: [email()] });
    const org = await c.organizations.createOrganization({ name: 'Logo Co', createdBy: owner.id });
    expect(org.hasImage).toBe(false);
    const withLogo = await c.organizations.updateOrganizationLogo(org.id, {
      file: new Blob([png], { type: 'image/png' }),
      uploaderUserId: owner.id,
    });
    expect(withLogo.hasImage).toBe(true);
    expect(withLogo.imageUrl).toContain(`/v1/organization_logos/${org.id}/`);
    const image = await h.request('GET', new URL(withLogo.imageUrl).pathname);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
    const cleared = await c.organizations.deleteOrganizationLogo(org.id);
    expect(cleared.hasImage).toBe(false);
    expect(cleared.imageUrl).toBe('');
  });

  it('manages an organization, its metadata, memberships and invitations', async () => {
    const c = clerk();
    const owner = await c.users.createUser({ emailAddress: [email()] });
    const member = await c.users.createUser({ emailAddress: [email()] });
    const org = await c.organizations.createOrganization({ name: 'Acme', createdBy: owner.id });
    expect((await c.organizations.getOrganization({ organizationId: org.id })).name).toBe('Acme');
    expect((await c.organizations.updateOrganization(org.id, { name: 'Acme Inc' })).name).toBe('Acme Inc');
    const withMeta = await c.organizations.updateOrganizationMetadata(org.id, { publicMetadata: { tier: 'gold' } });
    expect(withMeta.publicMetadata).toEqual({ tier: 'gold' });
    const orgs = await c.organizations.getOrganizationList();
    expect(orgs.data.map((o) => o.id)).toContain(org.id);
    expect(orgs.totalCount).toBeGreaterThanOrEqual(1);

    const m = await c.organizations.createOrganizationMembership({ organizationId: org.id, userId: member.id, role: 'org:member' });
    expect(m.organization.id).toBe(org.id);
    expect(m.publicUserData?.userId).toBe(member.id);
    const members = await c.organizations.getOrganizationMembershipList({ organizationId: org.id });
    expect(members.totalCount).toBe(2);
    // The list counts members as the organization's own read does.
    const counted = await c.organizations.getOrganizationList({ includeMembersCount: true, query: org.slug });
    expect(counted.data.map((o) => [o.id, o.membersCount])).toEqual([[org.id, 2]]);
    expect((await c.organizations.getOrganization({ organizationId: org.id })).membersCount).toBe(2);
    expect(
      (await c.organizations.updateOrganizationMembership({ organizationId: org.id, userId: member.id, role: 'org:admin' })).role,
    ).toBe('org:admin');
    const mine = await c.users.getOrganizationMembershipList({ userId: member.id });
    expect(mine.data.map((x) => x.organization.id)).toEqual([org.id]);
    await c.organizations.deleteOrganizationMembership({ organizationId: org.id, userId: member.id });

    const inv = await c.organizations.createOrganizationInvitation({
      organizationId: org.id,
      emailAddress: email(),
      role: 'org:member',
      inviterUserId: owner.id,
    });
    expect(inv.status).toBe('pending');
    expect((await c.organizations.getOrganizationInvitationList({ organizationId: org.id })).data.map((i) => i.id)).toEqual([inv.id]);
    expect((await c.organizations.getOrganizationInvitation({ organizationId: org.id, invitationId: inv.id })).id).toBe(inv.id);
    const revoked = await c.organizations.revokeOrganizationInvitation({
      organizationId: org.id,
      invitationId: inv.id,
      requestingUserId: owner.id,
    });
    expect(revoked.status).toBe('revoked');
    await c.organizations.deleteOrganization(org.id);
  });
});

describe('@clerk/backend: invitations and allowlist, honoured by restricted sign-up', () => {
  it('invites an address, lists and revokes invitations, and manages the allowlist', async () => {
    const c = clerk();
    const invited = email();
    const inv = await c.invitations.createInvitation({ emailAddress: invited, publicMetadata: { from: 'sdk' } });
    expect(inv.id).toMatch(/^inv_/);
    expect(inv.status).toBe('pending');
    const dup = await sdkError(c.invitations.createInvitation({ emailAddress: invited }));
    expect(dup.status).toBe(409);
    const list = await c.invitations.getInvitationList({ status: 'pending' });
    expect(list.data.map((i) => i.id)).toContain(inv.id);
    expect(list.totalCount).toBeGreaterThanOrEqual(1);
    expect((await c.invitations.revokeInvitation(inv.id)).status).toBe('revoked');

    const al = await c.allowlistIdentifiers.createAllowlistIdentifier({ identifier: 'partner.example', notify: false });
    expect(al.identifierType).toBe('domain');
    expect((await c.allowlistIdentifiers.getAllowlistIdentifierList()).data.map((x) => x.identifier)).toContain('partner.example');
    await c.allowlistIdentifiers.deleteAllowlistIdentifier(al.id);
    expect((await c.allowlistIdentifiers.getAllowlistIdentifierList()).data).toEqual([]);
  });

  it('restricted sign-up refuses an outsider and admits the same address once invited', async () => {
    const fresh = await h.createInstance();
    await setSettings(h, fresh.instanceId, { sign_up_mode: 'restricted' });
    const fapi = (path: string, body: unknown) =>
      h.call('POST', `/fapi/${fresh.instanceId}${path}`, { body, headers: { 'x-publishable-key': fresh.publishableKey } });
    const outsider = email();
    const refused = await fapi('/v1/client/sign_ups', { email_address: outsider, password: 'correct horse battery staple 9' });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('SIGN_UP_NOT_ALLOWED');
    const other = createClerkClient({ secretKey: fresh.secret, apiUrl: API_URL(), apiVersion: 'v1' });
    await other.invitations.createInvitation({ emailAddress: outsider });
    const admitted = await fapi('/v1/client/sign_ups', { email_address: outsider, password: 'correct horse battery staple 9' });
    expect(admitted.status, JSON.stringify(admitted.body)).toBe(200);
  });
});

describe('@clerk/backend/webhooks', () => {
  it('verifyWebhook accepts a delivery to an endpoint with svix_headers', async () => {
    rx.reply = answer(200, 'ok');
    const created = await h.call('POST', '/v1/webhook_endpoints', {
      key: inst.secret,
      body: { url: `${rx.url}/clerk`, svix_headers: true },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.svix_headers).toBe(true);
    expect((await h.call('POST', `/v1/webhook_endpoints/${created.body.id}/test`, { key: inst.secret })).status).toBe(202);
    const next = rx.next();
    await runWebhookWorkerOnce(h.runtime.deps);
    const got = await next;
    expect(got.headers['svix-signature']).toBe(got.headers['webhook-signature']);
    const headers = new Headers();
    for (const [k, v] of Object.entries(got.headers)) if (typeof v === 'string') headers.set(k, v);
    const evt = await verifyWebhook(new Request('https://app.example.com/webhooks', { method: 'POST', headers, body: got.body }), {
      signingSecret: created.body.secret,
    });
    expect(evt.type).toBe('webhook.test');
    const tampered = new Request('https://app.example.com/webhooks', {
      method: 'POST',
      headers,
      body: got.body.replace('webhook.test', 'user.deleted'),
    });
    await expect(verifyWebhook(tampered, { signingSecret: created.body.secret })).rejects.toThrow();
  });
});

describe('without the Clerk-API-Version header, the contract is unchanged', () => {
  it('lists keep the cursor envelope, refuse offset, and JSON keeps its charset', async () => {
    const list = await h.call('GET', '/v1/users?limit=1', { key: inst.secret });
    expect(list.status).toBe(200);
    expect(Object.keys(list.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(list.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const offset = await h.call('GET', '/v1/users?offset=1', { key: inst.secret });
    expect(offset.status).toBe(422);
    expect(offset.body.errors[0].meta).toEqual({ param: 'offset', reason: 'unknown_field' });
    expect(offset.body).not.toHaveProperty('clerk_trace_id');
    const clerkMode = await h.call('GET', '/v1/users?limit=1&offset=0&paginated=true', {
      key: inst.secret,
      headers: { 'clerk-api-version': '2025-11-10' },
    });
    expect(clerkMode.headers.get('content-type')).toBe('application/json');
    expect(Object.keys(clerkMode.body).sort()).toEqual(['data', 'total_count']);
  });
});

describe('azp in session JWTs', () => {
  it('carries the allowed browser origin that asked for the token, so authorizedParties works', async () => {
    const fresh = await h.createInstance();
    await setSettings(h, fresh.instanceId, { allowed_origins: ['https://app.example.com'] });
    const userId = await createTestUser(h, fresh, { email_address: [email()] });
    const { b, sessionId } = await signedInClient(h, fresh, userId);
    const res = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`, { origin: 'https://app.example.com' });
    expect(res.status).toBe(200);
    const other = createClerkClient({
      secretKey: fresh.secret,
      publishableKey: `pk_test_${Buffer.from('latchkey.example.com$').toString('base64')}`,
      apiUrl: API_URL(),
      apiVersion: 'v1',
    });
    const bearer = () => new Request('https://app.example.com/api', { headers: { authorization: `Bearer ${res.body.jwt}` } });
    expect((await other.authenticateRequest(bearer(), { authorizedParties: ['https://app.example.com'] })).isAuthenticated).toBe(true);
    expect((await other.authenticateRequest(bearer(), { authorizedParties: ['https://elsewhere.example.com'] })).isAuthenticated).toBe(
      false,
    );
  });
});
