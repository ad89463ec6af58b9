import { describe, expect, it } from 'vitest';
import { codeSentTo } from '../../../server/testing/auth-flows';
import { sharedHarness, sharedInstance } from '../../../server/testing/harness';
import { inProcessFetch } from '../../test-support/in-process';
import { createTokenVerifier } from '../../backend/src/index';
import { Latchkey, LatchkeyFapiError } from '../src/index';
import { channelHub, memoryLocks } from './fakes';

const h = sharedHarness();
const i = sharedInstance(h);

async function signUpWith(lk: Latchkey, email: string) {
  const created = await lk.signUp.create({ email_address: email, password: 'correct horse battery staple 42' } as never);
  const id = (created as { response: { id: string } }).response.id;
  await lk.signUp.prepareVerification(id, { strategy: 'email_code' } as never);
  await lk.signUp.attemptVerification(id, { code: await codeSentTo(h, email) } as never);
}

describe('@latchkey/browser against the FAPI', () => {
  it('native mode: boots signed out, signs up, mints a token the backend SDK verifies, signs out', async () => {
    let stored: string | null = null;
    const fetch = inProcessFetch(h);
    const lk = new Latchkey({ publishableKey: i.publishableKey, fetch, locks: null, channel: null, tokenStorage: { get: () => stored, set: (t) => void (stored = t) } });
    const changes: (string | null)[] = [];
    lk.addListener((s) => changes.push(s.session?.status ?? null));
    await lk.load();
    expect(lk.isSignedIn).toBe(false);
    expect(await lk.getToken()).toBeNull();
    await signUpWith(lk, 'native-sdk@example.com');
    expect(lk.isSignedIn).toBe(true);
    expect(stored).toMatch(/^ct_/);
    const jwt = await lk.getToken();
    const claims = await createTokenVerifier({ publishableKey: i.publishableKey, fetch }).verify(jwt!);
    expect(claims.sessionId).toBe(lk.session!.id);
    expect(await lk.getUser()).toMatchObject({ id: claims.userId });
    await lk.signOut();
    expect(lk.isSignedIn).toBe(false);
    expect(changes).toEqual(['active', null]);
  });

  it('web mode: two tabs sharing the client cookie mint one token between them', async () => {
    const jar = new Map<string, string>();
    const seen: Request[] = [];
    const fetch = inProcessFetch(h, seen, jar);
    const locks = memoryLocks();
    const hub = channelHub();
    const tab1 = new Latchkey({ publishableKey: i.publishableKey, fetch, locks, channel: hub() });
    await tab1.load();
    await signUpWith(tab1, 'web-sdk@example.com');
    expect(jar.get('__client')).toMatch(/^ct_/);
    const tab2 = new Latchkey({ publishableKey: i.publishableKey, fetch, locks, channel: hub() });
    await tab2.load();
    expect(tab2.session?.id).toBe(tab1.session?.id);
    const before = seen.length;
    const [a, b] = await Promise.all([tab1.getToken(), tab2.getToken()]);
    expect(a).toBe(b);
    expect(seen.slice(before).filter((r) => r.url.endsWith('/tokens'))).toHaveLength(1);
  });

  it('reports FAPI errors with their code', async () => {
    const lk = new Latchkey({ publishableKey: i.publishableKey, fetch: inProcessFetch(h, undefined, new Map()), locks: null, channel: null });
    await lk.load();
    const err = await lk.signIn.password('nobody@example.com', 'wrong password 123').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatchkeyFapiError);
    expect((err as LatchkeyFapiError).status).toBeGreaterThanOrEqual(400);
    expect((err as LatchkeyFapiError).code).toEqual(expect.any(String));
  });
});
