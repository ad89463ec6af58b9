import { systemContext } from '../http/actor';
import { and, asc, eq, gt } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { events, instances } from '../db/schema';
import { instanceContext } from '../instances/instances';
import type { z } from 'zod';
import type { instanceSettingsSchema } from '../instances/settings';
import { beginTotpEnrollment, confirmTotp } from '../users/mfa';
import { fapiClient, type FapiTestClient } from './fapi-client';
import type { TestHarness, TestInstance } from './harness';

/** Helpers for end-user authentication tests (sign-up, sign-in, codes). */

export type { TestInstance } from './harness';

/** A fresh instance with these settings, defaults filled in as when stored (a new instance has no cached settings yet). */
export async function instanceWith(h: TestHarness, settings: Partial<z.input<typeof instanceSettingsSchema>> = {}): Promise<TestInstance> {
  const created = await h.createInstance();
  if (Object.keys(settings).length) await h.runtime.deps.db.update(instances).set({ settings }).where(eq(instances.id, created.instanceId));
  return created;
}

export const browserOf = (h: TestHarness, i: TestInstance) => fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
export const nativeOf = (h: TestHarness, i: TestInstance) =>
  fapiClient(h, i.instanceId, { publishableKey: i.publishableKey, native: true });

/** The code of the newest email to `to`, from the dev outbox. */
export async function codeSentTo(h: TestHarness, to: string, template?: string): Promise<string> {
  const mails = (await h.outbox(to)).filter((m) => !template || m.template === template);
  const code = mails[0]?.data.code;
  if (typeof code !== 'string') throw new Error(`No code was sent to ${to}`);
  return code;
}

/** Event types of an instance emitted after `since` (ms), oldest first. */
export async function eventsSince(h: TestHarness, instanceId: string, since: number) {
  const rows = await h.runtime.deps.db
    .select()
    .from(events)
    .where(and(eq(events.instanceId, instanceId), gt(events.createdAt, since - 1)))
    .orderBy(asc(events.id));
  return rows.map((r) => ({ type: r.type, data: r.data as Record<string, unknown> }));
}

/** Moves the harness clock 1 ms on and answers that instant, to read the events emitted from here on. */
export function nextInstant(h: TestHarness): number {
  h.clock.advance(1);
  return h.clock.now();
}

/** Runs `fn` and answers its result with the events the instance emitted meanwhile, oldest first. */
export async function eventsDuring<T>(h: TestHarness, instanceId: string, fn: () => Promise<T>) {
  const since = nextInstant(h);
  const result = await fn();
  return { result, events: await eventsSince(h, instanceId, since) };
}

/**
 * Enrolls a user in TOTP directly (not over HTTP), then moves the clock one 30 s step on, since
 * codes are single use per step; answers the secret, the authenticator and the backup codes.
 */
export async function enrollTotp(h: TestHarness, instanceId: string, userId: string) {
  const instance = await instanceContext(h.runtime.deps, instanceId);
  const { secret } = await beginTotpEnrollment(h.runtime.deps, instance, userId);
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  const confirmed = await confirmTotp(
    h.runtime.deps,
    instance,
    userId,
    totp.generate({ timestamp: h.clock.now() }),
    null,
    systemContext('test'),
  );
  h.clock.advance(30_000);
  return { secret, totp, backupCodes: confirmed.backup_codes };
}

/** Runs a full email-code sign-up; answers the final response. */
export async function signUp(
  h: TestHarness,
  b: FapiTestClient,
  body: Record<string, unknown>,
): Promise<{ userId: string; sessionId: string }> {
  const created = await b.call('POST', '/v1/client/sign_ups', { body });
  if (created.status !== 200) throw new Error(`sign-up failed: ${JSON.stringify(created.body)}`);
  const id = created.body.response.id;
  await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
  const code = await codeSentTo(h, String(body.email_address));
  const done = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code } });
  if (done.status !== 200) throw new Error(`verification failed: ${JSON.stringify(done.body)}`);
  return { userId: done.body.response.created_user_id, sessionId: done.body.response.created_session_id };
}

/**
 * A new user with `password` (and TOTP when asked), signed in on a fresh browser through a
 * sign-in token (and its TOTP step), then left `staleBy` minutes (default 11): past the default
 * reverification window, the session's factors are no longer fresh.
 */
export async function staleSignedInUser(
  h: TestHarness,
  i: TestInstance,
  email: string,
  password: string,
  opts: { totp?: boolean; staleBy?: number } = {},
) {
  const userId = (await h.call('POST', '/v1/users', { key: i.secret, body: { email_address: [email], password } })).body.id as string;
  const totp = opts.totp ? await enrollTotp(h, i.instanceId, userId) : null;
  const b = browserOf(h, i);
  const ticket = (await h.call('POST', '/v1/sign_in_tokens', { key: i.secret, body: { user_id: userId } })).body.token as string;
  const res = await b.signInWithTicket(ticket);
  let sessionId = res.body.response.created_session_id as string | null;
  if (totp) {
    const second = await b.call('POST', `/v1/client/sign_ins/${res.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: totp.totp.generate({ timestamp: h.clock.now() }) },
    });
    if (second.body.response?.status !== 'complete') throw new Error(`second factor: ${JSON.stringify(second.body)}`);
    sessionId = second.body.response.created_session_id;
  }
  h.clock.advance((opts.staleBy ?? 11) * 60_000);
  return { userId, email, b, sessionId: sessionId!, totp };
}
