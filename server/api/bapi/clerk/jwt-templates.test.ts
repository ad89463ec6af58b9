import { createClerkClient, verifyToken } from '@clerk/backend';
import { and, eq } from 'drizzle-orm';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { auditLogs } from '../../../db/schema';
import { createTestUser, setSettings, signedInClient } from '../../../testing/fapi-helpers';
import { TestClock } from '../../../testing/harness';
import { sharedApiServer } from '../../../testing/api-server';
import { sharedInstance } from '../../../testing/harness';

/**
 * Named JWT templates: the BAPI's /v1/jwt_templates (raw and through `@clerk/backend`), and
 * tokens minted from them over the BAPI (`sessions.getToken(id, template)`) and the FAPI
 * (clerk-js's `session.getToken({ template })`), verified with jose against the instance's
 * JWKS and with `@clerk/backend`'s verifyToken. The SDK runs with its default options (its own
 * fetch) against the API on a real socket, PUBLIC_URL = its address.
 */
const api = sharedApiServer({ clock: TestClock.running(), env: { BAPI_RATE_LIMIT: '100000' } });
const h = api.h;
const inst = sharedInstance(h);
const API_URL = () => api.apiUrl;
const FAPI_URL = () => `${API_URL()}/fapi/${inst.instanceId}`;

const clerk = () => createClerkClient({ secretKey: inst.secret, publishableKey: inst.publishableKey, apiUrl: API_URL(), apiVersion: 'v1' });
let seq = 0;
const email = () => `jwt${++seq}.${Date.now()}@example.com`;
const create = (body: Record<string, unknown>, key = inst.secret) => h.call('POST', '/v1/jwt_templates', { key, body });

