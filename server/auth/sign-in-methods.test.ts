import { describe, expect, it } from 'vitest';
import { browserOf, codeSentTo, instanceWith } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { createTestUser } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { settingsPatchSchema } from '../instances/settings';

const h = sharedHarness();
const PASSWORD = 'a sturdy passphrase 9';
let n = 0;

describe('sign-in methods', () => {
  it('email codes only: no password sign-in or reset, no username; the code works', async () => {
    const I = await instanceWith(h, { sign_in_methods: { password: false, email_code: true, username: false } });
    const email = `methods${++n}@example.com`;
    await createTestUser(h, I, { email_address: [email], username: `methods${n}`, password: PASSWORD });
    const b = browserOf(h, I);
    const env = (await b.call('GET', '/v1/environment')).body.user_settings;
    expect(env.first_factors).toEqual(['email_code']);
    expect(env.identifiers).toEqual(['email_address']);

    expectError(await b.call('POST', '/v1/client/sign_ins', { body: { identifier: `methods${n}` } }), 422, 'VALIDATION_FAILED', { param: 'identifier', reason: 'identifier_not_allowed' });
    expectError(await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: PASSWORD } }), 422, 'VALIDATION_FAILED', { param: 'strategy', reason: 'strategy_not_allowed' });
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email } });
    expect(started.status).toBe(200);
    expect(started.body.response.supported_first_factors.map((f: { strategy: string }) => f.strategy)).toEqual(['email_code']);
    const id = started.body.response.id as string;
    expectError(await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'reset_password_email_code' } }), 422, 'VALIDATION_FAILED', { reason: 'strategy_not_allowed' });
    expect((await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'email_code' } })).status).toBe(200);
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_first_factor`, { body: { strategy: 'email_code', code: await codeSentTo(h, email) } });
    expect(done.body.response.status).toBe('complete');
  });

  it('passwords only: no email code; at least one first factor must stay on', async () => {
    const I = await instanceWith(h, { sign_in_methods: { password: true, email_code: false, username: true } });
    const email = `methods${++n}@example.com`;
    await createTestUser(h, I, { email_address: [email], password: PASSWORD });
    const b = browserOf(h, I);
    expect((await b.call('GET', '/v1/environment')).body.user_settings.first_factors).toEqual(['password', 'reset_password_email_code']);
    const started = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email } });
    expectError(await b.call('POST', `/v1/client/sign_ins/${started.body.response.id}/prepare_first_factor`, { body: { strategy: 'email_code' } }), 422, 'VALIDATION_FAILED', { reason: 'strategy_not_allowed' });
    expect((await b.call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: PASSWORD } })).body.response.status).toBe('complete');
    const none = settingsPatchSchema.safeParse({ sign_in_methods: { password: false, email_code: false, username: true } });
    expect(none.success).toBe(false);
    expect(none.error?.issues[0]).toMatchObject({ params: { reason: 'no_first_factor' } });
  });
});
