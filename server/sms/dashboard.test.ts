import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole, invitedViewer, type ConsoleBrowser } from '../testing/console-client';
import { expectError } from '../testing/expect';
import { startFakeTwilio } from '../testing/fake-twilio';
import { createHarness, type TestHarness } from '../testing/harness';

/** The console's SMS card: its calls under /v1/dashboard; viewers read, admins write and test; the token never comes back. */
const ACCOUNT = { sid: `AC${'c3'.repeat(16)}`, authToken: 'console-twilio-token' };
let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let viewer: ConsoleBrowser;
let base: string;
let fake: Awaited<ReturnType<typeof startFakeTwilio>>;

beforeAll(async () => {
  h = await createHarness({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  fake = await startFakeTwilio(ACCOUNT);
  owner = await claimedConsole(h);
  const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Texts', environment: 'test' } });
  base = `/accounts/${owner.accountId}/instances/${instance.body.id}`;
  viewer = await invitedViewer(h, owner);
});
afterAll(async () => {
  await fake.close();
  await h.close();
});

describe('dashboard SMS settings', () => {
  it('an admin configures Twilio and sends a test; the audit names the operator; the token stays write-only', async () => {
    const set = await owner.b.dash('PATCH', `${base}/sms_settings`, {
      body: {
        account_id: ACCOUNT.sid,
        auth_token: ACCOUNT.authToken,
        messaging_service_id: `MG${'d4'.repeat(16)}`,
        api_base_url: fake.url,
        allowed_country_codes: ['44'],
      },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ configured: true, auth_token_set: true, allowed_country_codes: ['44'] });
    expect(JSON.stringify(set.body)).not.toContain(ACCOUNT.authToken);

    const sent = await owner.b.dash('POST', `${base}/sms_settings/test_send`, { body: { to: '+447700900001' } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body).toMatchObject({ object: 'sms', status: 'sent', delivered_by: 'twilio', template: 'test_message' });
    const message = fake.messages.at(-1)!;
    expect(message.form).toMatchObject({ To: '+447700900001', MessagingServiceSid: `MG${'d4'.repeat(16)}` });
    expect(message.form.From).toBeUndefined();
    expect((await owner.b.dash('GET', `${base}/sms/${sent.body.id}`)).body).toMatchObject({
      status: 'sent',
      provider_message_id: message.sid,
    });

    expectError(await owner.b.dash('POST', `${base}/sms_settings/test_send`, { body: { to: '+14155550123' } }), 422, 'VALIDATION_FAILED', {
      reason: 'country_not_allowed',
    });
    const log = await owner.b.dash('GET', `${base}/audit_logs?action=sms.test_sent`);
    expect(log.body.data[0]).toMatchObject({ actor_kind: 'operator', details: { to: '+447700900001' } });
  });

  it('a viewer reads the settings but cannot change them or send', async () => {
    expect((await viewer.dash('GET', `${base}/sms_settings`)).body).toMatchObject({ object: 'sms_settings', auth_token_set: true });
    expectError(await viewer.dash('PATCH', `${base}/sms_settings`, { body: { auth_token: null } }), 403, 'FORBIDDEN', {
      reason: 'role_required',
    });
    expectError(await viewer.dash('POST', `${base}/sms_settings/test_send`, { body: { to: '+447700900002' } }), 403, 'FORBIDDEN', {
      reason: 'role_required',
    });
  });
});
