import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, smsMessages, smsSettings } from '../db/schema';
import { sendSms } from './send';
import { browserOf, eventsDuring, instanceWith } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { bapiWith, type TestInstance } from '../testing/fapi-helpers';
import { startFakeTwilio } from '../testing/fake-twilio';
import { sharedHarness } from '../testing/harness';
import {
  checkStuckSms,
  retryDueSms,
  SMS_CLAIM_LEASE_MS,
  SMS_RETRY_DELAYS_MS,
  SMS_STATUS_CHECK_AFTER_MS,
  SMS_STATUS_CHECK_UNTIL_MS,
} from './delivery';
import { twilioSignature } from './twilio';

/** SMS through Twilio, end to end against a fake Twilio on loopback. */
const ACCOUNT = { sid: `AC${'a1'.repeat(16)}`, authToken: 'twilio-auth-token-secret' };
const FROM = '+15005550006';
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000', ALLOW_PRIVATE_TARGETS: '1', SMS_PROVIDER_TIMEOUT: '2' } });
let fake: Awaited<ReturnType<typeof startFakeTwilio>>;
let n = 0;
/** A fresh UK mobile number per call: each has its own per-number budget. */
const ukNumber = () => `+4477009${String(++n).padStart(5, '0')}`;

beforeAll(async () => {
  fake = await startFakeTwilio(ACCOUNT);
});
afterAll(() => fake.close());

