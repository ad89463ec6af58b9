import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createTokenVerifier,
  JwksUnavailableError,
  TokenAuthorizedPartyError,
  TokenExpiredError,
  TokenIssuerError,
  TokenMalformedError,
  TokenNotYetValidError,
  TokenSignatureError,
  TokenUnknownKeyError,
  fapiUrlFromPublishableKey,
} from '../src/index';

const ISSUER = 'https://clerk.example.com';

async function keyPair(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}
type Pair = Awaited<ReturnType<typeof keyPair>>;

/** A JWKS endpoint serving `published`, which counts its fetches and can be taken down. */
function jwksServer(published: Pair[]) {
  const s = { published, fetches: 0, down: false };
  const fetch = (async () => {
    s.fetches++;
    if (s.down) return new Response('unavailable', { status: 503 });
    return Response.json({ keys: s.published.map((p) => p.jwk) });
  }) as typeof globalThis.fetch;
  return Object.assign(s, { fetch });
}

const clock = () => {
  const c = { t: Date.now() };
  return Object.assign(c, { now: () => c.t });
};

function sign(p: Pair, claims: Record<string, unknown> = {}, o: { iss?: string; exp?: number; nbf?: number; key?: JoseKey } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid: 'sess_1', sts: 'active', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: p.kid, typ: 'JWT' })
    .setIssuer(o.iss ?? ISSUER)
    .setSubject('user_1')
    .setIssuedAt(o.nbf ?? now)
    .setNotBefore(o.nbf ?? now)
    .setExpirationTime(o.exp ?? now + 60)
    .sign(o.key ?? p.privateKey);
}

let k1: Pair;
let k2: Pair;
beforeAll(async () => {
  [k1, k2] = await Promise.all([keyPair('k1'), keyPair('k2')]);
});

