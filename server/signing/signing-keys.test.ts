import { and, asc, eq } from 'drizzle-orm';
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../cli/commands';
import { auditLogs, signingKeys } from '../db/schema';
import { mintNewUserSession } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { currentSigner, RETIRED_KEY_RETENTION_MS, signRs256Jws } from './signing-keys';

/** Default limits: the test instances below are held to 100 requests / 10 s per key. */
const h = sharedHarness();

type Jwk = { kty: string; n: string; e: string; kid: string; alg: string; use: string };
const errorOf = (body: { errors: { code: string }[] }) => body.errors[0]!;
const kidsOf = async (key: string): Promise<string[]> => {
  const res = await h.call('GET', '/v1/jwks', { key });
  expect(res.status).toBe(200);
  return res.body.keys.map((k: Jwk) => k.kid);
};
/** A customer's server: a fresh remote key set each time, since jose caches on the wall clock. */
const remoteJwks = (key: string) =>
  createRemoteJWKSet(new URL('http://localhost:3000/v1/jwks'), {
    [customFetch]: (url: string) => h.request('GET', new URL(url).pathname, { key }),
  });
const mint = (key: string) => mintNewUserSession(h, key);
const verify = (key: string, token: string) => h.call('POST', '/v1/sessions/verify', { key, body: { token } });

describe('signRs256Jws', () => {
  it('gives the bytes jose’s SignJWT gives for the same header and claims, and they verify', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
    const claims = { sid: 'sess_1', sv: 2, sts: 'active', org_permissions: ['a', 'b'], meta: { é: 'ü' } };
    const byJose = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'kid_1', typ: 'JWT' })
      .setIssuer('https://issuer.example')
      .setSubject('user_1')
      .setIssuedAt(1_800_000_000)
      .setNotBefore(1_800_000_000)
      .setExpirationTime(1_800_000_060)
      .sign(privateKey);
    const ours = signRs256Jws(
      privateKey,
      { alg: 'RS256', kid: 'kid_1', typ: 'JWT' },
      { ...claims, iss: 'https://issuer.example', sub: 'user_1', iat: 1_800_000_000, nbf: 1_800_000_000, exp: 1_800_000_060 },
    );
    expect(ours).toBe(byJose);
    const { payload } = await jwtVerify(ours, publicKey, { currentDate: new Date(1_800_000_010_000) });
    expect(payload).toMatchObject({ sid: 'sess_1', sub: 'user_1' });
  });
});

