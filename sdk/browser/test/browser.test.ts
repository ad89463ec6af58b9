import { describe, expect, it } from 'vitest';
import { Latchkey, fapiUrlFromPublishableKey } from '../src/index';
import { channelHub, memoryLocks } from './fakes';

const PK = `pk_test_${Buffer.from('auth.example.com/fapi/ins_1$').toString('base64url')}`;
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwtFor = (exp: number, n: number) => `${b64({ alg: 'RS256' })}.${b64({ sub: 'user_1', sid: 'sess_1', exp, n })}.sig`;

const session = (status = 'active') => ({ object: 'session', id: 'sess_1', user_id: 'user_1', status, tasks: [] });
const client = (signedIn: boolean) => ({
  object: 'client',
  id: 'cli_1',
  sessions: signedIn ? [session()] : [],
  last_active_session_id: signedIn ? 'sess_1' : null,
  session: signedIn ? session() : null,
  created_at: 1,
  updated_at: 1,
});

/** A fake FAPI: signed in, minting a token of 60 s per request (after `delayMs`), counting them. */
function fakeFapi(clock: { t: number }, o: { delayMs?: number; signedIn?: boolean } = {}) {
  const s = { tokens: 0, paths: [] as string[], headers: [] as Headers[] };
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    s.paths.push(`${init?.method ?? 'GET'} ${url.pathname}${url.search}`);
    s.headers.push(new Headers(init?.headers));
    if (url.pathname.endsWith('/v1/client') && (init?.method ?? 'GET') === 'GET') return Response.json(client(o.signedIn ?? true));
    if (url.pathname.endsWith('/v1/client') && init?.method === 'DELETE') return Response.json(client(false));
    if (url.pathname.endsWith('/tokens')) {
      s.tokens++;
      await new Promise((r) => setTimeout(r, o.delayMs ?? 5));
      return Response.json({ object: 'token', jwt: jwtFor(Math.floor(clock.t / 1000) + 60, s.tokens) });
    }
    return Response.json({ errors: [{ code: 'NOT_FOUND', message: 'no' }] }, { status: 404 });
  }) as typeof globalThis.fetch;
  return Object.assign(s, { fetch });
}

describe('@latchkey/browser', () => {
  it('boots from the publishable key against the FAPI it names', async () => {
    expect(fapiUrlFromPublishableKey(PK)).toBe('https://auth.example.com/fapi/ins_1');
    const clock = { t: Date.now() };
    const api = fakeFapi(clock);
    const lk = new Latchkey({ publishableKey: PK, fetch: api.fetch, locks: null, channel: null });
    await lk.load();
    expect(lk.isSignedIn).toBe(true);
    expect(api.paths[0]).toBe('GET /fapi/ins_1/v1/client');
    expect(api.headers[0]!.get('x-publishable-key')).toBe(PK);
  });

  it('caches the session JWT and renews it shortly before it expires', async () => {
    const clock = { t: Date.now() };
    const api = fakeFapi(clock);
    const lk = new Latchkey({
      publishableKey: PK,
      fetch: api.fetch,
      locks: null,
      channel: null,
      now: () => clock.t,
      refreshLeewaySeconds: 10,
    });
    await lk.load();
    const first = await lk.getToken();
    expect(await lk.getToken()).toBe(first);
    clock.t += 45_000;
    expect(await lk.getToken()).toBe(first);
    clock.t += 6_000; // 9 s left: inside the leeway
    const second = await lk.getToken();
    expect(second).not.toBe(first);
    expect(api.tokens).toBe(2);
    expect(await lk.getToken({ skipCache: true })).not.toBe(second);
  });

  it('refreshes once for all tabs: Web Locks serialize, BroadcastChannel shares the result', async () => {
    const clock = { t: Date.now() };
    const api = fakeFapi(clock, { delayMs: 30 });
    const locks = memoryLocks();
    const hub = channelHub();
    const tabs = [0, 1, 2].map(() => new Latchkey({ publishableKey: PK, fetch: api.fetch, locks, channel: hub(), now: () => clock.t }));
    await Promise.all(tabs.map((t) => t.load()));
    const tokens = await Promise.all(tabs.flatMap((t) => [t.getToken(), t.getToken()]));
    expect(api.tokens).toBe(1);
    expect(new Set(tokens).size).toBe(1);
    tabs.forEach((t) => t.destroy());
  });

  it('emits session changes, also from another tab signing out', async () => {
    const clock = { t: Date.now() };
    const api = fakeFapi(clock);
    const hub = channelHub();
    const a = new Latchkey({ publishableKey: PK, fetch: api.fetch, locks: null, channel: hub() });
    const b = new Latchkey({ publishableKey: PK, fetch: api.fetch, locks: null, channel: hub() });
    const seenA: (string | null)[] = [];
    const seenB: (string | null)[] = [];
    a.addListener((s) => seenA.push(s.session?.id ?? null));
    b.addListener((s) => seenB.push(s.session?.id ?? null));
    await a.load();
    await b.load();
    await a.signOut();
    await new Promise((r) => setTimeout(r, 10));
    expect(seenA).toEqual(['sess_1', null]);
    expect(seenB).toEqual(['sess_1', null]);
    expect(b.isSignedIn).toBe(false);
    expect(await b.getToken()).toBeNull();
  });

  it('builds hosted page URLs with the way back', () => {
    const lk = new Latchkey({ publishableKey: PK, locks: null, channel: null });
    expect(lk.buildSignInUrl({ redirectUrl: 'https://app.example.com/after' })).toBe(
      'https://auth.example.com/fapi/ins_1/sign-in?redirect_url=https%3A%2F%2Fapp.example.com%2Fafter',
    );
    expect(lk.buildSignUpUrl({ redirectUrl: 'https://app.example.com/' })).toContain('/fapi/ins_1/sign-up?redirect_url=');
  });

  it('native mode: asks for a client token, stores what the FAPI hands back, and sends it as a bearer', async () => {
    const stored: (string | null)[] = [];
    let token: string | null = null;
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const auth = new Headers(init?.headers).get('authorization');
      const res = Response.json(client(auth === 'Bearer ct_1'), { headers: { authorization: 'Bearer ct_1' } });
      stored.push(`${String(input).includes('_is_native=1') ? 'native-flag' : 'bearer'}:${auth ?? ''}`);
      return res;
    }) as typeof globalThis.fetch;
    const lk = new Latchkey({
      publishableKey: PK,
      fetch,
      locks: null,
      channel: null,
      tokenStorage: { get: () => token, set: (t) => void (token = t) },
    });
    await lk.load();
    expect(token).toBe('ct_1');
    await lk.load();
    expect(stored).toEqual(['native-flag:', 'bearer:Bearer ct_1']);
    expect(lk.isSignedIn).toBe(true);
  });
});