describe('verifyToken', () => {
  it('answers typed claims: session, organization, actor, plan and features', async () => {
    const server = jwksServer([k1]);
    const v = createTokenVerifier({ issuer: ISSUER, fetch: server.fetch });
    const auth = await v.verify(
      await sign(k1, {
        act: { sub: 'user_admin' },
        org_id: 'org_1',
        org_slug: 'acme',
        org_role: 'org:admin',
        org_permissions: ['org:sys_profile:manage'],
        pla: 'pro',
        fea: ['sso', 'audit'],
      }),
    );
    expect(auth).toMatchObject({
      userId: 'user_1',
      sessionId: 'sess_1',
      sessionStatus: 'active',
      actor: { sub: 'user_admin' },
      organization: { id: 'org_1', slug: 'acme', role: 'org:admin', permissions: ['org:sys_profile:manage'] },
      plan: 'pro',
      features: ['sso', 'audit'],
    });
    const plain = await v.verify(await sign(k1));
    expect(plain.actor).toBeNull();
    expect(plain.organization).toBeNull();
  });

  it('names why a token is refused, with one error class per reason', async () => {
    const server = jwksServer([k1]);
    const c = clock();
    const v = createTokenVerifier({
      issuer: ISSUER,
      fetch: server.fetch,
      authorizedParties: ['https://app.example.com'],
      clockSkew: 5,
      now: c.now,
    });
    const now = Math.floor(c.t / 1000);
    await expect(v.verify(await sign(k1, {}, { exp: now - 10 }))).rejects.toBeInstanceOf(TokenExpiredError);
    await expect(v.verify(await sign(k1, {}, { nbf: now + 60, exp: now + 120 }))).rejects.toBeInstanceOf(TokenNotYetValidError);
    await expect(v.verify(await sign(k1, {}, { iss: 'https://evil.example.com' }))).rejects.toBeInstanceOf(TokenIssuerError);
    await expect(v.verify(await sign(k1, { azp: 'https://evil.example.com' }))).rejects.toBeInstanceOf(TokenAuthorizedPartyError);
    await expect(v.verify(await sign(k1, { azp: 'https://app.example.com' }))).resolves.toMatchObject({ userId: 'user_1' });
    // Signed by another key under k1's kid: the signature does not check.
    await expect(v.verify(await sign(k1, {}, { key: k2.privateKey }))).rejects.toBeInstanceOf(TokenSignatureError);
    const [h, , s] = (await sign(k1)).split('.');
    const forged = `${h}.${btoa(JSON.stringify({ iss: ISSUER, sub: 'user_2', sid: 's', exp: now + 60, iat: now }))
      .replace(/=+$/, '')
      .replace(/\+/g, '-')
      .replace(/\//g, '_')}.${s}`;
    await expect(v.verify(forged)).rejects.toBeInstanceOf(TokenSignatureError);
    await expect(v.verify('not.a.jwt')).rejects.toBeInstanceOf(TokenMalformedError);
    await expect(v.verify('abc')).rejects.toBeInstanceOf(TokenMalformedError);
    // Within the clock skew an expired token still passes.
    await expect(v.verify(await sign(k1, {}, { exp: now - 2 }))).resolves.toMatchObject({ userId: 'user_1' });
  });

  it('verifies with WebCrypto where node:crypto is not at hand (edge runtimes)', async () => {
    const proc = process as { getBuiltinModule?: unknown };
    const saved = proc.getBuiltinModule;
    proc.getBuiltinModule = undefined;
    try {
      const v = createTokenVerifier({ issuer: ISSUER, fetch: jwksServer([k1]).fetch });
      await expect(v.verify(await sign(k1))).resolves.toMatchObject({ userId: 'user_1' });
      await expect(v.verify(await sign(k1, {}, { key: k2.privateKey }))).rejects.toBeInstanceOf(TokenSignatureError);
    } finally {
      proc.getBuiltinModule = saved;
    }
  });

  it('derives the issuer from a publishable key', () => {
    const pk = `pk_test_${Buffer.from('auth.example.com/fapi/ins_1$').toString('base64url')}`;
    expect(fapiUrlFromPublishableKey(pk)).toBe('https://auth.example.com/fapi/ins_1');
    expect(
      createTokenVerifier({ publishableKey: `pk_live_${Buffer.from('localhost:3000/fapi/ins_1$').toString('base64url')}` }).issuer,
    ).toBe('http://localhost:3000/fapi/ins_1');
    expect(() => fapiUrlFromPublishableKey('pk_test_nope')).toThrow();
  });
});

