import { describe, expect, it } from 'vitest';
import { browserOf } from '../../testing/auth-flows';
import type { FapiResult, FapiTestClient } from '../../testing/fapi-client';
import { createTestUser, signedInClient } from '../../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../../testing/harness';
import { FAPI_PREFIX, fapiClerkLines, fapiRoutes } from './index';

/**
 * Issue #33, item 8: an impersonation session (an actor token redeemed) may look and act
 * within the app, never change how the account is signed into. Every /v1/me route of the
 * table is either listed here as allowed, or must refuse such a session: a new route is
 * refused until someone decides otherwise here.
 */
const h = sharedHarness();
const A = sharedInstance(h);

/** The /v1/me routes an impersonation session may use (PATCH /v1/me: names and metadata only, below). */
const ALLOWED = new Set([
  'GET /v1/me',
  'GET /v1/me/email_addresses/:id',
  'GET /v1/me/phone_numbers/:id',
  'PATCH /v1/me',
  'POST /v1/me/profile_image',
  'DELETE /v1/me/profile_image',
  'GET /v1/me/connected_accounts',
  'GET /v1/me/enterprise_connections',
  'GET /v1/me/sessions',
  'GET /v1/me/oauth_grants',
  'GET /v1/me/organization_memberships',
  'DELETE /v1/me/organization_memberships/:id',
  'GET /v1/me/organization_invitations',
  'POST /v1/me/organization_invitations/accept',
  'POST /v1/me/organization_invitations/:id/accept',
  'GET /v1/me/organization_suggestions',
  'POST /v1/me/organization_suggestions/:id/accept',
  'GET /v1/me/api_keys',
  'GET /v1/me/billing',
  'GET /v1/client/me/api_tokens',
  'GET /v1/me/passkeys',
]);

const meRoutes = fapiRoutes
  .map((r) => ({ method: r.method as string, path: r.path.slice(FAPI_PREFIX.length) }))
  .filter((r) => /^\/v1\/(client\/)?me(\/|$)/.test(r.path));
const label = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

let n = 0;
async function newUser() {
  const email = `imp${++n}@example.com`;
  const id = await createTestUser(h, A, { email_address: [email], password: 'a long passphrase' });
  return { id, email };
}

/** A support agent redeems an actor token for the user in their own browser. */
async function impersonate(userId: string) {
  const actor = await h.call('POST', '/v1/actor_tokens', { key: A.secret, body: { user_id: userId, actor: { sub: 'support_agent' } } });
  expect(actor.status).toBe(200);
  const b = browserOf(h, A);
  const redeemed = await b.signInWithTicket(actor.body.token);
  expect(redeemed.status).toBe(200);
  expect(redeemed.body.client.session).toMatchObject({ user_id: userId, impersonated_by: 'support_agent' });
  return b;
}

/**
 * Calls a route with its path parameters filled and a body no route accepts: a refusal by the
 * guard comes first, anything else stops at the body (422) and changes nothing.
 */
const probe = (b: FapiTestClient, r: { method: string; path: string }) =>
  b.call(r.method, r.path.replace(/:[a-z_]+/g, 'x_00000000000000000000000000'), r.method === 'GET' ? {} : { body: { probe: true } });

const isImpersonationRefusal = (res: FapiResult) => res.status === 403 && res.body?.errors?.[0]?.meta?.reason === 'impersonation';

describe('every /v1/me route is classified for impersonation sessions', () => {
  it('lists only routes that exist', () => {
    const labels = new Set(meRoutes.map(label));
    expect([...ALLOWED].filter((a) => !labels.has(a))).toEqual([]);
    expect(meRoutes.length).toBeGreaterThan(40);
  });

  it('refuses an impersonation session on every route not allowed, and only those; the user’s own session is not refused', async () => {
    const user = await newUser();
    const agent = await impersonate(user.id);
    const own = (await signedInClient(h, A, user.id)).b;
    const wrong: string[] = [];
    for (const r of meRoutes) {
      const [asAgent, asUser] = [await probe(agent, r), await probe(own, r)];
      if (asAgent.status === 401 || asUser.status === 401) wrong.push(`${label(r)}: not signed in (${asAgent.status}, ${asUser.status})`);
      if (isImpersonationRefusal(asUser)) wrong.push(`${label(r)}: refuses the user’s own session`);
      const refused = isImpersonationRefusal(asAgent);
      if (ALLOWED.has(label(r)) === refused)
        wrong.push(`${label(r)}: ${refused ? 'refused' : 'not refused'} under impersonation (${asAgent.status})`);
      else if (refused)
        expect(asAgent.body.errors[0]).toMatchObject({
          code: 'FORBIDDEN',
          message: expect.stringMatching(/^An impersonation session cannot /),
        });
    }
    expect(wrong).toEqual([]);
  });

  it('PATCH /v1/me: names and metadata are allowed; the username and the primary identifiers are refused', async () => {
    const user = await newUser();
    const agent = await impersonate(user.id);
    const named = await agent.call('PATCH', '/v1/me', { body: { first_name: 'Seen', unsafe_metadata: { theme: 'dark' } } });
    expect(named.status).toBe(200);
    // The answer is GET /v1/me's: the hosted profile keeps its impersonation banner after saving.
    expect(named.body).toMatchObject({ first_name: 'Seen', unsafe_metadata: { theme: 'dark' }, impersonator: { ref: 'support_agent' } });
    const primary = named.body.primary_email_address_id as string;
    for (const body of [
      { username: `agent${n}` },
      { username: null },
      { primary_email_address_id: primary },
      { primary_phone_number_id: 'idn_00000000000000000000000000' },
      { first_name: 'x', username: `agent${n}` },
    ]) {
      const res = await agent.call('PATCH', '/v1/me', { body });
      expect(isImpersonationRefusal(res), JSON.stringify(body)).toBe(true);
    }
    const after = (await h.call('GET', `/v1/users/${user.id}`, { key: A.secret })).body;
    expect(after).toMatchObject({ first_name: 'Seen', username: null });
  });
});

