import { createServer } from 'node:http';
import { generateKeyPair, jwtVerify, SignJWT } from 'jose';

/**
 * Ceilings 3 and 4: jose's RS256 sign and verify rates on this core, no HTTP, no database.
 * A 2048-bit key from jose's generateKeyPair (a WebCrypto CryptoKey, as the server's
 * importPKCS8 gives) signs the same claims and header as server/sessions/tokens.ts
 * signSessionJwt; verification is jwtVerify with the options of verifySessionJwt.
 *
 * run.ts starts it pinned to CPU 0 like the servers; the load generator asks it for one
 * measurement at a time over HTTP (outside the measured loop), so it is interleaved with
 * the HTTP rows round by round:
 *   POST /run?op=sign|verify&seconds=2&concurrency=10  → {"ops":…,"seconds":…}
 * WebCrypto runs each operation on libuv's thread pool: `concurrency` operations are kept
 * in flight (as many as the load generator's connections) so the pinned core stays busy.
 */
const ALG = 'RS256';
const { publicKey, privateKey } = await generateKeyPair(ALG, { modulusLength: 2048 });
const ISS = 'http://127.0.0.1:4711/fapi/ins_01KAQZ3V6R8C5W7Y9X2B4N6M8P';
const KID = 'kid_01KAQZ3V6R8C5W7Y9X2B4N6M8Q';

async function sign(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid: 'sess_01KAQZ3V6R8C5W7Y9X2B4N6M8R', sv: 0, sts: 'active' })
    .setProtectedHeader({ alg: ALG, kid: KID, typ: 'JWT' })
    .setIssuer(ISS)
    .setSubject('user_01KAQZ3V6R8C5W7Y9X2B4N6M8S')
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 60)
    .sign(privateKey);
}

let token = await sign();
let tokenAt = Date.now();
async function verify(): Promise<void> {
  if (Date.now() - tokenAt > 30_000) {
    token = await sign();
    tokenAt = Date.now();
  }
  await jwtVerify(token, publicKey, { algorithms: [ALG], issuer: ISS, requiredClaims: ['sub', 'sid', 'exp', 'iat'] });
}

async function measure(op: () => Promise<unknown>, seconds: number, concurrency: number) {
  const start = performance.now();
  const end = start + seconds * 1000;
  let ops = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await op();
      ops++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ops, seconds: (performance.now() - start) / 1000 };
}

let busy = false;
createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const send = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (url.pathname === '/healthz') return send(200, { status: 'ok' });
  if (url.pathname !== '/run') return send(404, { error: 'not found' });
  const op = url.searchParams.get('op');
  const fn = op === 'sign' ? sign : op === 'verify' ? verify : null;
  if (!fn) return send(400, { error: 'op must be sign or verify' });
  if (busy) return send(409, { error: 'a measurement is running' });
  busy = true;
  const seconds = Math.min(60, Number(url.searchParams.get('seconds') ?? 2) || 2);
  const concurrency = Math.max(1, Math.min(256, Number(url.searchParams.get('concurrency') ?? 10) || 10));
  measure(fn, seconds, concurrency).then(
    (r) => ((busy = false), send(200, r)),
    (err: unknown) => ((busy = false), send(500, { error: String(err) })),
  );
}).listen(Number(process.env.PORT ?? 4702), '127.0.0.1');
