import { and, count, eq } from 'drizzle-orm';
import { decodeJwt, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, events, ltiLaunchStates, sessions, users } from '../db/schema';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { ltiLaunches, startFakePlatform, type FakePlatform } from '../testing/lti-platform';

const TARGET = 'https://tool.example/course';
const h = sharedHarness({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
const inst = sharedInstance(h);
let platform: FakePlatform;
let platformId: string;

const fapi = () => `/fapi/${inst.instanceId}`;
const LTI = 'https://purl.imsglobal.org/spec/lti/claim';

beforeAll(async () => {
  platform = await startFakePlatform({ targetLinkUri: TARGET });
  const res = await h.call('POST', '/v1/lti_platforms', { key: inst.secret, body: registration(platform) });
  expect(res.status).toBe(201);
  platformId = res.body.id;
});
afterAll(() => platform?.close());

function registration(p: FakePlatform, extra: Record<string, unknown> = {}) {
  return {
    name: 'Canvas (fake)',
    issuer: p.issuer,
    client_id: p.clientId,
    authorization_endpoint: p.authorizationEndpoint,
    jwks_uri: p.jwksUri,
    deployment_ids: [p.deploymentId],
    target_link_uris: [TARGET],
    ...extra,
  };
}

const cookiesOf = (res: Response) => res.headers.getSetCookie();
const cookiePair = (setCookie: string) => setCookie.split(';')[0]!;

/** The platform starts a launch; its authorization answer (the form it posts back); the browser's cross-site post of it. */
const login = (params: Record<string, string> = {}) => ltiLaunches(h, inst.instanceId, platform, TARGET).login(params);
const authorize = () => ltiLaunches(h, inst.instanceId, platform, TARGET).authorize();
const launch = (form: Record<string, string>, cookie?: string) => ltiLaunches(h, inst.instanceId, platform, TARGET).launch(form, cookie);

async function counts() {
  const db = h.runtime.deps.db;
  const [u] = await db.select({ n: count() }).from(users).where(eq(users.instanceId, inst.instanceId));
  const [s] = await db.select({ n: count() }).from(sessions).where(eq(sessions.instanceId, inst.instanceId));
  return { users: Number(u!.n), sessions: Number(s!.n) };
}

describe('platform registrations (BAPI lti:read|write)', () => {
  it('creates, lists, reads, updates and deletes a registration, naming the tool’s login and launch URLs', async () => {
    const body = registration(platform, { client_id: 'another-client', name: 'Moodle' });
    const created = await h.call('POST', '/v1/lti_platforms', { key: inst.secret, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'lti_platform',
      issuer: platform.issuer,
      client_id: 'another-client',
      deployment_ids: [platform.deploymentId],
      login_url: `http://localhost:3000${fapi()}/lti/login`,
      launch_url: `http://localhost:3000${fapi()}/lti/launch`,
    });
    expect(created.body.id).toMatch(/^ltip_/);
    const list = await h.call('GET', '/v1/lti_platforms?limit=1', { key: inst.secret });
    expect(list.body).toMatchObject({ has_more: true, data: [{ id: created.body.id }] });
    const patched = await h.call('PATCH', `/v1/lti_platforms/${created.body.id}`, {
      key: inst.secret,
      body: { deployment_ids: ['d-2', 'd-2', 'd-3'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.deployment_ids).toEqual(['d-2', 'd-3']);
    const deleted = await h.call('DELETE', `/v1/lti_platforms/${created.body.id}`, { key: inst.secret });
    expect(deleted.body).toEqual({ object: 'lti_platform', id: created.body.id, deleted: true });
    expect((await h.call('GET', `/v1/lti_platforms/${created.body.id}`, { key: inst.secret })).status).toBe(404);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'lti_platform.created'), eq(auditLogs.target, created.body.id)));
    expect(entry?.actor).toBe(`key:${inst.keyId}`);
  });

  it('keeps (issuer, client_id) unique, and validates URLs and lists', async () => {
    const dup = await h.call('POST', '/v1/lti_platforms', { key: inst.secret, body: registration(platform) });
    expect(dup.status).toBe(422);
    expect(dup.body.errors[0].meta).toMatchObject({ param: 'client_id', reason: 'taken' });
    const bad = await h.call('POST', '/v1/lti_platforms', {
      key: inst.secret,
      body: registration(platform, { client_id: 'x', jwks_uri: 'ftp://x/jwks' }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].meta).toMatchObject({ param: 'jwks_uri', reason: 'invalid_url' });
    const empty = await h.call('POST', '/v1/lti_platforms', {
      key: inst.secret,
      body: registration(platform, { client_id: 'y', deployment_ids: [] }),
    });
    expect(empty.status).toBe(422);
  });

  it('needs lti:write to change and lti:read to read', async () => {
    const reader = await h.createKey(inst.instanceId, 'lti:read');
    expect((await h.call('GET', '/v1/lti_platforms', { key: reader.secret })).status).toBe(200);
    const refused = await h.call('POST', '/v1/lti_platforms', { key: reader.secret, body: registration(platform, { client_id: 'z' }) });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].meta.required_scope).toBe('lti:write');
  });

  it('refuses a loopback JWKS URL where private targets are off (live instances)', async () => {
    const live = await h.createInstance({ environment: 'live' });
    const res = await h.call('POST', '/v1/lti_platforms', { key: live.secret, body: registration(platform) });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].meta).toMatchObject({ param: 'jwks_uri', reason: 'invalid_url' });
  });
});

