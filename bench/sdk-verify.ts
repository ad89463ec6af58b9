/**
 * `sdk-verify` target of `npm run bench` (also `npx tsx bench/sdk-verify.ts`): @latchkey/backend's
 * verifyToken per second against raw node:crypto RS256 verification with a cached KeyObject
 * (split the token, decode the signature, crypto.verify), on the same core, in one process.
 * verifyToken is called as a customer calls it: `verifyToken(jwt, { issuer })`, new options
 * object every call, its key set fetched with the default fetch from a loopback server.
 * The two alternate round by round; `concurrency` verifications are kept in flight for the
 * SDK (BENCH_SDK_CONCURRENCY, default 1: with node:crypto at hand the SDK verifies
 * synchronously; raise it to measure the WebCrypto path). Prints one JSON line.
 */
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { verifyToken } from '../sdk/backend/src/index';

export interface SdkVerifyResult {
  sdkPerSecond: number;
  rawPerSecond: number;
  ratio: number;
  seconds: number;
  rounds: number;
  concurrency: number;
}

export async function measureSdkVerify(o: {
  seconds: number;
  rounds: number;
  concurrency: number;
  warmupSeconds: number;
}): Promise<SdkVerifyResult> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const ISS = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/fapi/ins_01KAQZ3V6R8C5W7Y9X2B4N6M8P`;
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ sid: 'sess_01KAQZ3V6R8C5W7Y9X2B4N6M8R', sv: 0, sts: 'active' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'JWT' })
    .setIssuer(ISS)
    .setSubject('user_01KAQZ3V6R8C5W7Y9X2B4N6M8S')
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
  const keyObject = createPublicKey({ key: jwk as never, format: 'jwk' });

  function raw() {
    const dot = token.lastIndexOf('.');
    const ok = nodeVerify('sha256', Buffer.from(token.slice(0, dot)), keyObject, Buffer.from(token.slice(dot + 1), 'base64url'));
    if (!ok) throw new Error('raw verify failed');
  }
  async function runRaw(ms: number) {
    let n = 0;
    const end = performance.now() + ms;
    while (performance.now() < end) {
      for (let i = 0; i < 50; i++) raw();
      n += 50;
    }
    return n;
  }
  async function runSdk(ms: number) {
    let n = 0;
    const end = performance.now() + ms;
    const worker = async () => {
      while (performance.now() < end) {
        await verifyToken(token, { issuer: ISS });
        n++;
      }
    };
    await Promise.all(Array.from({ length: o.concurrency }, worker));
    return n;
  }
  await runSdk(o.warmupSeconds * 500);
  await runRaw(o.warmupSeconds * 500);
  let sdk = 0;
  let rawN = 0;
  const slice = (o.seconds * 1000) / o.rounds;
  for (let r = 0; r < o.rounds; r++) {
    sdk += await runSdk(slice);
    rawN += await runRaw(slice);
  }
  jwks.close();
  const sdkPerSecond = sdk / o.seconds;
  const rawPerSecond = rawN / o.seconds;
  return {
    sdkPerSecond,
    rawPerSecond,
    ratio: sdkPerSecond / rawPerSecond,
    seconds: o.seconds,
    rounds: o.rounds,
    concurrency: o.concurrency,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const num = (v: string | undefined, d: number) => (v ? Number(v) : d);
  const result = await measureSdkVerify({
    seconds: num(process.env.BENCH_DURATION, 8),
    rounds: num(process.env.BENCH_ROUNDS, 4),
    // Verification is synchronous where node:crypto is at hand: more in flight only adds scheduling.
    concurrency: num(process.env.BENCH_SDK_CONCURRENCY, 1),
    warmupSeconds: num(process.env.BENCH_WARMUP, 2),
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