async function configured(settings: Parameters<typeof instanceWith>[1] = {}, extra: Record<string, unknown> = {}) {
  const i = await instanceWith(h, settings);
  const res = await h.call('PATCH', '/v1/sms_settings', {
    key: i.secret,
    body: { account_id: ACCOUNT.sid, auth_token: ACCOUNT.authToken, from_number: FROM, api_base_url: fake.url, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return i;
}

/** The SMS as it stands once its background delivery finished. */
async function settled(smsId: string) {
  for (let k = 0; k < 100; k++) {
    const [row] = await h.runtime.deps.db.select().from(smsMessages).where(eq(smsMessages.id, smsId));
    if (row && (row.status !== 'queued' || row.error)) return row;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`SMS ${smsId} never settled`);
}

function postCallback(i: TestInstance, cb: { url: string; body: string; signature: string }, signature = cb.signature) {
  const url = new URL(cb.url);
  return h.call('POST', url.pathname + url.search, {
    raw: cb.body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
  });
}

/** latchkey_sms_deliveries_total for Twilio and a status, as GET /metrics answers it. */
async function deliveriesCounted(status: string): Promise<number> {
  const text = await (await h.request('GET', '/metrics')).text();
  const m = new RegExp(`^latchkey_sms_deliveries_total\\{provider="twilio",status="${status}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

describe('SMS settings', () => {
  it('are write-only for the auth token, validated, audited with the fields sent', async () => {
    const i = await instanceWith(h);
    const before = await h.call('GET', '/v1/sms_settings', { key: i.secret });
    expect(before.body).toMatchObject({
      object: 'sms_settings',
      provider: 'twilio',
      configured: false,
      auth_token_set: false,
      allowed_country_codes: [],
    });
    expect(before.body.status_callback_url).toBe(`http://localhost:3000/v1/sms_callbacks/twilio/${i.instanceId}`);

    const set = await h.call('PATCH', '/v1/sms_settings', {
      key: i.secret,
      body: { account_id: ACCOUNT.sid, auth_token: ACCOUNT.authToken, from_number: FROM, allowed_country_codes: ['+44', '1', '44'] },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({
      configured: true,
      account_id: ACCOUNT.sid,
      auth_token_set: true,
      from_number: FROM,
      allowed_country_codes: ['1', '44'],
    });
    expect(JSON.stringify(set.body)).not.toContain(ACCOUNT.authToken);
    const [stored] = await h.runtime.deps.db.select().from(smsSettings).where(eq(smsSettings.instanceId, i.instanceId));
    expect(stored!.authTokenEncrypted).not.toContain(ACCOUNT.authToken);
    expect(h.runtime.deps.cipher.decrypt(stored!.authTokenEncrypted!)).toBe(ACCOUNT.authToken);
    const [entry] = await h.runtime.deps.db.select().from(auditLogs).where(eq(auditLogs.action, 'sms_settings.updated'));
    expect(entry!.details).toEqual({ fields: ['account_id', 'allowed_country_codes', 'auth_token', 'from_number'] });
    expect(JSON.stringify(entry)).not.toContain(ACCOUNT.authToken);

    expectError(await h.call('PATCH', '/v1/sms_settings', { key: i.secret, body: { account_id: 'nope' } }), 422, 'VALIDATION_FAILED', {
      param: 'account_id',
    });
    expectError(
      await h.call('PATCH', '/v1/sms_settings', { key: i.secret, body: { allowed_country_codes: ['999'] } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'allowed_country_codes.0',
        reason: 'invalid_country_code',
      },
    );
    expectError(await h.call('PATCH', '/v1/sms_settings', { key: i.secret, body: { from_number: '555' } }), 422, 'VALIDATION_FAILED', {
      param: 'from_number',
    });
    const readOnly = await h.createKey(i.instanceId, 'sms:read');
    expectError(await h.call('PATCH', '/v1/sms_settings', { key: readOnly.secret, body: { auth_token: null } }), 403, 'SCOPE_MISSING');
  });

  it('refuse an API base on a private address for a live instance (the SSRF guard)', async () => {
    const live = await h.createInstance({ environment: 'live' });
    expectError(
      await h.call('PATCH', '/v1/sms_settings', { key: live.secret, body: { api_base_url: fake.url } }),
      422,
      'VALIDATION_FAILED',
      { param: 'api_base_url' },
    );
  });
});

describe('an SMS code through Twilio', () => {
  it('reaches the fake Twilio with the configured credentials; its delivery status comes back by the signed callback', async () => {
    const i = await configured({
      sign_in_methods: {
        password: true,
        email_code: true,
        username: true,
        phone_code: true,
        email_link: false,
        email_link_same_browser: false,
      },
    });
    const phone = ukNumber();
    const user = await bapiWith(h, i).ok('POST', '/v1/users', { phone_number: [phone] });
    const b = browserOf(h, i);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: phone } })).body.response.id;
    const { result: prepared, events } = await eventsDuring(h, i.instanceId, () =>
      b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'phone_code' } }),
    );
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    // sms.created announces it without the code: Twilio delivers it, the webhook consumer has no need of it.
    expect(events.find((e) => e.type === 'sms.created')?.data).toMatchObject({
      to: phone,
      delivered_by: 'twilio',
      body: null,
      data: {},
      body_redacted: true,
    });

    const [queued] = await h.smsOutbox(phone);
    expect(queued).toMatchObject({ delivered_by: 'twilio', from: FROM, template: 'verification_code' });
    const sms = await settled(queued!.id);
    expect(sms).toMatchObject({ status: 'sent', attempts: 1, error: null, nextAttemptAt: null });
    const sent = fake.messages.find((m) => m.form.To === phone)!;
    expect(sent.basicAuth).toBe(`${ACCOUNT.sid}:${ACCOUNT.authToken}`);
    expect(sent.form).toMatchObject({
      To: phone,
      From: FROM,
      StatusCallback: `http://localhost:3000/v1/sms_callbacks/twilio/${i.instanceId}?sms_id=${sms.id}`,
    });
    expect(sms.providerMessageId).toBe(sent.sid);
    const code = /(\d{6})/.exec(sent.form.Body!)![1]!;

    // The code from the phone signs in.
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, { body: { strategy: 'phone_code', code } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.client.sessions[0]).toMatchObject({ user_id: user.id, status: 'active' });

    // A forged callback is refused and changes nothing.
    const delivered = fake.signedCallback(sent.sid, 'delivered');
    expectError(await postCallback(i, delivered, 'bm90IGl0'), 403, 'FORBIDDEN', { reason: 'signature_invalid' });
    expectError(await postCallback(i, { ...delivered, body: delivered.body.replace('delivered', 'failed') }), 403, 'FORBIDDEN', {
      reason: 'signature_invalid',
    });
    expect((await h.call('GET', `/v1/sms/${sms.id}`, { key: i.secret })).body.status).toBe('sent');

    const ok = await postCallback(i, delivered);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ object: 'sms_status_callback', received: true, sms_id: sms.id, status: 'delivered' });
    // A late `sent` never moves it back.
    expect((await postCallback(i, fake.signedCallback(sent.sid, 'sent'))).status).toBe(200);
    expect((await h.call('GET', `/v1/sms/${sms.id}`, { key: i.secret })).body).toMatchObject({
      status: 'delivered',
      provider_message_id: sent.sid,
      delivered_by: 'twilio',
    });
  });

  it('records a carrier’s undelivered report with its error code', async () => {
    const i = await configured();
    const to = ukNumber();
    const sms = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to } })).body;
    expect(sms).toMatchObject({ object: 'sms', status: 'sent', template: 'test_message', to });
    const cb = fake.signedCallback(sms.provider_message_id, 'undelivered', {
      ErrorCode: '30003',
      ErrorMessage: 'Unreachable destination handset',
    });
    expect((await postCallback(i, cb)).status).toBe(200);
    expect((await h.call('GET', `/v1/sms/${sms.id}`, { key: i.secret })).body).toMatchObject({
      status: 'undelivered',
      error_code: '30003',
      error: 'Unreachable destination handset',
    });
  });

  it('records a callback that overtakes the send’s answer; the outcome saved afterwards does not move the SMS back', async () => {
    const i = await configured();
    const to = ukNumber();
    const early: { status: number; body: Record<string, unknown> }[] = [];
    fake.state.beforeAnswer = async (m) => {
      early.push(await postCallback(i, fake.signedCallback(m.sid, 'delivered')));
    };
    const sms = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to } })).body;
    fake.state.beforeAnswer = undefined;
    const sent = fake.messages.find((m) => m.form.To === to)!;
    expect(sent.form.StatusCallback).toBe(`http://localhost:3000/v1/sms_callbacks/twilio/${i.instanceId}?sms_id=${sms.id}`);
    expect(early).toEqual([
      expect.objectContaining({
        status: 200,
        body: { object: 'sms_status_callback', received: true, sms_id: sms.id, status: 'delivered' },
      }),
    ]);
    const expected = {
      status: 'delivered',
      provider_message_id: sent.sid,
      attempts: 1,
      error: null,
      error_code: null,
      next_attempt_at: null,
    };
    expect(sms).toMatchObject(expected);
    expect((await h.call('GET', `/v1/sms/${sms.id}`, { key: i.secret })).body).toMatchObject(expected);
    // Nothing is due: the SMS is not sent again.
    h.clock.advance(SMS_CLAIM_LEASE_MS);
    await retryDueSms(h.runtime.deps);
    expect(fake.messages.filter((m) => m.form.To === to)).toHaveLength(1);
  });

  it('refuses a callback whose SMS id was changed (the id is under the signature); one without an id matches the message id', async () => {
    const i = await configured();
    const first = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    const second = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    const cb = fake.signedCallback(first.provider_message_id, 'failed', { ErrorCode: '30008', ErrorMessage: 'Unknown error' });
    expectError(await postCallback(i, { ...cb, url: cb.url.replace(first.id, second.id) }), 403, 'FORBIDDEN', {
      reason: 'signature_invalid',
    });
    expect((await h.call('GET', `/v1/sms/${second.id}`, { key: i.secret })).body.status).toBe('sent');

    // A send made before StatusCallback named the SMS: its callback URL is the bare one.
    const bare = `http://localhost:3000/v1/sms_callbacks/twilio/${i.instanceId}`;
    const form = Object.fromEntries(new URLSearchParams(fake.signedCallback(second.provider_message_id, 'delivered').body));
    const res = await postCallback(i, {
      url: bare,
      body: new URLSearchParams(form).toString(),
      signature: twilioSignature(ACCOUNT.authToken, bare, form),
    });
    expect(res.body).toEqual({ object: 'sms_status_callback', received: true, sms_id: second.id, status: 'delivered' });
  });

  it('reads the status of an SMS stuck in sent from Twilio (its callback never came), every 10 minutes within the first hour', async () => {
    const i = await configured();
    const reaches = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    const silent = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    const reads = (sid: string) => fake.requests.filter((r) => r.path.endsWith(`/Messages/${sid}.json`));
    fake.messages.find((m) => m.sid === reaches.provider_message_id)!.status = 'delivered';
    fake.messages.find((m) => m.sid === silent.provider_message_id)!.status = 'sent';

    // Not yet: a callback may still come.
    await checkStuckSms(h.runtime.deps);
    expect(reads(reaches.provider_message_id)).toEqual([]);

    h.clock.advance(SMS_STATUS_CHECK_AFTER_MS);
    await checkStuckSms(h.runtime.deps);
    expect(reads(reaches.provider_message_id)).toEqual([
      { path: expect.any(String), basicAuth: `${ACCOUNT.sid}:${ACCOUNT.authToken}`, status: 200 },
    ]);
    expect((await h.call('GET', `/v1/sms/${reaches.id}`, { key: i.secret })).body).toMatchObject({ status: 'delivered', error: null });
    const still = (await h.call('GET', `/v1/sms/${silent.id}`, { key: i.secret })).body;
    expect(still).toMatchObject({ status: 'sent', updated_at: h.clock.now() });

    // Checked again only after another 10 minutes; the carrier's report then comes through.
    await checkStuckSms(h.runtime.deps);
    expect(reads(silent.provider_message_id)).toHaveLength(1);
    Object.assign(
      fake.messages.find((m) => m.sid === silent.provider_message_id)!,
      { status: 'undelivered', errorCode: 30003 },
    );
    h.clock.advance(SMS_STATUS_CHECK_AFTER_MS);
    await checkStuckSms(h.runtime.deps);
    expect((await h.call('GET', `/v1/sms/${silent.id}`, { key: i.secret })).body).toMatchObject({
      status: 'undelivered',
      error_code: '30003',
      error: 'Unreachable destination handset',
    });
    expect(reads(reaches.provider_message_id)).toHaveLength(1);

    // Past the first hour an SMS left `sent` (a carrier without delivery reports) is left alone.
    const quiet = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    h.clock.advance(SMS_STATUS_CHECK_UNTIL_MS + 1);
    await checkStuckSms(h.runtime.deps);
    expect(reads(quiet.provider_message_id)).toEqual([]);
  });

  it('counts delivery outcomes by provider and status in the Prometheus metrics', async () => {
    const i = await configured();
    const before = {
      sent: await deliveriesCounted('sent'),
      retrying: await deliveriesCounted('retrying'),
      failed: await deliveriesCounted('failed'),
      delivered: await deliveriesCounted('delivered'),
    };
    fake.state.failNext.push(503, { status: 400, code: 21211, message: "The 'To' number is not a valid phone number." });
    const retrying = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } });
    const ok = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    const delivered = fake.signedCallback(ok.provider_message_id, 'delivered');
    await postCallback(i, delivered);
    // A repeated callback changes nothing and is not counted again.
    await postCallback(i, delivered);
    expect({
      sent: await deliveriesCounted('sent'),
      retrying: await deliveriesCounted('retrying'),
      failed: await deliveriesCounted('failed'),
      delivered: await deliveriesCounted('delivered'),
    }).toEqual({
      sent: before.sent + 1,
      retrying: before.retrying + 1,
      failed: before.failed + 1,
      delivered: before.delivered + 1,
    });
    // The retry goes out, and is counted as sent.
    h.clock.advance(SMS_RETRY_DELAYS_MS[0]);
    await retryDueSms(h.runtime.deps);
    expect((await h.call('GET', `/v1/sms/${retrying.id}`, { key: i.secret })).body.status).toBe('sent');
    expect(await deliveriesCounted('sent')).toBe(before.sent + 2);
  });

  it('stays in the dev outbox when no provider is configured', async () => {
    const i = await instanceWith(h);
    const to = ukNumber();
    await sendSms(h.runtime.deps, { instanceId: i.instanceId, to, template: 'test_message', data: {} });
    expect((await h.smsOutbox(to))[0]).toMatchObject({
      status: 'delivered',
      delivered_by: 'outbox',
      attempts: 1,
      provider_message_id: null,
    });
    expectError(await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to } }), 409, 'CONFLICT', {
      reason: 'not_configured',
    });
    expect(fake.messages.some((m) => m.form.To === to)).toBe(false);
  });
});