describe('login initiation', () => {
  it('redirects to the platform’s authorization endpoint with a fresh state and nonce bound by a cross-site cookie', async () => {
    const res = await login({ lti_message_hint: 'mh-1' });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(`${to.origin}${to.pathname}`).toBe(platform.authorizationEndpoint);
    const q = Object.fromEntries(to.searchParams);
    expect(q).toMatchObject({
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: platform.clientId,
      redirect_uri: `http://localhost:3000${fapi()}/lti/launch`,
      login_hint: 'lh-1',
      lti_message_hint: 'mh-1',
    });
    expect(q.state!.length).toBeGreaterThanOrEqual(43);
    expect(q.nonce!.length).toBeGreaterThanOrEqual(43);
    const again = new URL((await login()).headers.get('location')!).searchParams;
    expect(again.get('state')).not.toBe(q.state);
    expect(again.get('nonce')).not.toBe(q.nonce);
    const cookie = cookiesOf(res).find((c) => c.startsWith('lti_state_'))!;
    expect(cookie).toContain(`=${q.state};`);
    expect(cookie).toMatch(/; Secure; SameSite=None; Partitioned/);
    expect(cookie).toContain(`Path=/fapi/${inst.instanceId}/lti`);
  });

  it('accepts the form-post variant, and finds the platform by iss alone when it has one registration', async () => {
    const res = await h.request('POST', `${fapi()}/lti/login`, {
      raw: new URLSearchParams({
        iss: platform.issuer,
        login_hint: 'lh-2',
        target_link_uri: TARGET,
        lti_deployment_id: platform.deploymentId,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: platform.issuer },
    });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('login_hint')).toBe('lh-2');
  });

  it('answers an unknown platform or an unregistered target with a 400 page and no redirect', async () => {
    const db = h.runtime.deps.db;
    const [before] = await db.select({ n: count() }).from(ltiLaunchStates);
    for (const [params, reason] of [
      [{ iss: 'https://unknown.example' }, 'platform_unknown'],
      [{ client_id: 'nope' }, 'platform_unknown'],
      [{ target_link_uri: 'https://evil.example/' }, 'target_link_uri_not_allowed'],
      [{ login_hint: '' }, 'request_invalid'],
    ] as const) {
      const res = await login(params);
      expect(res.status, reason).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(await res.text()).toContain(reason);
    }
    const [after] = await db.select({ n: count() }).from(ltiLaunchStates);
    expect(after!.n).toBe(before!.n);
  });
});