describe('GET /v1/jwks', () => {
  it('needs a valid key but no scope', async () => {
    const { instanceId } = await h.createInstance();
    const eventsOnly = await h.createKey(instanceId, 'events:read');
    const res = await h.call('GET', '/v1/jwks', { key: eventsOnly.secret });
    expect(res.status).toBe(200);
    expect(res.body.keys.length).toBeGreaterThan(0);

    const none = await h.call('GET', '/v1/jwks');
    expect(none.status).toBe(401);
    expect(errorOf(none.body).code).toBe('UNAUTHENTICATED');
    const wrong = await h.call('GET', '/v1/jwks', { key: `sk_test_${'x'.repeat(40)}` });
    expect(wrong.status).toBe(401);
    expect(errorOf(wrong.body).code).toBe('INVALID_KEY');
    await runCommand(h.runtime.deps, ['keys', 'revoke', eventsOnly.id]);
    const revoked = await h.call('GET', '/v1/jwks', { key: eventsOnly.secret });
    expect(revoked.status).toBe(401);
    expect(errorOf(revoked.body).code).toBe('INVALID_KEY');
  });

  it('is not rate limited: 150 calls in one 10 s window on a test instance all answer 200, and spend no budget', async () => {
    const { secret } = await h.createInstance({ environment: 'test', scopes: 'events:read' });
    const statuses = [];
    for (let i = 0; i < 150; i++) statuses.push((await h.request('GET', '/v1/jwks', { key: secret })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The same key's scoped budget is untouched.
    const scoped = await h.request('GET', '/v1/events', { key: secret });
    expect(scoped.status).toBe(200);
    expect(scoped.headers.get('ratelimit-limit')).toBe('100');
    expect(scoped.headers.get('ratelimit-remaining')).toBe('99');
  });

  it('publishes the current and the next key, public parts only; each instance its own', async () => {
    const a = await h.createInstance();
    const res = await h.call('GET', '/v1/jwks', { key: a.secret });
    expect(res.body.keys).toHaveLength(2);
    for (const k of res.body.keys) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(k).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.stringMatching(/^kid_/) });
    }
    const states = await h.runtime.deps.db
      .select({ id: signingKeys.id, state: signingKeys.state })
      .from(signingKeys)
      .where(eq(signingKeys.instanceId, a.instanceId));
    const current = states.find((s) => s.state === 'current')!.id;
    const next = states.find((s) => s.state === 'next')!.id;
    expect(res.body.keys.map((k: Jwk) => k.kid)).toEqual([current, next]);
    // The current key signs.
    const s = await mint(a.secret);
    expect(decodeProtectedHeader(s.jwt)).toMatchObject({ alg: 'RS256', kid: current, typ: 'JWT' });

    const b = await h.createInstance();
    const bKids = await kidsOf(b.secret);
    expect(bKids.filter((k) => [current, next].includes(k))).toEqual([]);
  });

  it('keeps private keys encrypted at rest', async () => {
    const a = await h.createInstance();
    await kidsOf(a.secret);
    const rows = await h.runtime.deps.db.select().from(signingKeys).where(eq(signingKeys.instanceId, a.instanceId));
    expect(rows.length).toBe(2);
    for (const row of rows) {
      expect(row.privateKey).not.toContain('PRIVATE KEY');
      expect(row.privateKey).toMatch(/^v1\./);
      expect(h.runtime.deps.cipher.decrypt(row.privateKey)).toContain('-----BEGIN PRIVATE KEY-----');
    }
  });
});