async function instanceJwks() {
  const res = await h.call('GET', `/fapi/${inst.instanceId}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  return createLocalJWKSet(res.body);
}

async function auditOf(action: string, target: string) {
  return h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.action, action), eq(auditLogs.target, target)));
}

describe('BAPI /v1/jwt_templates', () => {
  it('creates with defaults, reads, lists, updates and deletes a template, auditing each change', async () => {
    const created = await create({ name: 'hasura', claims: { role: 'member', email: '{{user.primary_email_address}}' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'jwt_template',
      name: 'hasura',
      claims: { role: 'member', email: '{{user.primary_email_address}}' },
      lifetime: 60,
      allowed_clock_skew: 5,
      custom_signing_key: false,
      signing_algorithm: 'RS256',
    });
    const id = created.body.id as string;
    expect(id).toMatch(/^jtmp_[0-9A-HJKMNP-TV-Z]{26}$/);

    expect((await h.call('GET', `/v1/jwt_templates/${id}`, { key: inst.secret })).body).toEqual(created.body);
    const list = await h.call('GET', '/v1/jwt_templates', { key: inst.secret });
    expect(Object.keys(list.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain(id);

    const patched = await h.call('PATCH', `/v1/jwt_templates/${id}`, {
      key: inst.secret,
      body: { lifetime: 3600, allowed_clock_skew: 0, claims: { role: 'admin' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'hasura', lifetime: 3600, allowed_clock_skew: 0, claims: { role: 'admin' } });
    const reset = await h.call('PATCH', `/v1/jwt_templates/${id}`, { key: inst.secret, body: { lifetime: null } });
    expect(reset.body.lifetime).toBe(60);

    const deleted = await h.call('DELETE', `/v1/jwt_templates/${id}`, { key: inst.secret });
    expect(deleted.body).toEqual({ object: 'jwt_template', id, deleted: true });
    expect((await h.call('GET', `/v1/jwt_templates/${id}`, { key: inst.secret })).status).toBe(404);
    expect((await h.call('DELETE', `/v1/jwt_templates/${id}`, { key: inst.secret })).status).toBe(404);

    const [createdEntry] = await auditOf('jwt_template.created', id);
    expect(createdEntry).toMatchObject({ instanceId: inst.instanceId, actorKind: 'secret_key', details: { name: 'hasura' } });
    const updates = await auditOf('jwt_template.updated', id);
    expect(updates.map((e) => e.details)).toEqual([{ fields: ['allowed_clock_skew', 'claims', 'lifetime'] }, { fields: ['lifetime'] }]);
    expect(await auditOf('jwt_template.deleted', id)).toHaveLength(1);
  });

  it('refuses bad names, reserved claims, unknown shortcodes, out-of-range numbers, custom keys and a taken name (422), with nothing written', async () => {
    const cases: Array<[Record<string, unknown>, string, string?]> = [
      [{ name: 'has space', claims: {} }, 'name'],
      [{ name: 'x'.repeat(65), claims: {} }, 'name'],
      [{ name: '', claims: {} }, 'name'],
      [{ name: 'ok', claims: { sub: 'someone' } }, 'claims', 'reserved_claim'],
      [{ name: 'ok', claims: { sid: 'sess_x' } }, 'claims', 'reserved_claim'],
      [{ name: 'ok', claims: { iss: 'https://evil.example' } }, 'claims', 'reserved_claim'],
      [{ name: 'ok', claims: { x: '{{user.password}}' } }, 'claims', 'unknown_shortcode'],
      [{ name: 'ok', claims: { big: 'x'.repeat(5000) } }, 'claims', 'too_large'],
      [{ name: 'ok', claims: {}, lifetime: 29 }, 'lifetime'],
      [{ name: 'ok', claims: {}, lifetime: 3601 }, 'lifetime'],
      [{ name: 'ok', claims: {}, allowed_clock_skew: 31 }, 'allowed_clock_skew'],
      [{ name: 'ok', claims: {}, custom_signing_key: true, signing_algorithm: 'HS256', signing_key: 'k' }, 'custom_signing_key'],
      [{ name: 'ok', claims: [] }, 'claims'],
    ];
    for (const [body, param, reason] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors[0].code).toBe('VALIDATION_FAILED');
      expect(res.body.errors[0].meta.param, JSON.stringify(body)).toMatch(new RegExp(`^${param}`));
      if (reason) expect(res.body.errors[0].meta.reason).toBe(reason);
    }
    expect((await create({ name: 'dup', claims: {} })).status).toBe(200);
    const taken = await create({ name: 'dup', claims: { a: 1 } });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].meta).toMatchObject({ param: 'name', reason: 'taken' });
    const other = await create({ name: 'other', claims: {} });
    const renamed = await h.call('PATCH', `/v1/jwt_templates/${other.body.id}`, { key: inst.secret, body: { name: 'dup' } });
    expect(renamed.body.errors[0].meta).toMatchObject({ param: 'name', reason: 'taken' });
    // `aud` is the template's to set (the service the token is for).
    expect((await create({ name: 'with-aud', claims: { aud: 'convex' } })).status).toBe(200);
  });

  it('needs jwt_templates scopes, and another instance’s template is 404', async () => {
    const reader = await h.createKey(inst.instanceId, 'jwt_templates:read');
    expect((await h.call('GET', '/v1/jwt_templates', { key: reader.secret })).status).toBe(200);
    const refused = await create({ name: 'nope', claims: {} }, reader.secret);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'jwt_templates:write' } });
    const sessionsOnly = await h.createKey(inst.instanceId, 'sessions:read');
    expect((await h.call('GET', '/v1/jwt_templates', { key: sessionsOnly.secret })).status).toBe(403);

    const mine = await create({ name: 'mine', claims: {} });
    const elsewhere = await h.createInstance();
    expect((await h.call('GET', `/v1/jwt_templates/${mine.body.id}`, { key: elsewhere.secret })).status).toBe(404);
    expect((await h.call('PATCH', `/v1/jwt_templates/${mine.body.id}`, { key: elsewhere.secret, body: { lifetime: 100 } })).status).toBe(
      404,
    );
    expect((await h.call('DELETE', `/v1/jwt_templates/${mine.body.id}`, { key: elsewhere.secret })).status).toBe(404);
  });

  it('serves @clerk/backend’s jwtTemplates API (list paginated, create, get, update, delete)', async () => {
    const c = clerk();
    const t = await c.jwtTemplates.create({
      name: 'sdk-made',
      claims: { plan: '{{user.public_metadata.plan}}' },
      lifetime: 120,
      allowedClockSkew: 10,
    });
    expect(t).toMatchObject({ name: 'sdk-made', lifetime: 120, allowedClockSkew: 10, customSigningKey: false, signingAlgorithm: 'RS256' });
    expect((await c.jwtTemplates.get(t.id)).claims).toEqual({ plan: '{{user.public_metadata.plan}}' });
    const list = await c.jwtTemplates.list();
    expect(list.data.map((x) => x.id)).toContain(t.id);
    expect(list.totalCount).toBe(list.data.length);
    const updated = await c.jwtTemplates.update({ templateId: t.id, name: 'sdk-made', claims: { plan: 'fixed' }, lifetime: 300 });
    expect(updated).toMatchObject({ lifetime: 300, claims: { plan: 'fixed' } });
    // Clerk answers the list as a plain array unless `paginated` is asked.
    const bare = await h.call('GET', '/v1/jwt_templates', { key: inst.secret, headers: { 'clerk-api-version': '2025-11-10' } });
    expect(Array.isArray(bare.body)).toBe(true);
    expect(await c.jwtTemplates.delete(t.id)).toMatchObject({ id: t.id, deleted: true });
  });
});

describe('minting: POST /v1/sessions/:id/tokens/:template and /v1/client/sessions/:id/tokens/:template', () => {
  it('BAPI: @clerk/backend’s sessions.getToken(id, template) answers a JWT verifyToken and jose accept, with the template’s claims', async () => {
    const c = clerk();
    const u = await c.users.createUser({ emailAddress: [email()], firstName: 'Ada', publicMetadata: { plan: 'pro' } });
    await c.jwtTemplates.create({
      name: 'supabase',
      claims: { aud: 'authenticated', role: 'authenticated', plan: '{{user.public_metadata.plan}}', greeting: 'hi {{user.first_name}}' },
      lifetime: 600,
      allowedClockSkew: 10,
    });
    const s = await c.sessions.createSession({ userId: u.id });
    const { jwt } = await c.sessions.getToken(s.id, 'supabase');

    const claims = await verifyToken(jwt, { secretKey: inst.secret, apiUrl: API_URL(), apiVersion: 'v1' });
    expect(claims).toMatchObject({
      iss: FAPI_URL(),
      sub: u.id,
      aud: 'authenticated',
      role: 'authenticated',
      plan: 'pro',
      greeting: 'hi Ada',
    });
    expect(claims.exp - claims.iat).toBe(600);
    expect(claims.iat - claims.nbf!).toBe(10);
    expect(claims.jti).toMatch(/^[0-9a-f]{20}$/);
    expect(claims).not.toHaveProperty('sid');
    expect(claims).not.toHaveProperty('azp');

    const { payload, protectedHeader } = await jwtVerify(jwt, await instanceJwks(), { issuer: FAPI_URL(), audience: 'authenticated' });
    expect(payload.sub).toBe(u.id);
    expect(protectedHeader.alg).toBe('RS256');
    // The session token's key: the same kid.
    expect(protectedHeader.kid).toBe(decodeProtectedHeader((await c.sessions.getToken(s.id)).jwt).kid);

    // Two tokens are two jtis.
    expect(
      (await verifyToken((await c.sessions.getToken(s.id, 'supabase')).jwt, { secretKey: inst.secret, apiUrl: API_URL() })).jti,
    ).not.toBe(claims.jti);
    // Not a session token: Latchkey's session verification refuses it.
    const asSession = await h.call('POST', '/v1/sessions/verify', { key: inst.secret, body: { token: jwt } });
    expect(asSession.status).toBeGreaterThanOrEqual(400);

    const unknown = await h.call('POST', `/v1/sessions/${s.id}/tokens/nope`, { key: inst.secret });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].meta).toMatchObject({ param: 'template' });
    expect((await h.call('POST', '/v1/sessions/sess_01J00000000000000000000000/tokens/supabase', { key: inst.secret })).status).toBe(404);

    await c.sessions.revokeSession(s.id);
    const revoked = await h.call('POST', `/v1/sessions/${s.id}/tokens/supabase`, { key: inst.secret });
    expect(revoked.status).toBe(401);
    expect(revoked.body.errors[0].code).toBe('SESSION_REVOKED');
  });

  it('FAPI: a client’s live session gets the template’s JWT with azp; another client’s session is 404, an ended one refused, an unknown template 404', async () => {
    await setSettings(h, inst.instanceId, { allowed_origins: ['https://app.example.com'] });
    const userId = await createTestUser(h, inst, { email_address: [email()], username: `fapi${Date.now()}` });
    await create({ name: 'fapi-tpl', claims: { name: '{{user.username}}', static: [1, 2] }, lifetime: 30, allowed_clock_skew: 0 });
    const { b, sessionId } = await signedInClient(h, inst, userId);

    const res = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens/fapi-tpl`, { origin: 'https://app.example.com' });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('token');
    const { payload } = await jwtVerify(res.body.jwt, await instanceJwks(), { issuer: FAPI_URL() });
    expect(payload).toMatchObject({ sub: userId, azp: 'https://app.example.com', static: [1, 2] });
    expect(payload.name).toMatch(/^fapi/);
    expect(payload.exp! - payload.iat!).toBe(30);
    expect(payload.nbf).toBe(payload.iat);
    const viaSdk = await verifyToken(res.body.jwt, {
      secretKey: inst.secret,
      apiUrl: API_URL(),
      authorizedParties: ['https://app.example.com'],
    });
    expect(viaSdk.sub).toBe(userId);

    // The FAPI's own origin is azp too; an origin the instance does not allow is refused by the FAPI.
    const own = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens/fapi-tpl`);
    expect((await jwtVerify(own.body.jwt, await instanceJwks())).payload.azp).toBe(new URL(API_URL()).origin);
    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens/fapi-tpl`, { origin: 'https://evil.example.com' })).status).toBe(
      403,
    );

    const unknown = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens/missing`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].meta).toMatchObject({ param: 'template' });

    const other = await signedInClient(h, inst, userId);
    expect((await other.b.call('POST', `/v1/client/sessions/${sessionId}/tokens/fapi-tpl`)).status).toBe(404);

    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/end`)).status).toBe(200);
    const ended = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens/fapi-tpl`);
    expect(ended.status).toBeGreaterThanOrEqual(400);
    expect(ended.status).not.toBe(200);
    // The session token path answers the same for it.
    const sessionTokenAnswer = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`);
    expect(ended.status).toBe(sessionTokenAnswer.status);
    expect(ended.body.errors[0].code).toBe(sessionTokenAnswer.body.errors[0].code);
  });
});

