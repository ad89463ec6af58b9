import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { verificationCodes } from '../db/schema';
import { isAppError } from '../http/errors';
import { sharedHarness } from '../testing/harness';
import { checkCode, CODE_MAX_FAILURES, issueCode } from './codes';
import { raceTest } from '../testing/races';

const h = sharedHarness();
let instanceId: string;
beforeAll(async () => {
  instanceId = (await h.createInstance()).instanceId;
});

const issue = (attemptId: string, address: string) =>
  h.runtime.deps.db.transaction((tx) => issueCode({ ...h.runtime.deps, db: tx }, { instanceId, attemptId, purpose: 'sign_in', address }));

const check = (attemptId: string, code: string, accept?: boolean) =>
  h.runtime.deps.db.transaction((tx) => checkCode({ ...h.runtime.deps, db: tx }, { attemptId, purpose: 'sign_in', code, accept }));

describe('verification codes', () => {
  raceTest('hold the reissue cap under concurrency: of simultaneous issues to one address, one wins', async () => {
    const results = await Promise.allSettled([
      issue('sia_a', 'race@example.com'),
      issue('sia_b', 'RACE@example.com'),
      issue('sia_c', 'race@example.com'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(isAppError(r.reason) && r.reason.code).toBe('TOO_MANY_ATTEMPTS');
    }
  });

  it('store a keyed digest bound to the row, never the code; a code is spent once', async () => {
    const { code, row } = await issue('sia_digest', 'digest@example.com');
    expect(row.digest).not.toContain(code);
    expect(row.address).toBe('digest@example.com');
    expect(await check('sia_digest', code)).toEqual({ ok: true });
    const again = await check('sia_digest', code);
    expect(again.ok === false && again.error.code).toBe('CODE_EXPIRED');
  });

  it('fail every code when the address names nobody (accept false)', async () => {
    const { code } = await issue('sia_nobody', 'nobody@example.com');
    const res = await check('sia_nobody', code, false);
    expect(res.ok === false && res.error.code).toBe('CODE_INCORRECT');
  });

  it('lock after the fifth failure and record the count', async () => {
    const { code } = await issue('sia_lock', 'lock@example.com');
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < CODE_MAX_FAILURES; i++) await check('sia_lock', wrong);
    const [row] = await h.runtime.deps.db.select().from(verificationCodes).where(eq(verificationCodes.attemptId, 'sia_lock'));
    expect(row).toMatchObject({ status: 'locked', failedAttempts: CODE_MAX_FAILURES });
    const right = await check('sia_lock', code);
    expect(right.ok === false && right.error.code).toBe('TOO_MANY_ATTEMPTS');
  });
});
