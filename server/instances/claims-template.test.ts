import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole, consoleInstance } from '../testing/console-client';
import { expectError } from '../testing/expect';
import { createTestUser, setSettings, signedInClient } from '../testing/fapi-helpers';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let base: string;
let secret: string;
beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  ({ base, secret } = await consoleInstance(owner));
});
afterAll(() => h.close());

const TEMPLATE = {
  plan: '{{user.public_metadata.plan}}',
  meta: '{{user.public_metadata}}',
  greeting: 'Hello {{user.first_name}}!',
  email: '{{user.primary_email_address}}',
  missing: '{{user.public_metadata.nope}}',
  fixed: { app: 'shop', version: 2 },
};

async function jwtFor(userId: string) {
  const session = await h.call('POST', '/v1/sessions', { key: secret, body: { user_id: userId } });
  expect(session.status).toBe(200);
  return decodeJwt(session.body.jwt as string);
}

describe('session token template', () => {
  it('adds the rendered claims to every session JWT; built-in claims stay', async () => {
    const userId = (
      await h.call('POST', '/v1/users', {
        key: secret,
        body: { email_address: ['ada@example.com'], first_name: 'Ada', public_metadata: { plan: 'pro', seats: 3 } },
      })
    ).body.id;
    expect(await jwtFor(userId)).not.toHaveProperty('plan');

    const saved = await owner.b.dash('PATCH', `${base}/settings`, { body: { session_token_claims: TEMPLATE } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.session_token_claims).toEqual(TEMPLATE);

    const claims = await jwtFor(userId);
    expect(claims).toMatchObject({
      sub: userId,
      plan: 'pro',
      meta: { plan: 'pro', seats: 3 },
      greeting: 'Hello Ada!',
      email: 'ada@example.com',
      missing: null,
      fixed: { app: 'shop', version: 2 },
    });
    expect(claims.sid).toMatch(/^sess_/);
  });

  it('refuses built-in claim names, unknown shortcodes and oversized templates', async () => {
    const patch = (session_token_claims: unknown) => owner.b.dash('PATCH', `${base}/settings`, { body: { session_token_claims } });
    expectError(await patch({ sub: 'me' }), 422, 'VALIDATION_FAILED', { reason: 'reserved_claim' });
    expectError(await patch({ org_id: 'x' }), 422, 'VALIDATION_FAILED', { reason: 'reserved_claim' });
    expectError(await patch({ x: '{{user.password}}' }), 422, 'VALIDATION_FAILED', { reason: 'unknown_shortcode' });
    expectError(await patch({ x: 'y'.repeat(5000) }), 422, 'VALIDATION_FAILED', { reason: 'too_large' });
    expectError(await patch({ a: { b: { c: { d: 1 } } } }), 422, 'VALIDATION_FAILED', { reason: 'too_deep' });
    expectError(await patch(['not', 'an', 'object']), 422, 'VALIDATION_FAILED');
  });

  it('renders {{org.…}} and {{org_membership.…}} from the session’s active organization, null on the personal account; built-in org claims stay', async () => {
    const inst = await h.createInstance();
    await setSettings(h, inst.instanceId, {
      session_token_claims: {
        org_name: '{{org.name}}',
        tier: '{{org.public_metadata.tier}}',
        seat: '{{org_membership.public_metadata.seat}}',
        where: 'in {{org.slug}}',
      },
    });
    const userId = await createTestUser(h, inst, { email_address: ['org.member@example.com'] });
    const org = (
      await h.call('POST', '/v1/organizations', {
        key: inst.secret,
        body: { name: 'Globex', slug: 'globex', public_metadata: { tier: 'silver' } },
      })
    ).body;
    expect(
      (
        await h.call('POST', `/v1/organizations/${org.id}/memberships`, {
          key: inst.secret,
          body: { user_id: userId, role: 'org:member', public_metadata: { seat: 7 } },
        })
      ).status,
    ).toBe(200);
    const { b, sessionId } = await signedInClient(h, inst, userId);
    const token = async () => decodeJwt((await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`)).body.jwt);

    expect(await token()).toMatchObject({ org_name: null, tier: null, seat: null, where: 'in ' });
    expect(await token()).not.toHaveProperty('org_id');
    expect((await b.call('POST', `/v1/client/sessions/${sessionId}/touch`, { body: { active_organization_id: org.id } })).status).toBe(200);
    expect(await token()).toMatchObject({
      org_id: org.id,
      org_slug: 'globex',
      org_role: 'org:member',
      org_name: 'Globex',
      tier: 'silver',
      seat: 7,
      where: 'in globex',
    });
    // The BAPI's session token too.
    const viaBapi = await h.call('POST', `/v1/sessions/${sessionId}/tokens`, { key: inst.secret });
    expect(decodeJwt(viaBapi.body.jwt)).toMatchObject({ org_id: org.id, org_name: 'Globex', seat: 7 });
  });

  it('previews the payload for a user without saving', async () => {
    const userId = (
      await h.call('POST', '/v1/users', {
        key: secret,
        body: { email_address: ['bob@example.com'], first_name: 'Bob', public_metadata: { plan: 'free' } },
      })
    ).body.id;
    const preview = await owner.b.dash('POST', `${base}/session_token/preview`, {
      body: { template: { tier: '{{user.public_metadata.plan}}', sub: undefined }, user_id: userId },
    });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body).toMatchObject({
      object: 'session_token_preview',
      user_id: userId,
      omitted: false,
      payload: { tier: 'free', sub: userId, sid: 'sess_preview' },
    });
    // Nothing was saved: the template is still the one from the first test.
    expect((await owner.b.dash('GET', base)).body.settings.session_token_claims).toEqual(TEMPLATE);
    expectError(await owner.b.dash('POST', `${base}/session_token/preview`, { body: { user_id: 'user_nobody' } }), 404, 'NOT_FOUND');
    expectError(
      await owner.b.dash('POST', `${base}/session_token/preview`, { body: { template: { iss: 'x' } } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'reserved_claim' },
    );
  });
});