describe('{{org.…}} and {{org_membership.…}} shortcodes', () => {
  it('render the session’s active organization over the BAPI and the FAPI, null on the personal account and once the membership is gone', async () => {
    const c = clerk();
    const user = await c.users.createUser({ emailAddress: [email()], skipPasswordRequirement: true });
    const slug = `acme-${Date.now()}`;
    const org = await h.call('POST', '/v1/organizations', {
      key: inst.secret,
      body: {
        name: 'Acme Rockets',
        slug,
        image_url: 'https://img.example.com/acme.png',
        public_metadata: { tier: 'gold', limits: { seats: 5 } },
      },
    });
    expect(org.status, JSON.stringify(org.body)).toBe(200);
    const orgId = org.body.id as string;
    const member = await h.call('POST', `/v1/organizations/${orgId}/memberships`, {
      key: inst.secret,
      body: { user_id: user.id, role: 'org:admin', public_metadata: { team: 'launch' } },
    });
    expect(member.status, JSON.stringify(member.body)).toBe(200);
    // Clerk's own names for them: a template token carries no organization claims of its own, so org_* are the template's to set.
    await c.jwtTemplates.create({
      name: 'with-org',
      claims: {
        org_id: '{{org.id}}',
        org_role: '{{org.role}}',
        org_slug: '{{org.slug}}',
        org_name: '{{org.name}}',
        org_image: '{{org.image_url}}',
        org_has_image: '{{org.has_image}}',
        org_meta: '{{org.public_metadata}}',
        tier: '{{org.public_metadata.tier}}',
        seats: '{{org.public_metadata.limits.seats}}',
        perms: '{{org_membership.permissions}}',
        membership: { meta: '{{org_membership.public_metadata}}', team: '{{org_membership.public_metadata.team}}' },
        label: '{{org.name}} ({{org.role}})',
        user: '{{user.id}}',
      },
    });
    const { b, sessionId } = await signedInClient(h, inst, user.id);
    const minted = async () => {
      const fapi = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens/with-org`);
      expect(fapi.status, JSON.stringify(fapi.body)).toBe(200);
      const bapi = await c.sessions.getToken(sessionId, 'with-org');
      const both = [
        await verifyToken(fapi.body.jwt, { secretKey: inst.secret, apiUrl: API_URL() }),
        await verifyToken(bapi.jwt, { secretKey: inst.secret, apiUrl: API_URL() }),
      ];
      expect(both[0]).toMatchObject({
        ...both[1],
        iat: expect.any(Number),
        exp: expect.any(Number),
        nbf: expect.any(Number),
        jti: expect.any(String),
        azp: expect.any(String),
      });
      return both;
    };
    const personal = {
      org_id: null,
      org_role: null,
      org_slug: null,
      org_name: null,
      org_image: null,
      org_has_image: null,
      org_meta: null,
      tier: null,
      seats: null,
      perms: null,
      membership: { meta: null, team: null },
      label: ' ()',
      user: user.id,
    };

    // The personal account: every organization shortcode is null (text around them keeps its text).
    for (const claims of await minted()) expect(claims).toMatchObject(personal);

    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/touch`, { body: { active_organization_id: orgId } })).status).toBe(200);
    const sessionToken = decodeJwt((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`)).body.jwt);
    expect(sessionToken.org_id).toBe(orgId);
    expect(sessionToken.org_permissions).toEqual(expect.arrayContaining([expect.stringMatching(/^org:/)]));
    for (const claims of await minted()) {
      expect(claims).toMatchObject({
        org_id: orgId,
        org_role: 'org:admin',
        org_slug: slug,
        org_name: 'Acme Rockets',
        org_image: 'https://img.example.com/acme.png',
        org_has_image: true,
        org_meta: { tier: 'gold', limits: { seats: 5 } },
        tier: 'gold',
        seats: 5,
        // The user's permissions in it, as the session token lists them.
        perms: sessionToken.org_permissions,
        membership: { meta: { team: 'launch' }, team: 'launch' },
        label: 'Acme Rockets (org:admin)',
        user: user.id,
      });
    }

    // Removed from the organization (another admin stays: the last one cannot leave): nothing of it is rendered any more.
    const other = await c.users.createUser({ emailAddress: [email()], skipPasswordRequirement: true });
    expect(
      (await h.call('POST', `/v1/organizations/${orgId}/memberships`, { key: inst.secret, body: { user_id: other.id, role: 'org:admin' } }))
        .status,
    ).toBe(200);
    expect((await h.call('DELETE', `/v1/organizations/${orgId}/memberships/${user.id}`, { key: inst.secret })).status).toBe(200);
    for (const claims of await minted()) expect(claims).toMatchObject(personal);
  });

  it('refuses an unknown organization field or scope (422 unknown_shortcode), where Clerk would leave it as text', async () => {
    for (const claims of [
      { x: '{{org.private_metadata}}' },
      { x: '{{org_membership.private_metadata}}' },
      { x: 'id: {{organization.id}}' },
      { x: '{{session.actor}}' },
    ]) {
      const res = await create({ name: 'bad-org', claims });
      expect(res.status, JSON.stringify(claims)).toBe(422);
      expect(res.body.errors[0].meta).toMatchObject({ reason: 'unknown_shortcode' });
    }
    // The session token's other built-in claims stay refused in a template.
    for (const claim of ['pla', 'fea', 'sts'])
      expect((await create({ name: 'bad-org', claims: { [claim]: 'x' } })).body.errors[0].meta.reason).toBe('reserved_claim');
  });
});

describe('expires_in_seconds: @clerk/backend’s sessions.getToken(id, template, expiresInSeconds)', () => {
  it('sets the lifetime of a template token and of a session token, 30–3600 s (422 naming the field otherwise)', async () => {
    const c = clerk();
    const u = await c.users.createUser({ emailAddress: [email()], skipPasswordRequirement: true });
    await c.jwtTemplates.create({ name: 'short-lived', claims: { role: 'reader' }, lifetime: 60 });
    const s = await c.sessions.createSession({ userId: u.id });
    const lifetime = (jwt: string) => {
      const { exp, iat } = decodeJwt(jwt);
      return exp! - iat!;
    };

    const templated = await c.sessions.getToken(s.id, 'short-lived', 900);
    expect(lifetime(templated.jwt)).toBe(900);
    expect(await verifyToken(templated.jwt, { secretKey: inst.secret, apiUrl: API_URL() })).toMatchObject({ sub: u.id, role: 'reader' });
    expect(lifetime((await c.sessions.getToken(s.id, 'short-lived')).jwt)).toBe(60);
    const session = await c.sessions.getToken(s.id, undefined, 120);
    expect(lifetime(session.jwt)).toBe(120);
    expect((await c.sessions.verifySession(s.id, session.jwt)).id).toBe(s.id);
    expect(lifetime((await c.sessions.getToken(s.id)).jwt)).toBe(60);
    // The bounds are the template lifetime's.
    expect(lifetime((await c.sessions.getToken(s.id, 'short-lived', 30)).jwt)).toBe(30);
    expect(lifetime((await c.sessions.getToken(s.id, undefined, 3600)).jwt)).toBe(3600);

    for (const [template, seconds] of [
      ['short-lived', 29],
      ['short-lived', 3601],
      [undefined, 0],
      [undefined, 86400],
      ['short-lived', 1.5],
    ] as const) {
      const err = await c.sessions.getToken(s.id, template, seconds).then(
        () => null,
        (e: { status: number; errors: { code: string; meta?: { paramName?: string } }[] }) => e,
      );
      expect(err, `${template} ${seconds}`).not.toBeNull();
      expect(err!.status).toBe(422);
      expect(err!.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { paramName: 'expires_in_seconds' } });
    }
    const typed = await h.call('POST', `/v1/sessions/${s.id}/tokens`, { key: inst.secret, body: { expires_in_seconds: '120' } });
    expect(typed.status).toBe(422);
    expect(typed.body.errors[0].meta.param).toBe('expires_in_seconds');
  });

  it('never past the session’s end', async () => {
    const short = await h.createInstance();
    await setSettings(h, short.instanceId, { session_lifetime_seconds: 300 });
    const c = createClerkClient({ secretKey: short.secret, apiUrl: API_URL(), apiVersion: 'v1' });
    const u = await c.users.createUser({ emailAddress: [email()], skipPasswordRequirement: true });
    await c.jwtTemplates.create({ name: 'hour', claims: {} });
    const s = await c.sessions.createSession({ userId: u.id });
    const end = Math.floor(s.expireAt / 1000);
    for (const { jwt } of [await c.sessions.getToken(s.id, 'hour', 3600), await c.sessions.getToken(s.id, undefined, 3600)]) {
      const { exp, iat } = decodeJwt(jwt);
      expect(exp).toBe(end);
      expect(exp! - iat!).toBeLessThanOrEqual(300);
    }
  });
});
