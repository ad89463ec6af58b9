import type { Server } from 'node:http';
import { ConfigError, loadConfig, type Config } from '../config';
import { DataDirInUseError } from '../db/embedded-lock';
import { bootstrapConsole, bootstrapEmptyStore, firstStartBanner, setupBanner } from '../instances/bootstrap';
import { purgeIdempotencyRecords } from '../http/idempotency';
import { purgeAuthAttempts } from '../auth/housekeeping';
import { purgeSocialFlows } from '../social/flow';
import { purgeSsoRequests } from '../sso/flow';
import { purgeLockoutState } from '../protection/housekeeping';
import { purgeOAuthArtifacts } from '../oauth/housekeeping';
import { createRuntime, setSharedRuntime, type Runtime } from '../runtime';
import { sweepSessions } from '../sessions/sessions';
import { rollUpActivity } from '../analytics/metrics';
import { retryQueuedEmails } from '../email/mailer';
import { checkStuckSms, retryDueSms } from '../sms/delivery';
import { purgeWebhookMessages } from '../webhooks/messages';
import { deliveryRounds } from './delivery-rounds';
import { startWebhookWorker, type WebhookWorker } from '../webhooks/worker';
import { drainServer, httpWorkerCount, processRole, superviseWorkers } from './cluster';

export interface Booted {
  config: Config;
  runtime: Runtime;
  /** This HTTP worker's number (0 when alone); worker 0 also runs housekeeping and webhook delivery. */
  ordinal: number;
  /** Hands the HTTP server to the shutdown: SIGTERM stops it accepting and drains it (SHUTDOWN_TIMEOUT). */
  serve(server: Server): Server;
}

/** A configuration error stops the start with its message and exit code 2. */
function orExit<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
}

/**
 * Config, database, migrations, first-start setup and housekeeping shared by `start` and
 * `api`. With more than one HTTP worker (WEB_CONCURRENCY, PostgreSQL only) this process
 * becomes the cluster primary: it migrates and bootstraps once, forks the workers and
 * answers null; each worker then boots here itself.
 */
export async function boot(): Promise<Booted | null> {
  const config = orExit(() => loadConfig());
  const role = processRole(orExit(() => httpWorkerCount(config)));
  const open = async (port: number | null) => {
    try {
      return await createRuntime(config, { port, defaultMetrics: port !== null, survivesDriverCrash: true });
    } catch (e) {
      // A file a variable names (GEOIP_DATABASE) is read here, after loadConfig.
      if (e instanceof ConfigError) {
        process.stderr.write(`${e.message}\n`);
        process.exit(2);
      }
      if (e instanceof DataDirInUseError) {
        process.stderr.write(`${e.message}\n`);
        process.exit(1);
      }
      throw e;
    }
  };
  const bootstrap = async (runtime: Runtime) => {
    const { deps } = runtime;
    if (!config.DATABASE_URL) {
      deps.logger.info({ data_dir: config.DATA_DIR }, 'using the embedded database (set DATABASE_URL for PostgreSQL)');
    }
    const first = await bootstrapEmptyStore(deps);
    if (first) process.stdout.write(`${firstStartBanner(first, `${config.PUBLIC_URL}/`)}\n`);
    const setupLink = await bootstrapConsole(deps);
    if (setupLink) process.stdout.write(`${setupBanner(setupLink)}\n`);
  };

  if (role.primary) {
    // Migrations and the first-start setup run once, here, before any worker starts.
    const runtime = await open(null);
    await bootstrap(runtime);
    const log = runtime.deps.logger;
    await runtime.close();
    superviseWorkers(role.workers, config.SHUTDOWN_TIMEOUT * 1000, log);
    return null;
  }

  const runtime = await open(config.PORT);
  setSharedRuntime(runtime);
  const { deps } = runtime;
  if (!role.clustered) await bootstrap(runtime);
  const housekeeper = role.ordinal === 0;

  if (housekeeper) {
    const housekeeping = setInterval(
      () => {
        purgeIdempotencyRecords(deps).catch((err: unknown) => deps.logger.warn({ err }, 'idempotency purge failed'));
        purgeAuthAttempts(deps).catch((err: unknown) => deps.logger.warn({ err }, 'sign-in/sign-up attempt purge failed'));
        purgeWebhookMessages(deps).catch((err: unknown) => deps.logger.warn({ err }, 'webhook message purge failed'));
        purgeLockoutState(deps).catch((err: unknown) => deps.logger.warn({ err }, 'lockout state purge failed'));
        purgeOAuthArtifacts(deps).catch((err: unknown) => deps.logger.warn({ err }, 'OAuth code and token purge failed'));
        purgeSocialFlows(deps).catch((err: unknown) => deps.logger.warn({ err }, 'social sign-in flow purge failed'));
        purgeSsoRequests(deps).catch((err: unknown) => deps.logger.warn({ err }, 'SSO request purge failed'));
      },
      60 * 60 * 1000,
    );
    housekeeping.unref();
    // Overdue sessions move to expired / abandoned; reads settle them too, this keeps lists and counts honest.
    const sweep = setInterval(() => {
      sweepSessions(deps).catch((err: unknown) => deps.logger.warn({ err }, 'session sweep failed'));
    }, 60 * 1000);
    sweep.unref();
    // The overview's active-user and session gauges for today.
    const rollUp = () => rollUpActivity(deps).catch((err: unknown) => deps.logger.warn({ err }, 'activity roll-up failed'));
    void rollUp();
    setInterval(rollUp, 5 * 60 * 1000).unref();
    // Emails whose SMTP send failed, or whose process stopped before sending, go out again.
    setInterval(() => retryQueuedEmails(deps).catch((err: unknown) => deps.logger.warn({ err }, 'email retry failed')), 30 * 1000).unref();
    // SMS whose provider send failed (with backoff), or whose process stopped mid-delivery, go out again.
    setInterval(() => retryDueSms(deps).catch((err: unknown) => deps.logger.warn({ err }, 'SMS retry failed')), 10 * 1000).unref();
    // SMS whose status callback never came: their status is read from the provider.
    setInterval(() => checkStuckSms(deps).catch((err: unknown) => deps.logger.warn({ err }, 'SMS status check failed')), 60 * 1000).unref();
  }

  const worker: WebhookWorker | null =
    housekeeper && config.WEBHOOK_WORKER
      ? await startWebhookWorker(deps, runtime.database, { leaseMs: config.WEBHOOK_LEASE_SECONDS * 1000, rounds: deliveryRounds(deps) })
      : null;

  const servers = new Set<Server>();
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    const bound = config.SHUTDOWN_TIMEOUT * 1000;
    deps.logger.info(
      { signal, ordinal: role.ordinal, timeout_s: config.SHUTDOWN_TIMEOUT },
      'shutting down: no new connections, finishing requests in flight',
    );
    const drained = Promise.all([...servers].map((s) => drainServer(s, bound)));
    // Deliveries in flight are acknowledged (or their claims released) before the database closes.
    Promise.all([drained, worker?.stop(bound)])
      .then(([inTime]) => {
        if (!inTime.every(Boolean))
          deps.logger.warn({ timeout_s: config.SHUTDOWN_TIMEOUT }, 'requests still in flight at the shutdown bound were cut');
      })
      .then(() => runtime.close())
      .catch((err: unknown) => deps.logger.error({ err }, 'shutdown failed'))
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  return {
    config,
    runtime,
    ordinal: role.ordinal,
    serve(server) {
      servers.add(server);
      return server;
    },
  };
}