describe('failed sends', () => {
  it('are retried with backoff on 5xx and timeouts, then sent', async () => {
    const i = await configured();
    const to = ukNumber();
    fake.state.failNext.push(503, 'hang');
    const first = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to } })).body;
    expect(first).toMatchObject({
      status: 'queued',
      attempts: 1,
      error_code: '20500',
      next_attempt_at: h.clock.now() + SMS_RETRY_DELAYS_MS[0],
    });
    expect(first.error).toContain('Internal server error');

    // Not due yet: nothing happens.
    expect(await retryDueSms(h.runtime.deps)).toMatchObject({ attempted: 0 });
    h.clock.advance(SMS_RETRY_DELAYS_MS[0]);
    expect(await retryDueSms(h.runtime.deps)).toMatchObject({ attempted: 1, queued: 1 });
    const second = (await h.call('GET', `/v1/sms/${first.id}`, { key: i.secret })).body;
    expect(second).toMatchObject({
      status: 'queued',
      attempts: 2,
      error_code: 'timeout',
      next_attempt_at: h.clock.now() + SMS_RETRY_DELAYS_MS[1],
    });

    h.clock.advance(SMS_RETRY_DELAYS_MS[1]);
    expect(await retryDueSms(h.runtime.deps)).toMatchObject({ attempted: 1, sent: 1 });
    const third = (await h.call('GET', `/v1/sms/${first.id}`, { key: i.secret })).body;
    expect(third).toMatchObject({ status: 'sent', attempts: 3, error: null, error_code: null, next_attempt_at: null });
    expect(fake.messages.filter((m) => m.form.To === to)).toHaveLength(1);
  });

  it('fail at once when Twilio refuses the message, and after the last retry otherwise: never dropped silently', async () => {
    const i = await configured();
    fake.state.failNext.push({ status: 400, code: 21211, message: "The 'To' number is not a valid phone number." });
    const refused = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    expect(refused).toMatchObject({ status: 'failed', attempts: 1, error_code: '21211', next_attempt_at: null });

    const to = ukNumber();
    fake.state.failNext.push(...Array.from({ length: SMS_RETRY_DELAYS_MS.length + 1 }, () => 500));
    const sms = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to } })).body;
    for (const delay of SMS_RETRY_DELAYS_MS) {
      h.clock.advance(delay);
      await retryDueSms(h.runtime.deps);
    }
    expect((await h.call('GET', `/v1/sms/${sms.id}`, { key: i.secret })).body).toMatchObject({
      status: 'failed',
      attempts: SMS_RETRY_DELAYS_MS.length + 1,
      error_code: '20500',
      next_attempt_at: null,
    });
    fake.state.failNext.length = 0;
  });

  it('wrong credentials fail with Twilio’s error code (Basic auth checked)', async () => {
    const i = await configured({}, { auth_token: 'not-the-token' });
    const sms = (await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).body;
    expect(sms).toMatchObject({ status: 'failed', error_code: '20003' });
    expect(fake.requests.at(-1)).toMatchObject({ status: 401, basicAuth: `${ACCOUNT.sid}:not-the-token` });
  });

  it('are not lost when a process stops between writes: the sweep sends a written SMS and one whose claim lapsed', async () => {
    const i = await configured();
    const to = ukNumber();
    // Written in a transaction whose process stopped before handing it over.
    const written = await sendSms(h.runtime.deps, { instanceId: i.instanceId, to, template: 'test_message', data: {} });
    expect(written.status).toBe('queued');
    // Another one claimed by a process that stopped before recording the outcome.
    const to2 = ukNumber();
    const claimed = await sendSms(h.runtime.deps, { instanceId: i.instanceId, to: to2, template: 'test_message', data: {} });
    await h.runtime.deps.db
      .update(smsMessages)
      .set({ attempts: 1, nextAttemptAt: h.clock.now() + SMS_CLAIM_LEASE_MS })
      .where(eq(smsMessages.id, claimed.id));

    await retryDueSms(h.runtime.deps);
    expect((await h.smsOutbox(to))[0]).toMatchObject({ status: 'sent', attempts: 1 });
    expect((await h.smsOutbox(to2))[0]).toMatchObject({ status: 'queued', attempts: 1 });
    h.clock.advance(SMS_CLAIM_LEASE_MS);
    await retryDueSms(h.runtime.deps);
    expect((await h.smsOutbox(to2))[0]).toMatchObject({ status: 'sent', attempts: 2 });
  });
});

