import { ConfigError, loadConfig } from '../config';
import { DataDirInUseError } from '../db/embedded-lock';
import { createRuntime } from '../runtime';
import { deliveryRounds } from './delivery-rounds';
import { startWebhookWorker } from '../webhooks/worker';

/**
 * `npm run worker`: webhook delivery alone, no HTTP server. Any number may run against one
 * PostgreSQL database (DATABASE_URL); claims never overlap. With the embedded store it
 * must be the only process on DATA_DIR.
 */
let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  throw e;
}
let runtime;
try {
  runtime = await createRuntime(config, { port: null, defaultMetrics: true, survivesDriverCrash: true });
} catch (e) {
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
const { deps } = runtime;
const worker = await startWebhookWorker(deps, runtime.database, {
  leaseMs: config.WEBHOOK_LEASE_SECONDS * 1000,
  rounds: deliveryRounds(deps),
});
deps.logger.info('webhook worker started');

let closing = false;
const shutdown = (signal: string) => {
  if (closing) return;
  closing = true;
  deps.logger.info({ signal }, 'webhook worker stopping');
  worker
    .stop()
    .then(() => runtime.close())
    .finally(() => process.exit(0));
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
