import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { browserOf, enrollTotp, codeSentTo, eventsSince, nativeOf, type TestInstance } from '../testing/auth-flows';
import type { FapiTestClient } from '../testing/fapi-client';
import { totpCode } from '../testing/fapi-helpers';
import { createHarness, type TestHarness } from '../testing/harness';
import { buildCountryMmdb } from '../testing/mmdb';
import { openGeoIpDatabase } from './geoip';
import { networkOf } from '../sessions/user-agent';

/**
 * Risk-based MFA: a password sign-in from a client or network (/24, /48) the user has not
 * completed a sign-in from needs a second factor (TOTP, else an email code); a known one
 * signs in as before. The harness trusts X-Forwarded-For (TRUST_PROXY) to play addresses.
 */
let h: TestHarness;
let A: TestInstance;
let n = 0;
const PASSWORD = 'a long passphrase';
const FIREFOX = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:131.0) Gecko/20100101 Firefox/131.0';

beforeAll(async () => {
  h = await createHarness({ env: { TRUST_PROXY: '1' } });
  A = await h.createInstance();
  expect((await h.call('PATCH', '/v1/risk_based_mfa', { key: A.secret, body: { enabled: true } })).body.enabled).toBe(true);
});
afterAll(() => h.close());

async function newUser(i: TestInstance = A) {
  const email = `person${++n}@example.com`;
  const res = await h.call('POST', '/v1/users', { key: i.secret, body: { email_address: [email], password: PASSWORD } });
  expect(res.status).toBe(200);
  return { id: res.body.id as string, email };
}

/** A password sign-in from `ip`; the clock moves past the per-IP and per-address budgets first. */
async function signIn(b: FapiTestClient, email: string, ip: string) {
  h.clock.advance(31_000);
  const res = await b.call('POST', '/v1/client/sign_ins', {
    body: { identifier: email, password: PASSWORD },
    headers: { 'x-forwarded-for': ip, 'user-agent': FIREFOX },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

/** Completes a step-up by the emailed code. */
async function stepUp(b: FapiTestClient, email: string, id: string, ip: string) {
  const headers = { 'x-forwarded-for': ip, 'user-agent': FIREFOX };
  const prepared = await b.call('POST', `/v1/client/sign_ins/${id}/prepare_second_factor`, { body: { strategy: 'email_code' }, headers });
  expect(prepared.status).toBe(200);
  const code = await codeSentTo(h, email, 'verification_code');
  return b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, { body: { strategy: 'email_code', code }, headers });
}

const stepUpsOf = (userId: string) =>
  h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.action, 'sign_in.step_up'), eq(auditLogs.target, userId)));

