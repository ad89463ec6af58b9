import { ConfigError, loadConfig, type Config } from '../config';
import { DataDirInUseError } from '../db/embedded-lock';
import { bootstrapConsole, bootstrapEmptyStore, firstStartBanner, setupBanner } from '../instances/bootstrap';
import { purgeIdempotencyRecords } from '../http/idempotency';
import { purgeAuthAttempts } from '../auth/housekeeping';
import { purgeLockoutState } from '../protection/housekeeping';
import { purgeOAuthArtifacts } from '../oauth/housekeeping';
import { createRuntime, setSharedRuntime, type Runtime } from '../runtime';
import { sweepSessions } from '../sessions/sessions';
import { retryQueuedEmails } from '../email/mailer';
import { purgeWebhookMessages } from '../webhooks/messages';
import { startWebhookWorker, type WebhookWorker } from '../webhooks/worker';

/** Config, database, migrations, first-start setup and housekeeping shared by `start` and `api`. */
export async function boot(): Promise<{ config: Config; runtime: Runtime }> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  let runtime: Runtime;
  try {
    runtime = await createRuntime(config, { port: config.PORT, defaultMetrics: true });
  } catch (e) {
    if (e instanceof DataDirInUseError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  setSharedRuntime(runtime);
  const { deps } = runtime;
  if (!config.DATABASE_URL) {
    deps.logger.info({ data_dir: config.DATA_DIR }, 'using the embedded database (set DATABASE_URL for PostgreSQL)');
  }
  const first = await bootstrapEmptyStore(deps);
  if (first) process.stdout.write(`${firstStartBanner(first, `${config.PUBLIC_URL}/`)}\n`);
  const setupLink = await bootstrapConsole(deps);
  if (setupLink) process.stdout.write(`${setupBanner(setupLink)}\n`);

  const housekeeping = setInterval(() => {
    purgeIdempotencyRecords(deps).catch((err: unknown) => deps.logger.warn({ err }, 'idempotency purge failed'));
    purgeAuthAttempts(deps).catch((err: unknown) => deps.logger.warn({ err }, 'sign-in/sign-up attempt purge failed'));
    purgeWebhookMessages(deps).catch((err: unknown) => deps.logger.warn({ err }, 'webhook message purge failed'));
    purgeLockoutState(deps).catch((err: unknown) => deps.logger.warn({ err }, 'lockout state purge failed'));
    purgeOAuthArtifacts(deps).catch((err: unknown) => deps.logger.warn({ err }, 'OAuth code and token purge failed'));
  }, 60 * 60 * 1000);
  housekeeping.unref();
  // Overdue sessions move to expired / abandoned; reads settle them too, this keeps lists and counts honest.
  const sweep = setInterval(() => {
    sweepSessions(deps).catch((err: unknown) => deps.logger.warn({ err }, 'session sweep failed'));
  }, 60 * 1000);
  sweep.unref();
  // Emails whose SMTP send failed, or whose process stopped before sending, go out again.
  setInterval(() => retryQueuedEmails(deps).catch((err: unknown) => deps.logger.warn({ err }, 'email retry failed')), 30 * 1000).unref();

  const worker: WebhookWorker | null = config.WEBHOOK_WORKER ? await startWebhookWorker(deps, runtime.database) : null;

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    deps.logger.info({ signal }, 'shutting down');
    // Deliveries in flight are acknowledged before the database closes.
    Promise.resolve(worker?.stop())
      .then(() => runtime.close())
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  return { config, runtime };
}