describe('rotation', () => {
  it('POST /v1/jwks/rotate needs jwks:write', async () => {
    const { instanceId } = await h.createInstance();
    const reader = await h.createKey(instanceId, 'sessions:read,events:read');
    const res = await h.call('POST', '/v1/jwks/rotate', { key: reader.secret });
    expect(res.status).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'jwks:write' } });
  });

  it('the published next key starts signing; older tokens verify until the retired key is removed', async () => {
    const { instanceId, secret: key, keyId } = await h.createInstance();
    const [current0, next0] = (await kidsOf(key)) as [string, string];
    const before = await mint(key);
    expect(decodeProtectedHeader(before.jwt).kid).toBe(current0);

    // Rotation over BAPI.
    const rotated = await h.call('POST', '/v1/jwks/rotate', { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      object: 'signing_key_rotation',
      current: next0,
      next: expect.stringMatching(/^kid_/),
      retired: current0,
    });
    const next1 = rotated.body.next as string;
    expect(await kidsOf(key)).toEqual([next0, next1, current0]);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, instanceId), eq(auditLogs.action, 'signing_key.rotated')));
    expect(entry).toMatchObject({ actor: `key:${keyId}`, target: next0, details: { retired: current0, next: next1 } });

    // New tokens are signed by the key that was published as next before the rotation.
    const after = await mint(key);
    expect(decodeProtectedHeader(after.jwt).kid).toBe(next0);
    const refreshed = await h.call('POST', `/v1/sessions/${before.id}/refresh`, { key, body: { refresh_token: before.refresh_token } });
    expect(decodeProtectedHeader(refreshed.body.jwt).kid).toBe(next0);

    // A token signed before the rotation still verifies, authoritatively and against the served JWKS.
    expect((await verify(key, before.jwt)).status).toBe(200);
    expect((await verify(key, after.jwt)).status).toBe(200);
    const at = new Date(h.clock.now());
    await expect(jwtVerify(before.jwt, remoteJwks(key), { currentDate: at })).resolves.toMatchObject({
      protectedHeader: { kid: current0 },
    });
    await expect(jwtVerify(after.jwt, remoteJwks(key), { currentDate: at })).resolves.toMatchObject({ protectedHeader: { kid: next0 } });

    // Within the retention period the retired key stays published.
    h.clock.advance(RETIRED_KEY_RETENTION_MS - 10_000);
    expect(await kidsOf(key)).toContain(current0);

    // Past it, and after another rotation (here from the CLI), the retired key is gone.
    h.clock.advance(10_001);
    const cli = await runCommand(h.runtime.deps, ['keys', 'rotate-signing', '--instance', instanceId, '--json']);
    expect(cli.exitCode, cli.stderr).toBe(0);
    const second = JSON.parse(cli.stdout);
    expect(second).toMatchObject({ current: next1, retired: next0 });
    h.clock.advance(5_001); // past the JWKS cache
    const kids = await kidsOf(key);
    expect(kids).not.toContain(current0);
    expect(kids).toEqual([next1, second.next, next0]);
    expect(await h.runtime.deps.db.select().from(signingKeys).where(eq(signingKeys.id, current0))).toEqual([]);

    const stale = await verify(key, before.jwt);
    expect(stale.status).toBe(401);
    expect(errorOf(stale.body).code).toBe('TOKEN_UNKNOWN_KEY');
    await expect(jwtVerify(before.jwt, remoteJwks(key), { currentDate: at })).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });

    // The session itself is fine: a fresh token from a refresh verifies.
    const fresh = await h.call('POST', `/v1/sessions/${before.id}/refresh`, { key, body: { refresh_token: refreshed.body.refresh_token } });
    expect(fresh.status).toBe(200);
    expect(decodeProtectedHeader(fresh.body.jwt).kid).toBe(next1);
    expect((await verify(key, fresh.body.jwt)).status).toBe(200);
  });

  it('rotating one instance leaves another alone', async () => {
    const a = await h.createInstance();
    const b = await h.createInstance();
    const bKids = await kidsOf(b.secret);
    expect((await h.call('POST', '/v1/jwks/rotate', { key: a.secret })).status).toBe(200);
    expect(await kidsOf(b.secret)).toEqual(bKids);
  });

  it('keeps exactly one current and one next key through repeated rotations', async () => {
    const { instanceId, secret } = await h.createInstance();
    for (let i = 0; i < 3; i++) expect((await h.call('POST', '/v1/jwks/rotate', { key: secret })).status).toBe(200);
    const rows = await h.runtime.deps.db
      .select({ state: signingKeys.state })
      .from(signingKeys)
      .where(eq(signingKeys.instanceId, instanceId))
      .orderBy(asc(signingKeys.id));
    const count = (state: string) => rows.filter((r) => r.state === state).length;
    expect([count('current'), count('next'), count('retired')]).toEqual([1, 1, 3]);
  });
});

describe('the signer cache', () => {
  it('decrypts the private key once for a burst of concurrent signings', async () => {
    const { instanceId } = await h.createInstance();
    let decrypts = 0;
    const base = h.runtime.deps;
    const counting = { ...base, cipher: { ...base.cipher, decrypt: (blob: string) => (decrypts++, base.cipher.decrypt(blob)) } };
    const signers = await Promise.all(Array.from({ length: 10 }, () => currentSigner(counting, instanceId)));
    expect(decrypts).toBe(1);
    expect(new Set(signers.map((s) => s.kid)).size).toBe(1);
    // After the cache entry expires, the next burst loads it once more.
    h.clock.advance(5_001);
    await Promise.all(Array.from({ length: 10 }, () => currentSigner(counting, instanceId)));
    expect(decrypts).toBe(2);
  });
});