describe('launch', () => {
  it('walks login → authorization → launch and lands signed in, with the launch context on the session', async () => {
    const { idToken, state, stateCookie } = await authorize();
    const res = await launch({ id_token: idToken, state }, stateCookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(TARGET);
    const set = cookiesOf(res);
    const client = set.find((c) => c.startsWith('__client='))!;
    expect(client).toMatch(/HttpOnly; Secure; SameSite=None; Partitioned/);
    expect(client).toContain(`Path=/fapi/${inst.instanceId}`);
    expect(set.find((c) => c.startsWith('lti_state_'))).toContain('Max-Age=0');

    // The browser (inside the iframe) is signed in on the FAPI.
    const boot = await h.call('GET', `${fapi()}/v1/client`, {
      headers: { cookie: cookiePair(client), 'x-publishable-key': inst.publishableKey },
    });
    const session = boot.body.session;
    expect(session).toMatchObject({ status: 'active' });
    const lti = {
      platform_id: platformId,
      issuer: platform.issuer,
      deployment_id: platform.deploymentId,
      context: { id: 'course-7', title: 'Biology 101', label: 'BIO101' },
      resource_link: { id: 'link-42', title: 'Week 1 quiz' },
      roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
    };
    expect(session.lti).toEqual(lti);

    // BAPI reads it on the session, and the session JWT carries it as a claim.
    const viaBapi = await h.call('GET', `/v1/sessions/${session.id}`, { key: inst.secret });
    expect(viaBapi.body.lti).toEqual(lti);
    const token = await h.call('POST', `${fapi()}/v1/client/sessions/${session.id}/tokens`, {
      headers: { cookie: cookiePair(client), 'x-publishable-key': inst.publishableKey, origin: 'http://localhost:3000' },
    });
    expect(token.status).toBe(200);
    expect(decodeJwt(token.body.jwt)).toMatchObject({ sub: session.user_id, sid: session.id, lti });

    // The user was made just in time from the claims.
    const user = await h.call('GET', `/v1/users/${session.user_id}`, { key: inst.secret });
    expect(user.body).toMatchObject({
      first_name: 'Lee',
      last_name: 'Learner',
      email_addresses: [{ email_address: 'learner@school.example' }],
    });

    // Events and audit.
    const db = h.runtime.deps.db;
    const types = (await db.select({ type: events.type, data: events.data }).from(events).where(eq(events.instanceId, inst.instanceId)))
      .filter((e) => (e.data as { id?: string }).id === session.user_id || (e.data as { id?: string }).id === session.id)
      .map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['user.created', 'session.created']));
    const [entry] = await db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'lti.launch'), eq(auditLogs.target, platformId)));
    expect(entry).toMatchObject({ actor: `lti:${platformId}`, actorKind: 'lti_platform' });
    expect(entry!.details).toMatchObject({
      user_id: session.user_id,
      session_id: session.id,
      user_created: true,
      resource_link_id: 'link-42',
    });

    // The same learner launching again is the same user; the JWKS comes from the cache.
    const fetches = platform.jwksFetches;
    const second = await authorize();
    const res2 = await launch({ id_token: second.idToken, state: second.state });
    expect(res2.status).toBe(303);
    const all = await db.select().from(sessions).where(eq(sessions.instanceId, inst.instanceId));
    expect(new Set(all.map((s) => s.userId))).toEqual(new Set([session.user_id]));
    expect(platform.jwksFetches).toBe(fetches);
  });

  it('launches without the state cookie (a browser that blocks it in the iframe), but not with another state’s', async () => {
    const a = await authorize();
    const b = await authorize();
    const foreign = await launch({ id_token: a.idToken, state: a.state }, `${a.stateCookie.split('=')[0]}=${b.state}`);
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain('state_invalid');
    expect((await launch({ id_token: b.idToken, state: b.state })).status).toBe(303);
  });
});

