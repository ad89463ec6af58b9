import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { generateKeyPair, jwtVerify } from 'jose';
import { signRs256Jws } from '../server/signing/signing-keys';
import postgres from 'postgres';

/**
 * Ceiling 2: a bare node:http server answering the same data as the API with one
 * prepared postgres.js query per request: no framework, no auth, no validation.
 *
 *   GET /v1/users/:id        the user row with its email addresses (json_agg), one query
 *   GET /v1/users?limit=N    N users, newest first, each with its email addresses, one query
 *   POST /v1/api_keys/verify the end-user key whose digest is the SHA-256 of `{secret}`, one query
 *   POST /v1/sessions/verify the session named by the `{token}` jwt's sid with its user's
 *                            sessions_version, one query (the payload is decoded, not verified:
 *                            this is the database ceiling of authoritative verification)
 *
 * With CEILING_CRYPTO=1 it is the composite ceiling of the hot rows (issue 39): each request
 * does exactly the work it cannot avoid, on the same core, and nothing else:
 *   POST /v1/sessions/verify  the one query above + one RS256 verification (jose, 2048-bit, a
 *                            token of the same header and claims signed by this process's key)
 *   POST /fapi/:ins/v1/sessions/:sid/refresh  one prepared write (the refresh rotation: check
 *                            and rotate the token, add its successor, touch the session) + one
 *                            RS256 signature of the new session jwt (node:crypto one-shot, as the server signs)
 *   POST /fapi/:ins/oauth2/token  client_credentials: the application by client_id (one prepared
 *                            query), its secret's SHA-256 compared in constant time + one RS256
 *                            signature (the endpoint writes nothing: no write to count)
 *   GET /v1/users…, POST /v1/api_keys/verify  as above: one query is the fewest the answer needs
 */
const url = process.env.DATABASE_URL;
const instanceId = process.env.BENCH_INSTANCE_ID;
if (!url || !instanceId) throw new Error('DATABASE_URL and BENCH_INSTANCE_ID are required');

// Same pool size as the application's openPostgres().
const sql = postgres(url, { max: 10, prepare: true, onnotice: () => {} });

const getUser = (id: string) => sql`
  select u.*,
         coalesce((select json_agg(e order by e.id) from email_addresses e where e.user_id = u.id), '[]'::json) as email_addresses
    from users u
   where u.id = ${id} and u.instance_id = ${instanceId}`;

const listUsers = (limit: number) => sql`
  select u.*,
         coalesce((select json_agg(e order by e.id) from email_addresses e where e.user_id = u.id), '[]'::json) as email_addresses
    from users u
   where u.instance_id = ${instanceId}
   order by u.id desc
   limit ${limit}`;

const keyByDigest = (digest: string) => sql`select * from api_keys where digest = ${digest} and instance_id = ${instanceId}`;

const sessionState = (sid: string) => sql`
  select s.*, u.sessions_version
    from sessions s join users u on u.id = s.user_id
   where s.id = ${sid} and s.instance_id = ${instanceId}`;

// The refresh rotation as one statement (server/sessions/sessions.ts rotationStatement, less the plans).
const rotate = (sid: string, digest: string, successor: string, now: number) => sql`
  with target as (
    select s.id, s.user_id, s.status, s.expire_at, u.sessions_version
      from refresh_tokens t join sessions s on s.id = t.session_id join users u on u.id = s.user_id
     where t.digest = ${digest} and t.rotated_at is null and s.id = ${sid} and s.instance_id = ${instanceId}
       and s.status in ('active', 'pending') and s.expire_at > ${now} and s.abandon_at > ${now}
  ), rotated as (
    update refresh_tokens set rotated_at = ${now} where digest = ${digest} and rotated_at is null and exists (select 1 from target) returning session_id
  ), successor as (
    insert into refresh_tokens (digest, session_id, created_at) select ${successor}, session_id, ${now} from rotated on conflict (digest) do nothing
  ), touched as (
    update sessions set last_active_at = ${now}, updated_at = ${now} where id in (select session_id from rotated)
  )
  select id, user_id, status, expire_at, sessions_version from target where exists (select 1 from rotated)`;

const appById = (id: string) =>
  sql`select id, secret_digest, scopes from oauth_applications where id = ${id} and instance_id = ${instanceId}`;

const CRYPTO = process.env.CEILING_CRYPTO === '1';
const ALG = 'RS256';
const keys = CRYPTO ? await generateKeyPair(ALG, { modulusLength: 2048 }) : null;
const ISS = `http://127.0.0.1/fapi/${instanceId}`;
// Signed the way the server signs (node:crypto's one-shot RS256): the ceiling's crypto is never
// slower than the server's, so a faster signing call does not raise the ratios by itself.
const signJwt = async (sub: string, claims: Record<string, unknown>, seconds: number) => {
  const now = Math.floor(Date.now() / 1000);
  return signRs256Jws(
    keys!.privateKey,
    { alg: ALG, kid: 'kid_ceiling', typ: 'JWT' },
    { ...claims, iss: ISS, sub, iat: now, nbf: now, exp: now + seconds },
  );
};
// A token shaped as the server's session jwts, re-signed every 30 s so it never expires mid-run.
let ownToken = keys
  ? await signJwt('user_01KAQZ3V6R8C5W7Y9X2B4N6M8S', { sid: 'sess_01KAQZ3V6R8C5W7Y9X2B4N6M8R', sv: 0, sts: 'active' }, 60)
  : '';
