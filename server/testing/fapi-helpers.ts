import { and, asc, eq } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { events, instances, users } from '../db/schema';
import type { InstanceSettings } from '../instances/settings';
import { fapiClient } from './fapi-client';
import type { TestHarness, TestInstance } from './harness';

export type { TestInstance } from './harness';

/** Changes an instance's settings and forgets the cached copy, so the next request sees them. */
export async function setSettings(h: TestHarness, instanceId: string, patch: Partial<InstanceSettings>) {
  const db = h.runtime.deps.db;
  const [row] = await db.select({ settings: instances.settings }).from(instances).where(eq(instances.id, instanceId));
  await db
    .update(instances)
    .set({ settings: { ...((row?.settings as object | null) ?? {}), ...patch } })
    .where(eq(instances.id, instanceId));
  h.runtime.deps.caches.get('instance', 5_000).clear();
}

/** Events of one type in an instance, oldest first. */
export const eventsOf = (h: TestHarness, instanceId: string, type: string) =>
  h.runtime.deps.db
    .select()
    .from(events)
    .where(and(eq(events.instanceId, instanceId), eq(events.type, type)))
    .orderBy(asc(events.id));

/** BAPI calls with an instance's secret key (or another `key`); `ok` expects a 200 and answers the body. */
export function bapiWith(h: TestHarness, i: TestInstance) {
  const call = (method: string, path: string, body?: unknown, key = i.secret) => h.call(method, path, { key, body });
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  return { call, ok };
}

/** A user's stored password digest and its hasher, straight from the database. */
export async function storedPassword(h: TestHarness, userId: string) {
  const [row] = await h.runtime.deps.db
    .select({ digest: users.passwordDigest, hasher: users.passwordHasher })
    .from(users)
    .where(eq(users.id, userId));
  return row!;
}

export async function createTestUser(h: TestHarness, i: TestInstance, body: Record<string, unknown>) {
  const res = await h.call('POST', '/v1/users', { key: i.secret, body });
  if (res.status !== 200) throw new Error(`user creation failed: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** A session as BAPI POST /v1/sessions answers it. */
export interface MintedSession {
  id: string;
  jwt: string;
  refresh_token: string;
  user_id: string;
  created_at: number;
  expire_at: number;
  abandon_at: number;
}

/** A session of a new user, minted through BAPI with `key` (POST /v1/users, then POST /v1/sessions). */
export async function mintNewUserSession(h: TestHarness, key: string): Promise<MintedSession> {
  const email = `s${Math.random().toString(36).slice(2)}@example.com`;
  const user = (await h.call('POST', '/v1/users', { key, body: { email_address: [email] } })).body.id;
  const res = await h.call('POST', '/v1/sessions', { key, body: { user_id: user } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** A browser (or native app) signed in as `userId` through a sign-in token. */
export async function signedInClient(
  h: TestHarness,
  i: TestInstance,
  userId: string,
  opts: { native?: boolean; client?: ReturnType<typeof fapiClient> } = {},
) {
  const b = opts.client ?? fapiClient(h, i.instanceId, { publishableKey: i.publishableKey, native: opts.native });
  const ticket = (await h.call('POST', '/v1/sign_in_tokens', { key: i.secret, body: { user_id: userId } })).body.token as string;
  const res = await b.signInWithTicket(ticket);
  if (res.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(res.body)}`);
  return { b, sessionId: res.body.response.created_session_id as string, res };
}

/** The TOTP code of a base32 secret at the harness clock's time (plus `offsetSteps` 30 s steps). */
export const totpCode = (h: TestHarness, secret: string, offsetSteps = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: h.clock.now() + offsetSteps * 30_000 });

/**
 * Verifies the session again (reverification) so that the routes guarded by it answer:
 * with the password when the user has no second factor, else with a TOTP code of `totpSecret`
 * (the clock moves one 30 s step first: codes are single use per step).
 */
export async function reverify(
  h: TestHarness,
  b: ReturnType<typeof fapiClient>,
  sessionId: string,
  proof: { password?: string; totpSecret?: string },
) {
  const verify = (step: string, body: Record<string, unknown>) =>
    b.call('POST', `/v1/client/sessions/${sessionId}/verify${step}`, { body });
  let v = await verify('', { level: 'second_factor' });
  if (v.body.status === 'needs_first_factor') v = await verify('/attempt_first_factor', { strategy: 'password', password: proof.password });
  if (v.body.status === 'needs_second_factor') {
    h.clock.advance(30_000);
    v = await verify('/attempt_second_factor', { strategy: 'totp', code: totpCode(h, proof.totpSecret!) });
  }
  if (v.body.status !== 'complete') throw new Error(`reverification failed: ${JSON.stringify(v.body)}`);
  return v.body;
}
