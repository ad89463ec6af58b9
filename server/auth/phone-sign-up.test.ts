import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserOf, eventsSince, instanceWith } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { startFakeTwilio } from '../testing/fake-twilio';
import { sharedHarness } from '../testing/harness';

/** Phone sign-up over HTTP: the code goes by SMS (the fake Twilio, or the dev outbox), ending in a session. */
const ACCOUNT = { sid: `AC${'b2'.repeat(16)}`, authToken: 'phone-sign-up-token' };
const PHONE_ON = {
  sign_in_methods: {
    password: true,
    email_code: true,
    username: true,
    phone_code: true,
    email_link: false,
    email_link_same_browser: false,
  },
};
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000', ALLOW_PRIVATE_TARGETS: '1' } });
let fake: Awaited<ReturnType<typeof startFakeTwilio>>;
let n = 0;
const phone = () => `+3361234${String(++n).padStart(4, '0')}`;

beforeAll(async () => {
  fake = await startFakeTwilio(ACCOUNT);
});
afterAll(() => fake.close());

async function smsCodeFromTwilio(to: string) {
  for (let k = 0; k < 100; k++) {
    const m = fake.messages.filter((x) => x.form.To === to).at(-1);
    if (m) return /(\d{6})/.exec(m.form.Body!)![1]!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`No SMS reached Twilio for ${to}`);
}

describe('phone sign-up', () => {
  it('works end to end through Twilio: create, prepare phone_code, attempt; the user has the number verified and an active session', async () => {
    const i = await instanceWith(h, { ...PHONE_ON, password_required: false });
    await h.call('PATCH', '/v1/sms_settings', {
      key: i.secret,
      body: { account_id: ACCOUNT.sid, auth_token: ACCOUNT.authToken, from_number: '+15005550006', api_base_url: fake.url },
    });
    const since = h.clock.now();
    const b = browserOf(h, i);
    const number = phone();
    const created = await b.call('POST', '/v1/client/sign_ups', { body: { phone_number: number, first_name: 'Pat' } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.response).toMatchObject({
      status: 'missing_requirements',
      email_address: null,
      phone_number: number,
      required_fields: ['phone_number'],
      unverified_fields: ['phone_number'],
      verifications: { email_address: null, phone_number: null },
    });
    const id = created.body.response.id;
    expectError(
      await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } }),
      422,
      'VALIDATION_FAILED',
      { param: 'strategy' },
    );
    const prepared = await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'phone_code' } });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    expect(prepared.body.response.verifications.phone_number).toMatchObject({ status: 'unverified', strategy: 'phone_code' });

    const code = await smsCodeFromTwilio(number);
    const message = fake.messages.find((m) => m.form.To === number)!;
    expect(message.basicAuth).toBe(`${ACCOUNT.sid}:${ACCOUNT.authToken}`);
    const done = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { strategy: 'phone_code', code } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response).toMatchObject({
      status: 'complete',
      unverified_fields: [],
      verifications: { phone_number: { status: 'verified' } },
    });
    const userId = done.body.response.created_user_id;
    expect(done.body.client.session).toMatchObject({ user_id: userId, status: 'active' });

    const user = (await h.call('GET', `/v1/users/${userId}`, { key: i.secret })).body;
    expect(user).toMatchObject({
      first_name: 'Pat',
      email_addresses: [],
      phone_numbers: [{ phone_number: number, verification: { status: 'verified', strategy: 'phone_code' } }],
    });
    expect(user.primary_phone_number_id).toBe(user.phone_numbers[0].id);
    expect((await eventsSince(h, i.instanceId, since)).map((e) => e.type)).toEqual(['sms.created', 'user.created', 'session.created']);

    // The number now signs in by SMS, and cannot sign up again.
    const again = await browserOf(h, i).call('POST', '/v1/client/sign_ups', { body: { phone_number: number } });
    expectError(again, 422, 'VALIDATION_FAILED', { param: 'phone_number', reason: 'taken' });
  });

  it('sends the code to the dev outbox when no provider is configured', async () => {
    const i = await instanceWith(h, { ...PHONE_ON, password_required: false });
    const b = browserOf(h, i);
    const number = phone();
    const id = (await b.call('POST', '/v1/client/sign_ups', { body: { phone_number: number } })).body.response.id;
    await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'phone_code' } });
    const [sms] = await h.smsOutbox(number);
    expect(sms).toMatchObject({ delivered_by: 'outbox', status: 'delivered', template: 'verification_code' });
    const done = await b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code: sms!.data.code } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
  });

  it('follows the settings: phone numbers on, public sign-up, the password rule, the country allow-list', async () => {
    const off = await instanceWith(h);
    expectError(
      await browserOf(h, off).call('POST', '/v1/client/sign_ups', { body: { phone_number: phone() } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'phone_number',
        reason: 'identifier_not_allowed',
      },
    );
    const restricted = await instanceWith(h, { ...PHONE_ON, sign_up_mode: 'restricted', password_required: false });
    expectError(
      await browserOf(h, restricted).call('POST', '/v1/client/sign_ups', { body: { phone_number: phone() } }),
      403,
      'SIGN_UP_NOT_ALLOWED',
      { reason: 'restricted' },
    );
    const withPassword = await instanceWith(h, PHONE_ON);
    expectError(
      await browserOf(h, withPassword).call('POST', '/v1/client/sign_ups', { body: { phone_number: phone() } }),
      422,
      'VALIDATION_FAILED',
      { param: 'password', reason: 'required' },
    );
    expectError(
      await browserOf(h, withPassword).call('POST', '/v1/client/sign_ups', {
        body: { phone_number: phone(), email_address: 'both@example.com' },
      }),
      422,
      'VALIDATION_FAILED',
      { param: 'phone_number', reason: 'invalid' },
    );
    const uk = await instanceWith(h, { ...PHONE_ON, password_required: false });
    await h.call('PATCH', '/v1/sms_settings', { key: uk.secret, body: { allowed_country_codes: ['44'] } });
    expectError(await browserOf(h, uk).call('POST', '/v1/client/sign_ups', { body: { phone_number: phone() } }), 422, 'VALIDATION_FAILED', {
      param: 'phone_number',
      reason: 'country_not_allowed',
      country_code: '33',
    });
  });
});