describe('bad launches (the certification guide’s list): each a 400 page naming the reason; nothing created', () => {
  const STANDARD = (c: Record<string, unknown>) => c;
  let otherKey: CryptoKey;
  beforeAll(async () => {
    ({ privateKey: otherKey } = await generateKeyPair('RS256'));
  });

  /** Runs one authorization with the platform's next token shaped by `claims`/`signing`, then posts it. */
  async function badLaunch(
    shape: { claims?: (c: Record<string, unknown>) => Record<string, unknown>; signing?: FakePlatform['signing'] },
    form?: (f: { id_token: string; state: string }) => Record<string, string>,
  ) {
    platform.claims = shape.claims ?? STANDARD;
    platform.signing = shape.signing ?? {};
    try {
      const { idToken, state } = await authorize();
      const before = await counts();
      const res = await launch(form ? form({ id_token: idToken, state }) : { id_token: idToken, state });
      expect(await counts()).toEqual(before);
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        location: res.headers.get('location'),
        cookies: cookiesOf(res),
        text: await res.text(),
      };
    } finally {
      platform.claims = STANDARD;
      platform.signing = {};
    }
  }

  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, string, Parameters<typeof badLaunch>[0], Parameters<typeof badLaunch>[1]?][] = [
    ['no kid', 'key_unknown', { signing: { kid: null } }],
    ['unknown kid', 'key_unknown', { signing: { kid: 'rotated-away' } }],
    ['bad signature', 'signature_invalid', { signing: { key: undefined as never } }],
    ['wrong iss', 'issuer_mismatch', { claims: (c) => ({ ...c, iss: 'https://other-lms.example' }) }],
    ['wrong aud', 'audience_mismatch', { claims: (c) => ({ ...c, aud: 'someone-else' }) }],
    ['multiple aud without azp', 'azp_mismatch', { claims: (c) => ({ ...c, aud: [c.aud as string, 'someone-else'] }) }],
    ['expired', 'token_expired', { claims: (c) => ({ ...c, iat: now() - 900, exp: now() - 600 }) }],
    ['missing state', 'request_invalid', {}, (f) => ({ id_token: f.id_token })],
    ['foreign state', 'state_invalid', {}, (f) => ({ ...f, state: 'x'.repeat(43) })],
    ['wrong nonce', 'nonce_invalid', { claims: (c) => ({ ...c, nonce: 'not-the-one-issued' }) }],
    ['unknown deployment', 'deployment_not_allowed', { claims: (c) => ({ ...c, [`${LTI}/deployment_id`]: 'deployment-9' }) }],
    ['wrong message type', 'message_type_unsupported', { claims: (c) => ({ ...c, [`${LTI}/message_type`]: 'LtiDeepLinkingRequest' }) }],
    ['wrong version', 'version_unsupported', { claims: (c) => ({ ...c, [`${LTI}/version`]: '1.1.0' }) }],
    ['missing resource link', 'resource_link_missing', { claims: (c) => ({ ...c, [`${LTI}/resource_link`]: undefined }) }],
    [
      'target_link_uri not registered',
      'target_link_uri_not_allowed',
      { claims: (c) => ({ ...c, [`${LTI}/target_link_uri`]: 'https://evil.example/' }) },
    ],
  ];

  it.each(cases)('%s → %s', async (_name, reason, shape, form) => {
    // The bad-signature case signs with a key of its own under the platform's kid.
    const s = shape.signing && 'key' in shape.signing ? { ...shape, signing: { key: otherKey } } : shape;
    const res = await badLaunch(s, form);
    expect(res.status).toBe(400);
    expect(res.type).toContain('text/html');
    expect(res.location).toBeNull();
    expect(res.cookies.some((c) => c.startsWith('__client='))).toBe(false);
    expect(res.text).toContain(reason);
  });

  it('refuses a replayed launch (state and nonce are single use)', async () => {
    const { idToken, state } = await authorize();
    expect((await launch({ id_token: idToken, state })).status).toBe(303);
    const before = await counts();
    const replay = await launch({ id_token: idToken, state });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('nonce_replayed');
    // The same token with a fresh state: its nonce is not the one issued for that state.
    const fresh = await authorize();
    const mixed = await launch({ id_token: idToken, state: fresh.state });
    expect(mixed.status).toBe(400);
    expect(await mixed.text()).toContain('nonce_invalid');
    expect(await counts()).toEqual(before);
  });

  it('refetches the JWKS once for an unknown kid, and audits each failure with the platform', async () => {
    const fetches = platform.jwksFetches;
    h.clock.advance(11_000);
    await badLaunch({ signing: { kid: 'rotated-away' } });
    expect(platform.jwksFetches).toBe(fetches + 1);
    const failures = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'lti.launch_failed'), eq(auditLogs.target, platformId)));
    expect(failures.length).toBeGreaterThan(5);
    expect(failures[0]).toMatchObject({ actor: `lti:${platformId}`, actorKind: 'lti_platform' });
    expect(new Set(failures.map((f) => (f.details as { reason: string }).reason))).toContain('signature_invalid');
  });
});

