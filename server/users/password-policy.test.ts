import { describe, expect, it } from 'vitest';
import { browserOf, instanceWith } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { sharedHarness } from '../testing/harness';

const h = sharedHarness();
let n = 0;

describe('the instance password policy', () => {
  it('holds sign-up to the minimum length and the required kinds of characters, and shows in the environment', async () => {
    const policy = { min_length: 12, require_uppercase: true, require_lowercase: true, require_digit: true, require_symbol: true };
    const I = await instanceWith(h, { password_policy: policy });
    const b = browserOf(h, I);
    expect((await b.call('GET', '/v1/environment')).body.user_settings.password_settings).toEqual(policy);
    const signUp = (password: string) =>
      b.call('POST', '/v1/client/sign_ups', { body: { email_address: `pp${++n}@example.com`, password } });

    const short = await signUp('Ab1!short');
    expectError(short, 422, 'VALIDATION_FAILED', { param: 'password', reason: 'too_short', min_length: 12 });
    expectError(await signUp('lowercase only 1!'), 422, 'VALIDATION_FAILED', { param: 'password', reason: 'missing_uppercase' });
    expectError(await signUp('UPPERCASE ONLY 1!'), 422, 'VALIDATION_FAILED', { param: 'password', reason: 'missing_lowercase' });
    expectError(await signUp('No Digits Here!'), 422, 'VALIDATION_FAILED', { param: 'password', reason: 'missing_digit' });
    expectError(await signUp('No Symbols Here 1'), 422, 'VALIDATION_FAILED', { param: 'password', reason: 'missing_symbol' });
    expect((await signUp('Älles Gute 2026!')).status).toBe(200);
  });

  it('is 8 characters and nothing more by default', async () => {
    const b = browserOf(h, await instanceWith(h));
    expect((await b.call('GET', '/v1/environment')).body.user_settings.password_settings).toMatchObject({
      min_length: 8,
      require_symbol: false,
    });
    expect(
      (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: `pp${++n}@example.com`, password: 'plainpassword' } })).status,
    ).toBe(200);
  });
});
