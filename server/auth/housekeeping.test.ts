import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signInAttempts, verificationCodes } from '../db/schema';
import { browserOf } from '../testing/auth-flows';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { purgeAuthAttempts } from './housekeeping';

const h = sharedHarness();
const A = sharedInstance(h);

describe('purgeAuthAttempts', () => {
  it('drops attempts past abandon_at and codes older than a day, and nothing younger', async () => {
    const b = browserOf(h, A);
    const id = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'old@example.com' } })).body.response.id;
    await b.call('POST', `/v1/client/sign_ins/${id}/prepare_first_factor`, { body: { strategy: 'email_code' } });
    expect(await purgeAuthAttempts(h.runtime.deps)).toEqual({
      sign_in_attempts: 0,
      sign_up_attempts: 0,
      verification_codes: 0,
      passkey_challenges: 0,
    });
    h.clock.advance(24 * 3_600_000 + 1);
    const young = (await b.call('POST', '/v1/client/sign_ins', { body: { identifier: 'young@example.com' } })).body.response.id;
    expect(await purgeAuthAttempts(h.runtime.deps)).toEqual({
      sign_in_attempts: 1,
      sign_up_attempts: 0,
      verification_codes: 1,
      passkey_challenges: 0,
    });
    expect(await h.runtime.deps.db.select().from(signInAttempts).where(eq(signInAttempts.id, id))).toEqual([]);
    expect(await h.runtime.deps.db.select().from(verificationCodes).where(eq(verificationCodes.attemptId, id))).toEqual([]);
    expect((await b.call('GET', `/v1/client/sign_ins/${young}`)).status).toBe(200);
  });
});