describe('risk-based MFA', () => {
  it('steps up a sign-in from a new device and network by email code; session.pending, then active; the new-device email', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    h.clock.advance(1);
    const since = h.clock.now();
    const first = await signIn(b, u.email, '203.0.113.7');
    expect(first.body.response).toMatchObject({
      status: 'needs_second_factor',
      step_up_reasons: ['new_device', 'new_network'],
      supported_second_factors: [{ strategy: 'email_code', safe_identifier: `p***@example.com` }],
    });
    const sessionId = first.body.response.created_session_id;
    expect(first.body.client.sessions).toEqual([expect.objectContaining({ id: sessionId, status: 'pending' })]);
    expect((await eventsSince(h, A.instanceId, since)).map((e) => e.type)).toEqual(['session.created', 'session.pending']);
    expect(await stepUpsOf(u.id)).toEqual([
      expect.objectContaining({
        actor: 'system:risk_based_mfa',
        ip: '203.0.113.7',
        details: expect.objectContaining({ reasons: ['new_device', 'new_network'], second_factor: 'email_code' }),
      }),
    ]);
    // Nothing is emailed before the user asks; TOTP is not what this sign-in takes.
    expect(await h.outbox(u.email)).toEqual([]);
    const totp = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: '123456' },
    });
    expect(totp.status).toBe(422);
    expect(totp.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'strategy', reason: 'invalid_value' } });

    const wrong = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/prepare_second_factor`, {
      body: { strategy: 'email_code' },
    });
    expect(wrong.status).toBe(200);
    const bad = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'email_code', code: '000000' },
    });
    expect(bad.body.errors[0]).toMatchObject({ code: 'CODE_INCORRECT', meta: { remaining_attempts: 4 } });
    h.clock.advance(31_000);
    const done = await stepUp(b, u.email, first.body.response.id, '203.0.113.7');
    expect(done.status).toBe(200);
    expect(done.body.response).toMatchObject({
      status: 'complete',
      second_factor_verification: { strategy: 'email_code', status: 'verified' },
    });
    expect(done.body.client.sessions).toEqual([expect.objectContaining({ id: sessionId, status: 'active' })]);
    const [notice] = (await h.outbox(u.email)).filter((m) => m.template === 'new_device_sign_in');
    expect(notice!.data).toMatchObject({ device: 'Firefox on macOS', ip: '203.0.113.7' });
    const metrics = await (await h.request('GET', '/metrics')).text();
    expect(metrics).toContain(`latchkey_attack_protection_total{instance="${A.instanceId}",rule="step_up"}`);

    // Known now: the same client from the same /24 signs in at once, with no notice.
    const again = await signIn(b, u.email, '203.0.113.99');
    expect(again.body.response).toMatchObject({ status: 'complete', step_up_reasons: null, supported_second_factors: null });
    expect((await h.outbox(u.email)).filter((m) => m.template === 'new_device_sign_in')).toHaveLength(1);
  });

  it('names each new thing: another client on a known network, a known client on another network', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const first = await signIn(b, u.email, '198.51.100.20');
    expect((await stepUp(b, u.email, first.body.response.id, '198.51.100.20')).body.response.status).toBe('complete');

    const otherNetwork = await signIn(b, u.email, '192.0.2.50');
    expect(otherNetwork.body.response).toMatchObject({ status: 'needs_second_factor', step_up_reasons: ['new_network'] });
    const otherClient = await signIn(nativeOf(h, A), u.email, '198.51.100.21');
    expect(otherClient.body.response).toMatchObject({ status: 'needs_second_factor', step_up_reasons: ['new_device'] });
  });

  it('compares IPv6 addresses by /48', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const first = await signIn(b, u.email, '2001:db8:1:2::5');
    expect(first.body.response.step_up_reasons).toEqual(['new_device', 'new_network']);
    await stepUp(b, u.email, first.body.response.id, '2001:db8:1:2::5');
    expect((await signIn(b, u.email, '2001:db8:1:ffff::9')).body.response.status).toBe('complete');
    expect((await signIn(b, u.email, '2001:db8:2::1')).body.response).toMatchObject({
      status: 'needs_second_factor',
      step_up_reasons: ['new_network'],
    });
    expect([networkOf('2001:db8:1:2::5'), networkOf('::ffff:203.0.113.7'), networkOf('203.0.113.7'), networkOf('nonsense')]).toEqual([
      '2001:0db8:0001::/48',
      '203.0.113.0/24',
      '203.0.113.0/24',
      null,
    ]);
  });

  it('asks a TOTP-enrolled user for TOTP, with the reason', async () => {
    const u = await newUser();
    const { secret } = await enrollTotp(h, A.instanceId, u.id);
    const b = browserOf(h, A);
    const first = await signIn(b, u.email, '203.0.113.30');
    expect(first.body.response).toMatchObject({
      status: 'needs_second_factor',
      step_up_reasons: ['new_device', 'new_network'],
      supported_second_factors: [{ strategy: 'totp' }, { strategy: 'backup_code' }],
    });
    const email = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/prepare_second_factor`, {
      body: { strategy: 'email_code' },
    });
    expect(email.status).toBe(422);
    const done = await b.call('POST', `/v1/client/sign_ins/${first.body.response.id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: totpCode(h, secret) },
    });
    expect(done.body.response.status).toBe('complete');
    expect(await stepUpsOf(u.id)).toEqual([expect.objectContaining({ details: expect.objectContaining({ second_factor: 'totp' }) })]);
  });

  it('knows the device a user signed up on', async () => {
    const b = browserOf(h, A);
    const email = `signup${++n}@example.com`;
    const headers = { 'x-forwarded-for': '203.0.113.40' };
    const created = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, password: PASSWORD }, headers });
    const id = created.body.response.id;
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' }, headers });
    const code = await codeSentTo(h, email);
    expect((await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code }, headers })).status).toBe(200);
    expect((await signIn(b, email, '203.0.113.41')).body.response.status).toBe('complete');
  });

  it('counts a new country when a GeoIP lookup is configured', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const dir = mkdtempSync(path.join(tmpdir(), 'latchkey-geoip-'));
    writeFileSync(path.join(dir, 'country.mmdb'), buildCountryMmdb({ '203.0.112.0/22': 'FR', '198.51.100.0/24': 'DE' }));
    h.runtime.deps.geoip = openGeoIpDatabase(path.join(dir, 'country.mmdb')).lookup;
    rmSync(dir, { recursive: true });
    try {
      expect((await h.call('GET', '/v1/risk_based_mfa', { key: A.secret })).body.geoip_enabled).toBe(true);
      const first = await signIn(b, u.email, '203.0.113.60');
      expect(first.body.response.step_up_reasons).toEqual(['new_device', 'new_network', 'new_country']);
      await stepUp(b, u.email, first.body.response.id, '203.0.113.60');
      expect((await signIn(b, u.email, '203.0.114.60')).body.response.step_up_reasons).toEqual(['new_network']);
      expect((await signIn(b, u.email, '198.51.100.60')).body.response.step_up_reasons).toEqual(['new_network', 'new_country']);
    } finally {
      delete h.runtime.deps.geoip;
    }
  });

  it('changes nothing when off', async () => {
    const B = await h.createInstance();
    const u = await newUser(B);
    const res = await signIn(browserOf(h, B), u.email, '203.0.113.70');
    expect(res.body.response).toMatchObject({ status: 'complete', step_up_reasons: null });
    expect(await h.outbox(u.email)).toEqual([]);
  });
});
