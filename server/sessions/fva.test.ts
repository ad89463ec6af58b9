import { createCheckAuthorization } from '@clerk/shared/authorization';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { browserOf, enrollTotp } from '../testing/auth-flows';
import type { FapiTestClient } from '../testing/fapi-client';
import { createTestUser, signedInClient, totpCode } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';

/**
 * Issue #44, items 1 and 2: the session token's `fva`, read by Clerk's own `has()`
 * (`@clerk/shared/authorization`), the way an app's code reads it. The second slot is -1 only
 * for a user without a second factor; a second factor the session never proved, and any factor
 * of an impersonation session, satisfy no level; enrolling a factor proves nothing.
 */
const h = sharedHarness();
const A = sharedInstance(h);
const MINUTES = 60_000;
const PASSWORD = 'correct horse battery staple 42';
const LEVELS = ['strict_mfa', 'strict', 'moderate', 'lax'] as const;
let seq = 0;

const newUser = async () => createTestUser(h, A, { email_address: [`fva-${++seq}@example.com`], password: PASSWORD });

async function tokenOf(b: FapiTestClient, sessionId: string) {
  const res = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return decodeJwt(res.body.jwt) as { sub: string; fva: [number, number] };
}

/** What `has({ reverification })` answers for each of Clerk's levels, and for the first factor within 10 minutes. */
async function passes(b: FapiTestClient, sessionId: string) {
  const claims = await tokenOf(b, sessionId);
  const has = createCheckAuthorization({ userId: claims.sub, factorVerificationAge: claims.fva } as Parameters<
    typeof createCheckAuthorization
  >[0]);
  const out: Record<string, boolean> = {};
  for (const level of LEVELS) out[level] = has({ reverification: level });
  out.first_factor = has({ reverification: { level: 'first_factor', afterMinutes: 10 } });
  return { fva: claims.fva, ...out };
}

const ALL_PASS = { strict_mfa: true, strict: true, moderate: true, lax: true, first_factor: true };
const NONE_PASS = { strict_mfa: false, strict: false, moderate: false, lax: false, first_factor: false };

/** A TOTP user signed in with the password and TOTP through the FAPI. */
async function signInWithTotp(userId: string, secret: string) {
  const b = browserOf(h, A);
  const email = (await h.call('GET', `/v1/users/${userId}`, { key: A.secret })).body.email_addresses[0].email_address;
  const first = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: PASSWORD } });
  expect(first.body.response.status).toBe('needs_second_factor');
  const second = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
    body: { strategy: 'totp', code: totpCode(h, secret) },
  });
  expect(second.body.response.status).toBe('complete');
  return { b, sessionId: second.body.response.created_session_id as string };
}

describe('fva as Clerk’s has() reads it', () => {
  it('a user without a second factor: [minutes, -1]; the first factor satisfies every level while fresh', async () => {
    const { b, sessionId } = await signedInClient(h, A, await newUser());
    expect(await passes(b, sessionId)).toEqual({ fva: [0, -1], ...ALL_PASS });
    h.clock.advance(11 * MINUTES);
    expect(await passes(b, sessionId)).toEqual({
      fva: [11, -1],
      strict_mfa: false,
      strict: false,
      moderate: true,
      lax: true,
      first_factor: false,
    });
  });

  it('a TOTP user who proved it at sign-in: both ages; strict_mfa passes', async () => {
    const userId = await newUser();
    const { secret } = await enrollTotp(h, A.instanceId, userId);
    const { b, sessionId } = await signInWithTotp(userId, secret);
    expect(await passes(b, sessionId)).toEqual({ fva: [0, 0], ...ALL_PASS });
  });

  it('a session signed in before the user enrolled TOTP elsewhere: its second factor satisfies no level, whatever the first', async () => {
    const userId = await newUser();
    const { b, sessionId } = await signedInClient(h, A, userId);
    await enrollTotp(h, A.instanceId, userId);
    const seen = await passes(b, sessionId);
    expect(seen.fva[0]).toBe(0);
    expect(seen.fva[1]).toBeGreaterThan(100_000);
    expect(seen).toMatchObject({ strict_mfa: false, strict: false, moderate: false, lax: false, first_factor: true });
  });

  it('enrolling TOTP on this session proves nothing: the token does not turn fresh and guarded actions still ask', async () => {
    const userId = await newUser();
    const { b, sessionId } = await signedInClient(h, A, userId);
    const started = await b.call('POST', '/v1/me/totp');
    expect(started.status).toBe(200);
    const confirmed = await b.call('POST', '/v1/me/totp/attempt_verification', { body: { code: totpCode(h, started.body.secret) } });
    expect(confirmed.status).toBe(200);
    const seen = await passes(b, sessionId);
    expect(seen.fva[1]).toBeGreaterThan(100_000);
    expect(seen).toMatchObject({ strict_mfa: false, strict: false, lax: false });
    h.clock.advance(30_000);
    const refused = await b.call('POST', '/v1/me/backup_codes', { body: { code: totpCode(h, started.body.secret) } });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({
      code: 'REVERIFICATION_REQUIRED',
      meta: { session_verification: { level: 'second_factor', after_minutes: 10 } },
    });
  });

  it('an impersonation session satisfies no level, the first factor’s included, with or without the user’s TOTP', async () => {
    for (const withTotp of [false, true]) {
      const userId = await newUser();
      if (withTotp) await enrollTotp(h, A.instanceId, userId);
      const actor = await h.call('POST', '/v1/actor_tokens', { key: A.secret, body: { user_id: userId, actor: { sub: 'support_agent' } } });
      const b = browserOf(h, A);
      const redeemed = await b.signInWithTicket(actor.body.token);
      expect(redeemed.status).toBe(200);
      const seen = await passes(b, redeemed.body.response.created_session_id);
      expect(seen).toMatchObject(NONE_PASS);
      expect(seen.fva[1]).toBe(withTotp ? seen.fva[0] : -1);
    }
  });
});