describe('every line of the Clerk dialect is classified as the route it is', () => {
  const CLERK = '__clerk_api_version=2025-11-10&_clerk_js_version=6.40.0';
  /** A line called as clerk-js calls it: GET, or POST with `_method` for another method; a form body. */
  const clerkProbe = (b: FapiTestClient, line: { method: string; path: string }) => {
    const path = `${line.path.replace(/:[a-z_]+/g, 'x_00000000000000000000000000')}?${CLERK}`;
    if (line.method === 'GET') return b.call('GET', path);
    return b.call('POST', line.method === 'POST' ? path : `${path}&_method=${line.method}`, { form: { probe: 'true' } });
  };

  it('refuses an impersonation session on a line whose route refuses it, and only there; the user’s own session is not refused', async () => {
    const user = await newUser();
    const agent = await impersonate(user.id);
    const own = (await signedInClient(h, A, user.id)).b;
    const wrong: string[] = [];
    for (const line of fapiClerkLines) {
      const to = line.to ?? line;
      const route = fapiRoutes.find((r) => r.method === to.method && r.path === FAPI_PREFIX + to.path);
      if (!route) {
        wrong.push(`${label(line)}: no route ${label(to)}`);
        continue;
      }
      const [asAgent, asUser] = [await clerkProbe(agent, line), await clerkProbe(own, line)];
      if (isImpersonationRefusal(asUser)) wrong.push(`${label(line)}: refuses the user’s own session`);
      const refused = isImpersonationRefusal(asAgent);
      if (refused !== (route.guard.impersonation !== undefined))
        wrong.push(`${label(line)} (${label(to)}): ${refused ? 'refused' : 'not refused'} under impersonation (${asAgent.status})`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('the issue’s story: impersonation leaves no way in', () => {
  it('the agent can neither add an address, a phone, TOTP, nor end the user’s sessions or mint a token; a later sign-in by that address finds nothing', async () => {
    const user = await newUser();
    const victim = await signedInClient(h, A, user.id);
    const agent = await impersonate(user.id);
    const agentAddress = `agent${n}@attacker.test`;

    // The agent sees the account (the app's own view)...
    const seen = await agent.call('GET', '/v1/me');
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ id: user.id, impersonator: { ref: 'support_agent' } });
    const primaryId = seen.body.primary_email_address_id as string;

    // ...but adds no address it controls: not added, nor (for one the user holds) prepared or attempted.
    expect(isImpersonationRefusal(await agent.call('POST', '/v1/me/email_addresses', { body: { email_address: agentAddress } }))).toBe(
      true,
    );
    expect(
      isImpersonationRefusal(
        await agent.call('POST', `/v1/me/email_addresses/${primaryId}/prepare_verification`, { body: { strategy: 'email_code' } }),
      ),
    ).toBe(true);
    expect(
      isImpersonationRefusal(
        await agent.call('POST', `/v1/me/email_addresses/${primaryId}/attempt_verification`, { body: { code: '123456' } }),
      ),
    ).toBe(true);
    expect(isImpersonationRefusal(await agent.call('DELETE', `/v1/me/email_addresses/${primaryId}`))).toBe(true);
    expect(isImpersonationRefusal(await agent.call('POST', '/v1/me/phone_numbers', { body: { phone_number: '+15555550123' } }))).toBe(true);
    // No second factor of its own, no ending of the user's other sessions, no lasting credential.
    expect(isImpersonationRefusal(await agent.call('POST', '/v1/me/totp'))).toBe(true);
    expect(isImpersonationRefusal(await agent.call('POST', '/v1/me/sessions/revoke_others'))).toBe(true);
    expect(isImpersonationRefusal(await agent.call('POST', `/v1/me/sessions/${victim.sessionId}/revoke`))).toBe(true);
    expect(
      isImpersonationRefusal(await agent.call('POST', '/v1/client/me/api_tokens', { body: { name: 'cli', scopes: ['me:read'] } })),
    ).toBe(true);
    expect(await h.outbox(agentAddress)).toEqual([]);

    // The user's own account is as it was: one address, no TOTP, their session alive.
    const mine = await victim.b.call('GET', '/v1/me');
    expect(mine.status).toBe(200);
    expect(mine.body.email_addresses.map((e: { email_address: string }) => e.email_address)).toEqual([user.email]);
    expect(mine.body).toMatchObject({ totp_enabled: false, backup_code_enabled: false, phone_numbers: [] });

    // Later, from a fresh browser with no actor, a sign-in by a code to the agent's address reaches nobody.
    const fresh = browserOf(h, A);
    const started = await fresh.call('POST', '/v1/client/sign_ins', { body: { identifier: agentAddress } });
    const attemptId = started.body?.response?.id as string | undefined;
    if (attemptId) await fresh.call('POST', `/v1/client/sign_ins/${attemptId}/prepare_first_factor`, { body: { strategy: 'email_code' } });
    expect(await h.outbox(agentAddress)).toEqual([]);
    expect((await fresh.call('GET', '/v1/me')).status).toBe(401);
    expect((await fresh.call('POST', '/v1/client/me/api_tokens', { body: { name: 'cli', scopes: ['me:read'] } })).status).toBe(401);
  });
});
