import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { loadConfig } from '../server/config';
import { systemContext } from '../server/http/actor';
import { createInstance, defaultAccount } from '../server/instances/instances';
import { createSecretKey } from '../server/keys/secret-keys';
import { createRuntime } from '../server/runtime';
import { startWebhookReceiver, type WebhookReceiver } from '../server/testing/webhook-receiver';
import { call, killAll, load, sleep, startNode, summarise, type LoadContext, type Node, type Step } from '../server/testing/deployment';
import { createEndpoint } from '../server/webhooks/webhook-endpoints';

/** The claim lease of the nodes under test: an acknowledged event must reach the receiver within it plus 10 s. */
export const LEASE_SECONDS = 10;

/**
 * Two API nodes (A also delivers webhooks) and a webhook worker on `databaseUrl`, an
 * instance with a secret key, and a webhook endpoint on a local receiver that counts each
 * acknowledged user's `user.created`.
 */
export async function startCluster(databaseUrl: string, extraEnv: Record<string, string> = {}) {
  const env = {
    DATABASE_URL: databaseUrl,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'error',
    NODE_ENV: 'production',
    ALLOW_PRIVATE_WEBHOOK_TARGETS: '1',
    WEB_CONCURRENCY: '1',
    BAPI_RATE_LIMIT: '100000000',
    SHUTDOWN_TIMEOUT: '3',
    WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
    ...extraEnv,
  };
  const [A, B, worker] = await Promise.all([
    startNode('A', 'server/main/api.ts', { ...env, WEBHOOK_WORKER: '1' }),
    startNode('B', 'server/main/api.ts', { ...env, WEBHOOK_WORKER: '0' }),
    startNode('worker', 'server/main/worker.ts', env),
  ]);
  const runtime = await createRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  const account = await defaultAccount(runtime.deps);
  const instance = await createInstance(runtime.deps, { accountId: account.id, name: 'Faults', environment: 'test' });
  const secret = (await createSecretKey(runtime.deps, { instanceId: instance.id, scopes: '*' }, systemContext('faults'))).secret;
  const receiver: WebhookReceiver = await startWebhookReceiver();
  await createEndpoint(
    runtime.deps,
    { id: instance.id, environment: 'test' },
    { url: `${receiver.url}/hooks`, event_types: ['user.created'] },
    { actor: 'faults' },
  );
  // Only the setup runs in this process: the faults are the nodes' to survive.
  await runtime.close();
  const ctx: LoadContext = { secret, userIds: [], acked: new Map(), scenario: 'seed' };
  for (let i = 0; i < 10; i++) {
    const r = await call(A.base, 'POST', '/v1/users', secret, { email_address: [`seed${i}@faults.example.com`] });
    if (r.status !== 200) throw new Error(`seeding: ${r.status} ${JSON.stringify(r.json)}`);
    ctx.userIds.push(String(r.json!.id));
    ctx.acked.set(String(r.json!.id), 'seed');
  }
  let nodes: Node[] = [A, B];

  /** user id → deliveries of its user.created. */
  const deliveries = () => {
    const seen = new Map<string, number>();
    for (const r of receiver.received) {
      const id = (JSON.parse(r.body) as { data?: { id?: string } }).data?.id;
      if (id) seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    return seen;
  };

  return {
    A,
    B,
    worker,
    env,
    ctx,
    receiver,
    /** The nodes the load goes to (a load balancer's view). */
    setNodes: (n: Node[]) => (nodes = n),
    /**
     * Load for CALM seconds, then `inject` (which returns when the fault is over: the
     * database accepts connections again, the node is gone...), then CALM + `after` seconds
     * more. The summary's recovery counts from the fault's end.
     */
    async scenario(name: string, clients: number, inject: () => Promise<void>, opts: { after?: number; step?: Step } = {}) {
      ctx.scenario = name;
      const t0 = Date.now();
      let finish!: () => void;
      const loading = load(() => nodes, ctx, clients, new Promise<void>((r) => (finish = r)), t0, opts.step);
      await sleep(3000);
      const faultAt = Date.now() - t0;
      await inject();
      const endAt = Date.now() - t0;
      await sleep(3000 + (opts.after ?? 3) * 1000);
      finish();
      const samples = await loading;
      return { ...summarise(samples, endAt), samples, faultAt, endAt, t0 };
    },
    /** Acknowledged creates of `scenario` missing from `databaseUrl` (read through `url`, the database's current primary). */
    async lostWrites(scenario: string, url = databaseUrl) {
      const ids = [...ctx.acked].filter(([, s]) => s === scenario).map(([id]) => id);
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        const found = ids.length ? await sql<{ id: string }[]>`select id from users where id = any(${ids})` : [];
        return { acknowledged: ids.length, lost: ids.length - found.length };
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
    /** Waits until every acknowledged user of `scenario` had its user.created delivered, or `withinMs`; returns the missing and the duplicated. */
    async deliveredOf(scenario: string, withinMs: number) {
      const ids = [...ctx.acked].filter(([, s]) => s === scenario).map(([id]) => id);
      const deadline = Date.now() + withinMs;
      let seen = deliveries();
      while (Date.now() < deadline && ids.some((id) => !seen.has(id))) {
        await sleep(250);
        seen = deliveries();
      }
      return {
        acknowledged: ids.length,
        missing: ids.filter((id) => !seen.has(id)).length,
        duplicated: ids.filter((id) => (seen.get(id) ?? 0) > 1).length,
      };
    },
    /** The processes that exited though nothing killed them, with their last output. */
    died: (...expected: Node[]) =>
      [A, B, worker]
        .filter((n) => !expected.includes(n) && (n.child.exitCode !== null || n.child.signalCode !== null))
        .map((n) => `${n.name} (exit ${n.child.exitCode ?? n.child.signalCode}):\n${n.output()}`),
    async close() {
      await killAll();
      await receiver.close();
    },
  };
}

export type Cluster = Awaited<ReturnType<typeof startCluster>>;