if (keys)
  setInterval(
    () =>
      void signJwt('user_01KAQZ3V6R8C5W7Y9X2B4N6M8S', { sid: 'sess_01KAQZ3V6R8C5W7Y9X2B4N6M8R', sv: 0, sts: 'active' }, 60).then(
        (t) => (ownToken = t),
      ),
    30_000,
  ).unref();
const verifyOwn = () =>
  jwtVerify(ownToken, keys!.publicKey, { algorithms: [ALG], issuer: ISS, requiredClaims: ['sub', 'sid', 'exp', 'iat'] });
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const sidOf = (token: string) =>
  String((JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sid?: unknown }).sid);

function readBody(req: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const send = (res: import('node:http').ServerResponse, status: number, value: unknown) => {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

createServer((req, res) => {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const pathname = q === -1 ? raw : raw.slice(0, q);
  let work: Promise<unknown>;
  if (pathname.startsWith('/v1/users/')) {
    work = getUser(pathname.slice('/v1/users/'.length)).then((rows) =>
      rows[0] ? send(res, 200, rows[0]) : send(res, 404, { error: 'not found' }),
    );
  } else if (pathname === '/v1/users') {
    const limit = Math.min(100, Number(new URLSearchParams(q === -1 ? '' : raw.slice(q + 1)).get('limit') ?? 10) || 10);
    work = listUsers(limit + 1).then((rows) => send(res, 200, { data: rows.slice(0, limit), has_more: rows.length > limit }));
  } else if (pathname === '/v1/api_keys/verify' && req.method === 'POST') {
    work = readBody(req)
      .then((raw) =>
        keyByDigest(
          createHash('sha256')
            .update(String((JSON.parse(raw) as { secret?: unknown }).secret))
            .digest('hex'),
        ),
      )
      .then((rows) => (rows[0] && rows[0].revoked_at === null ? send(res, 200, rows[0]) : send(res, 404, { error: 'not found' })));
  } else if (pathname === '/v1/sessions/verify' && req.method === 'POST') {
    work = readBody(req)
      .then(async (raw) => {
        const token = String((JSON.parse(raw) as { token?: unknown }).token);
        if (CRYPTO) await verifyOwn();
        return sessionState(sidOf(token));
      })
      .then((rows) => (rows[0] && rows[0].status === 'active' ? send(res, 200, rows[0]) : send(res, 401, { error: 'revoked' })));
  } else if (CRYPTO && req.method === 'POST' && pathname.endsWith('/refresh') && pathname.includes('/v1/sessions/')) {
    const sid = pathname.split('/').at(-2)!;
    work = readBody(req).then(async (raw) => {
      const presented = String((JSON.parse(raw) as { refresh_token?: unknown }).refresh_token);
      const next = `rt_${randomBytes(32).toString('base64url')}`;
      const [row] = await rotate(sid, sha256(presented), sha256(next), Date.now());
      if (!row) return send(res, 401, { error: 'refresh token invalid' });
      const jwt = await signJwt(String(row.user_id), { sid, sv: row.sessions_version, sts: row.status }, 60);
      send(res, 200, { object: 'session', id: sid, jwt, refresh_token: next });
    });
  } else if (CRYPTO && req.method === 'POST' && pathname.endsWith('/oauth2/token')) {
    work = readBody(req).then(async (raw) => {
      const [id, secret] = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':');
      const form = new URLSearchParams(raw);
      const [app] = await appById(decodeURIComponent(id ?? ''));
      const given = Buffer.from(sha256(decodeURIComponent(secret ?? '')));
      if (
        form.get('grant_type') !== 'client_credentials' ||
        !app?.secret_digest ||
        !timingSafeEqual(given, Buffer.from(String(app.secret_digest).padEnd(given.length).slice(0, given.length)))
      ) {
        return send(res, 401, { error: 'invalid_client' });
      }
      const accessToken = await signJwt(String(app.id), { client_id: app.id, scope: form.get('scope') ?? '' }, 3600);
      send(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') ?? '' });
    });
  } else if (pathname === '/healthz') {
    work = Promise.resolve(send(res, 200, { status: 'ok' }));
  } else {
    work = Promise.resolve(send(res, 404, { error: 'not found' }));
  }
  work.catch((err: unknown) => send(res, 500, { error: String(err) }));
}).listen(Number(process.env.PORT ?? 4701), '127.0.0.1');

const stop = () => void sql.end({ timeout: 1 }).finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