describe('organizations from course contexts (when the registration asks for it)', () => {
  beforeAll(async () => {
    const res = await h.call('PATCH', `/v1/lti_platforms/${platformId}`, { key: inst.secret, body: { organizations_from_contexts: true } });
    expect(res.body.organizations_from_contexts).toBe(true);
  });
  afterAll(async () => {
    await h.call('PATCH', `/v1/lti_platforms/${platformId}`, { key: inst.secret, body: { organizations_from_contexts: false } });
  });

  async function launchAs(sub: string, roles: string[]) {
    platform.claims = (c) => ({
      ...c,
      sub,
      email: `${sub}@school.example`,
      [`${LTI}/roles`]: roles,
      [`${LTI}/context`]: { id: 'course-99', title: 'Chemistry 201' },
    });
    try {
      const { idToken, state } = await authorize();
      const res = await launch({ id_token: idToken, state });
      expect(res.status).toBe(303);
      const client = cookiePair(cookiesOf(res).find((c) => c.startsWith('__client='))!);
      const headers = { cookie: client, 'x-publishable-key': inst.publishableKey, origin: 'http://localhost:3000' };
      const session = (await h.call('GET', `${fapi()}/v1/client`, { headers })).body.session;
      const token = await h.call('POST', `${fapi()}/v1/client/sessions/${session.id}/tokens`, { headers });
      return { session, claims: decodeJwt(token.body.jwt) };
    } finally {
      platform.claims = (c) => c;
    }
  }

  it('makes one organization per context on first launch; learners join with the default role, instructors as admins', async () => {
    const learner = await launchAs('student-9', ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner']);
    const orgId = learner.session.last_active_organization_id;
    expect(orgId).toMatch(/^org_/);
    expect(learner.claims).toMatchObject({ org_id: orgId, org_role: 'org:member' });
    const org = await h.call('GET', `/v1/organizations/${orgId}`, { key: inst.secret });
    expect(org.body.name).toBe('Chemistry 201');

    const teacher = await launchAs('teacher-1', ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor']);
    expect(teacher.session.last_active_organization_id).toBe(orgId);
    expect(teacher.claims).toMatchObject({ org_id: orgId, org_role: 'org:admin' });

    // Launching again keeps the one organization and the membership.
    const again = await launchAs('student-9', ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner']);
    expect(again.session.last_active_organization_id).toBe(orgId);
    const members = await h.call('GET', `/v1/organizations/${orgId}/memberships`, { key: inst.secret });
    expect(members.body.data).toHaveLength(2);
  });
});

describe('the learner', () => {
  it('never claims an address another user holds: the LTI user is made without it', async () => {
    await h.call('POST', '/v1/users', { key: inst.secret, body: { email_address: ['taken@school.example'] } });
    platform.claims = (c) => ({ ...c, sub: 'learner-taken', email: 'taken@school.example' });
    try {
      const { idToken, state } = await authorize();
      const res = await launch({ id_token: idToken, state });
      expect(res.status).toBe(303);
      const client = cookiePair(cookiesOf(res).find((c) => c.startsWith('__client='))!);
      const session = (
        await h.call('GET', `${fapi()}/v1/client`, { headers: { cookie: client, 'x-publishable-key': inst.publishableKey } })
      ).body.session;
      const user = await h.call('GET', `/v1/users/${session.user_id}`, { key: inst.secret });
      expect(user.body).toMatchObject({ first_name: 'Lee', email_addresses: [] });
    } finally {
      platform.claims = (c) => c;
    }
  });

  it('refuses a banned learner with a 400 page and no session', async () => {
    platform.claims = (c) => ({ ...c, sub: 'learner-banned', email: 'banned@school.example' });
    try {
      const first = await authorize();
      expect((await launch({ id_token: first.idToken, state: first.state })).status).toBe(303);
      const found = await h.call('GET', '/v1/users?email_address=banned@school.example', { key: inst.secret });
      expect(found.body.data).toHaveLength(1);
      const userId = found.body.data[0].id;
      expect((await h.call('POST', `/v1/users/${userId}/ban`, { key: inst.secret })).status).toBe(200);
      const second = await authorize();
      const before = await counts();
      const res = await launch({ id_token: second.idToken, state: second.state });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('user_banned');
      expect(await counts()).toEqual(before);
    } finally {
      platform.claims = (c) => c;
    }
  });
});