describe('SMS pumping protection', () => {
  it('sends only to the allow-listed country calling codes', async () => {
    const i = await configured(
      {
        sign_in_methods: {
          password: true,
          email_code: true,
          username: true,
          phone_code: true,
          email_link: false,
          email_link_same_browser: false,
        },
      },
      { allowed_country_codes: ['44'] },
    );
    const us = '+14155550123';
    expectError(await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: us } }), 422, 'VALIDATION_FAILED', {
      param: 'to',
      reason: 'country_not_allowed',
      country_code: '1',
    });
    // A sign-in answers the same whether the number belongs to someone or not.
    const b = browserOf(h, i);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: us } })).body.response.id;
    expectError(
      await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'phone_code' } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'identifier',
        reason: 'country_not_allowed',
      },
    );
    expect(await h.smsOutbox(us)).toEqual([]);
    expect((await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).status).toBe(200);
  });

  it('bounds the SMS to one number and to one country per hour (429 with a reason)', async () => {
    const i = await configured();
    expect(
      (await h.call('PATCH', '/v1/rate_limit_policy', { key: i.secret, body: { sms_per_number: 2, sms_per_country: 4 } })).status,
    ).toBe(200);
    const to = ukNumber();
    for (let k = 0; k < 2; k++)
      expect((await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to } })).status).toBe(200);
    const third = await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to } });
    expectError(third, 429, 'RATE_LIMITED', { reason: 'number_limit' });
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

    for (let k = 0; k < 2; k++)
      expect((await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } })).status).toBe(200);
    expectError(await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: ukNumber() } }), 429, 'RATE_LIMITED', {
      reason: 'country_limit',
    });
    // Another country still has its own budget.
    expect((await h.call('POST', '/v1/sms_settings/test_send', { key: i.secret, body: { to: '+33612345678' } })).status).toBe(200);
    const sent = fake.messages.filter((m) => m.form.To === to);
    expect(sent).toHaveLength(2);
  });
});
