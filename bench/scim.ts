/**
 * SCIM directory sync, measured by `npm run bench` (target `scim`):
 *
 *   provision  BENCH_SCIM_USERS users (default 10,000) POSTed to /scim/v2/Users of an empty
 *              organization by BENCH_CONNECTIONS concurrent clients, as an identity provider's
 *              first sync does: the total time and users/s. Each one creates a Latchkey user
 *              (with its address), a membership, a directory row, events and audit entries.
 *   lookup     GET /scim/v2/Users?filter=userName eq "<a random provisioned user>" under
 *              autocannon (the call every IdP makes before each change): req/s, p50, p99.
 *   ceiling    the same look-up as one prepared postgres.js query (the indexed
 *              user_name_key probe joined with users), BENCH_CONNECTIONS in flight, no HTTP:
 *              queries/s. Both rates are reported as ratios to it.
 *
 * The API is `npm run api` pinned to CPU 0; the clients run here (CPU 1 when bench/run.ts
 * itself is pinned there, otherwise unpinned).
 */
import autocannon from 'autocannon';
import postgres from 'postgres';
import type { BenchServer, WebhookBenchHelpers } from './webhooks';

export interface ScimBenchResult {
  users: number;
  provisionSeconds: number;
  provisionedPerSecond: number;
  lookupsPerSecond: number;
  lookupP50: number;
  lookupP99: number;
  lookupNon2xx: number;
  ceilingQueriesPerSecond: number;
  provisionVsCeiling: number;
  lookupVsCeiling: number;
}

const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

async function ceilingRate(databaseUrl: string, organizationId: string, userNames: string[], connections: number, seconds: number) {
  const sql = postgres(databaseUrl, { max: connections, prepare: true, onnotice: () => {} });
  const lookup = (key: string) => sql`
    select s.*, u.first_name, u.last_name
      from scim_users s join users u on u.id = s.user_id
     where s.organization_id = ${organizationId} and s.user_name_key = ${key}
     order by s.user_id limit 200`;
  try {
    for (let i = 0; i < 200; i++) await lookup(userNames[i % userNames.length]!);
    let done = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          await lookup(userNames[Math.floor(Math.random() * userNames.length)]!);
          done++;
        }
      }),
    );
    return done / seconds;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function measureScim(
  h: WebhookBenchHelpers,
  opts: { port: number; users: number; connections: number; seconds: number; databaseUrl: string },
): Promise<ScimBenchResult> {
  const instance = (await h.cli(['instance', 'create', '--name', 'SCIM bench', '--env', 'live', '--json'])) as { instance_id: string };
  const key = (await h.cli(['keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--json'])) as { secret: string };
  const base = `http://127.0.0.1:${opts.port}`;
  const api: BenchServer = h.startServer(
    'scim: npm run api',
    'npm',
    ['run', 'api'],
    opts.port,
    { SCIM_RATE_LIMIT: '100000000', WEBHOOK_WORKER: '0' },
    0,
  );
  try {
    await h.waitFor(api, '/readyz', 120_000);
    const bapi = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`POST ${path} → ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; token?: string };
    };
    const org = await bapi('/v1/organizations', { name: 'SCIM bench' });
    const token = (await bapi('/v1/scim_tokens', { organization_id: org.id, name: 'bench' })).token!;
    const scimHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' };

    h.log(`scim: provisioning ${opts.users} users into an empty organization (${opts.connections} concurrent POST /scim/v2/Users)`);
    const userNames: string[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: opts.connections }, async () => {
        while (next < opts.users) {
          const n = ++next;
          const userName = `Employee${n}@bench.example.com`;
          const res = await fetch(`${base}/scim/v2/Users`, {
            method: 'POST',
            headers: scimHeaders,
            body: JSON.stringify({
              schemas: [SCIM_USER],
              userName,
              externalId: `ext-${n}`,
              name: { givenName: `Employee${n}`, familyName: 'Bench' },
              active: true,
            }),
            signal: AbortSignal.timeout(30_000),
          });
          await res.arrayBuffer();
          if (res.status !== 201) throw new Error(`POST /scim/v2/Users → ${res.status}; the server said:\n${api.output().slice(-4000)}`);
          userNames.push(userName);
        }
      }),
    );
    const provisionSeconds = (performance.now() - started) / 1000;

    h.log(`scim: userName eq look-ups for ${opts.seconds}s`);
    const lookupPath = (name: string) => `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${name}"`)}`;
    await autocannon({
      url: base,
      connections: opts.connections,
      duration: 2,
      headers: scimHeaders,
      requests: [{ method: 'GET', path: lookupPath(userNames[0]!) }],
    });
    const lookups = await autocannon({
      url: base,
      connections: opts.connections,
      duration: opts.seconds,
      headers: scimHeaders,
      requests: [
        { method: 'GET', setupRequest: (req) => ({ ...req, path: lookupPath(userNames[Math.floor(Math.random() * userNames.length)]!) }) },
      ],
    });
    const ceiling = await ceilingRate(
      opts.databaseUrl,
      org.id,
      userNames.map((u) => u.toLowerCase()),
      opts.connections,
      opts.seconds,
    );
    const provisionedPerSecond = opts.users / provisionSeconds;
    return {
      users: opts.users,
      provisionSeconds,
      provisionedPerSecond,
      lookupsPerSecond: lookups.requests.average,
      lookupP50: lookups.latency.p50,
      lookupP99: lookups.latency.p99,
      lookupNon2xx: lookups.non2xx,
      ceilingQueriesPerSecond: ceiling,
      provisionVsCeiling: provisionedPerSecond / ceiling,
      lookupVsCeiling: lookups.requests.average / ceiling,
    };
  } finally {
    await h.stop(api.child);
  }
}