describe('the JWKS cache', () => {
  it('fetches the key set once for many verifications, even concurrent first ones', async () => {
    const server = jwksServer([k1]);
    const v = createTokenVerifier({ issuer: ISSUER, fetch: server.fetch });
    const token = await sign(k1);
    await Promise.all(Array.from({ length: 20 }, () => v.verify(token)));
    await v.verify(token);
    expect(server.fetches).toBe(1);
  });

  it('follows a key rotation: an unknown kid refetches once and then verifies', async () => {
    const server = jwksServer([k1]);
    const v = createTokenVerifier({ issuer: ISSUER, fetch: server.fetch });
    await v.verify(await sign(k1));
    server.published = [k1, k2];
    await expect(v.verify(await sign(k2))).resolves.toMatchObject({ userId: 'user_1' });
    expect(server.fetches).toBe(2);
    // The old key, still published, keeps working without a fetch.
    await v.verify(await sign(k1));
    expect(server.fetches).toBe(2);
  });

  it('refetches for an unknown kid at most once per cooldown', async () => {
    const server = jwksServer([k1]);
    const c = clock();
    const v = createTokenVerifier({ issuer: ISSUER, fetch: server.fetch, now: c.now, jwks: { cooldownMs: 30_000 } });
    await v.verify(await sign(k1));
    const stranger = await sign(k2);
    await expect(v.verify(stranger)).rejects.toBeInstanceOf(TokenUnknownKeyError);
    await expect(v.verify(stranger)).rejects.toBeInstanceOf(TokenUnknownKeyError);
    await expect(v.verify(stranger)).rejects.toBeInstanceOf(TokenUnknownKeyError);
    expect(server.fetches).toBe(2);
    c.t += 31_000;
    await expect(v.verify(stranger)).rejects.toBeInstanceOf(TokenUnknownKeyError);
    expect(server.fetches).toBe(3);
  });

  it('serves the stale key set while the endpoint is down (stale-if-error), up to its bound', async () => {
    const server = jwksServer([k1]);
    const c = clock();
    const v = createTokenVerifier({
      issuer: ISSUER,
      fetch: server.fetch,
      now: c.now,
      clockSkew: 10 ** 9,
      jwks: { ttlMs: 60_000, maxStaleMs: 3_600_000 },
    });
    const token = await sign(k1);
    await v.verify(token);
    server.down = true;
    c.t += 10 * 60_000; // past freshness: a refetch is tried, fails, the stale copy serves
    await expect(v.verify(token)).resolves.toMatchObject({ userId: 'user_1' });
    expect(server.fetches).toBe(2);
    c.t += 2 * 3_600_000; // past the stale bound
    await expect(v.verify(token)).rejects.toBeInstanceOf(JwksUnavailableError);
    server.down = false;
    c.t += 60_000;
    await expect(v.verify(token)).resolves.toMatchObject({ userId: 'user_1' });
  });

  it('jwks options given as undefined keep their defaults: 10-minute freshness, 30-s cooldown, a 5-s fetch limit', async () => {
    const server = jwksServer([k1]);
    const signals: (AbortSignal | null | undefined)[] = [];
    const fetch = ((url: string, init?: RequestInit) => {
      signals.push(init?.signal);
      return server.fetch(url, init);
    }) as typeof globalThis.fetch;
    const c = clock();
    const jwks = { ttlMs: undefined, cooldownMs: undefined, maxStaleMs: undefined, timeoutMs: undefined };
    const v = createTokenVerifier({ issuer: ISSUER, fetch, now: c.now, clockSkew: 10 ** 9, jwks });
    const token = await sign(k1);
    await v.verify(token);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    c.t += 9 * 60_000;
    await v.verify(token);
    expect(server.fetches).toBe(1);
    c.t += 2 * 60_000; // past 10 minutes: stale, refetched
    await v.verify(token);
    expect(server.fetches).toBe(2);
    const stranger = await sign(k2);
    await expect(v.verify(stranger)).rejects.toBeInstanceOf(TokenUnknownKeyError);
    await expect(v.verify(stranger)).rejects.toBeInstanceOf(TokenUnknownKeyError);
    expect(server.fetches).toBe(3);
    c.t += 31_000; // a new kid triggers a refetch again after the cooldown
    server.published = [k1, k2];
    await expect(v.verify(stranger)).resolves.toMatchObject({ userId: 'user_1' });
    expect(server.fetches).toBe(4);
  });

  it('with the endpoint down and nothing cached, says the key set is unavailable', async () => {
    const server = jwksServer([k1]);
    server.down = true;
    const v = createTokenVerifier({ issuer: ISSUER, fetch: server.fetch });
    await expect(v.verify(await sign(k1))).rejects.toBeInstanceOf(JwksUnavailableError);
  });

  it('reads and fills an optional shared cache', async () => {
    const server = jwksServer([k1]);
    const store = new Map<string, string>();
    const sharedCache = { get: (k: string) => store.get(k), set: (k: string, v: string) => store.set(k, v) };
    await createTokenVerifier({ issuer: ISSUER, fetch: server.fetch, sharedCache }).verify(await sign(k1));
    expect(store.size).toBe(1);
    // A second process (another verifier) starts from the shared copy, without fetching.
    await createTokenVerifier({ issuer: ISSUER, fetch: server.fetch, sharedCache }).verify(await sign(k1));
    expect(server.fetches).toBe(1);
  });
});
