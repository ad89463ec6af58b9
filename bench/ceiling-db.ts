import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
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

const sidOf = (token: string) => String((JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sid?: unknown }).sid);

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
    work = getUser(pathname.slice('/v1/users/'.length)).then((rows) => (rows[0] ? send(res, 200, rows[0]) : send(res, 404, { error: 'not found' })));
  } else if (pathname === '/v1/users') {
    const limit = Math.min(100, Number(new URLSearchParams(q === -1 ? '' : raw.slice(q + 1)).get('limit') ?? 10) || 10);
    work = listUsers(limit + 1).then((rows) => send(res, 200, { data: rows.slice(0, limit), has_more: rows.length > limit }));
  } else if (pathname === '/v1/api_keys/verify' && req.method === 'POST') {
    work = readBody(req)
      .then((raw) => keyByDigest(createHash('sha256').update(String((JSON.parse(raw) as { secret?: unknown }).secret)).digest('hex')))
      .then((rows) => (rows[0] && rows[0].revoked_at === null ? send(res, 200, rows[0]) : send(res, 404, { error: 'not found' })));
  } else if (pathname === '/v1/sessions/verify' && req.method === 'POST') {
    work = readBody(req)
      .then((raw) => sessionState(sidOf(String((JSON.parse(raw) as { token?: unknown }).token))))
      .then((rows) => (rows[0] && rows[0].status === 'active' ? send(res, 200, rows[0]) : send(res, 401, { error: 'revoked' })));
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
