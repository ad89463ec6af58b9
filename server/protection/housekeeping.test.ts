import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserOf, type TestInstance } from '../testing/auth-flows';
import { createHarness, type TestHarness } from '../testing/harness';
import { purgeLockoutState } from './housekeeping';

let h: TestHarness;
let A: TestInstance;
beforeAll(async () => {
  h = await createHarness();
  A = await h.createInstance();
  await h.call('PATCH', '/v1/attack_protection', {
    key: A.secret,
    body: { user_lockout: { max_attempts: 3, window_minutes: 1440, lockout_minutes: 30 } },
  });
});
afterAll(() => h.close());

const guess = (identifier: string) =>
  browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier, password: 'a wrong passphrase' } });

describe('purgeLockoutState', () => {
  it('drops failures older than a day and lockouts that ran out, and nothing younger', async () => {
    for (let i = 0; i < 3; i++) await guess('locked@example.com');
    await guess('counted@example.com');
    expect((await guess('locked@example.com')).body.errors[0].code).toBe('USER_LOCKED');
    expect(await purgeLockoutState(h.runtime.deps)).toEqual({ sign_in_failures: 0, identifier_lockouts: 0 });
    h.clock.advance(30 * 60_000);
    expect(await purgeLockoutState(h.runtime.deps)).toEqual({ sign_in_failures: 0, identifier_lockouts: 1 });
    expect((await guess('locked@example.com')).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    h.clock.advance(24 * 3_600_000 + 1);
    expect(await purgeLockoutState(h.runtime.deps)).toEqual({ sign_in_failures: 2, identifier_lockouts: 0 });
  });
});
