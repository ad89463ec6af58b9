import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type StartedApi } from '../../test-support/api-process';
import { createTokenVerifier } from '../../backend/src/index';
import { Latchkey, LatchkeyFapiError } from '../src/index';

/**
 * The browser SDK against the API started as a customer runs it (a child process, the
 * embedded store), over HTTP with its default fetch. Node has no cookie jar, so these run in
 * native mode; web mode (cookies, tabs) runs in Chromium (chromium.test.ts, sdk/published).
 */
let api: StartedApi;
beforeAll(async () => {
  api = await startApi();
}, 120_000);
afterAll(() => api?.stop());

/** The newest verification code sent to `email`, from the dev outbox (as the user reads their mail). */
async function codeSentTo(email: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const r = await fetch(`${api.url}/v1/emails?to=${encodeURIComponent(email)}&template=verification_code`, {
      headers: { authorization: `Bearer ${api.secretKey}` },
    });
    const code = ((await r.json()) as { data: { data: { code?: string } }[] }).data[0]?.data.code;
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no code was sent to ${email}`);
}

const nativeClient = () => {
  let stored: string | null = null;
  const lk = new Latchkey({
    publishableKey: api.publishableKey,
    locks: null,
    channel: null,
    tokenStorage: { get: () => stored, set: (t) => void (stored = t) },
  });
  return { lk, stored: () => stored };
};

describe('@latchkey/browser against a started API', () => {
  it('native mode: boots signed out, signs up with the emailed code, mints a token the backend SDK verifies, signs out', async () => {
    const { lk, stored } = nativeClient();
    const changes: (string | null)[] = [];
    lk.addListener((s) => changes.push(s.session?.status ?? null));
    await lk.load();
    expect(lk.isSignedIn).toBe(false);
    expect(await lk.getToken()).toBeNull();

    const email = 'native-sdk@example.com';
    const { response } = await lk.signUp.create({ email_address: email, password: 'correct horse battery staple 42' });
    await lk.signUp.prepareVerification(response.id, { strategy: 'email_code' });
    await lk.signUp.attemptVerification(response.id, { code: await codeSentTo(email) });
    expect(lk.isSignedIn).toBe(true);
    expect(stored()).toMatch(/^ct_/);

    const jwt = await lk.getToken();
    expect(await lk.getToken()).toBe(jwt); // cached, not minted again
    expect(lk.tokenRequests).toBe(1);
    const claims = await createTokenVerifier({ publishableKey: api.publishableKey }).verify(jwt!);
    expect(claims.sessionId).toBe(lk.session!.id);
    expect(await lk.getUser()).toMatchObject({ id: claims.userId });
    await lk.signOut();
    expect(lk.isSignedIn).toBe(false);
    expect(changes).toEqual(['active', null]);
  });

  it('reports FAPI errors with their status and code', async () => {
    const { lk } = nativeClient();
    await lk.load();
    const err = await lk.signIn.password('nobody@example.com', 'wrong password 123').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatchkeyFapiError);
    expect((err as LatchkeyFapiError).status).toBeGreaterThanOrEqual(400);
    expect((err as LatchkeyFapiError).status).toBeLessThan(500);
    expect((err as LatchkeyFapiError).code).toMatch(/^[A-Z_]+$/);
  });
});
