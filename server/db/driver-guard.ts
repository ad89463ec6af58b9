import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from 'pino';

/**
 * postgres.js 3.4.9 defers small writes with setImmediate; when the server closes the
 * connection first (PostgreSQL restarted or stopped), the deferred write runs on a socket
 * it has already set to null and throws from the timer, which no caller can catch: the
 * whole process exits (porsager/postgres#1154, #1208). Worse, the connection keeps the dead
 * timer and never flushes again: every later query on it waits for the connect timeout and
 * fails. patches/postgres+3.4.9.patch (applied by patch-package at `npm install`) fixes both
 * in the driver (docs/production.md). This guard stays for an install without it
 * (`--ignore-scripts`): that one error is logged, every pool ends its client (its waiting
 * queries fail: 503 to their clients) and opens a new one, and the process goes on; any
 * other uncaught exception still ends it.
 */
function isDriverWriteAfterClose(err: unknown): boolean {
  return (
    err instanceof TypeError &&
    /reading 'write'/.test(err.message) &&
    /nextWrite/.test(err.stack ?? '') &&
    /postgres[\\/]src[\\/]connection\.js/.test(err.stack ?? '')
  );
}

let installed = false;
const resets = new Set<() => void>();

/** Called after the driver's write-after-close: the pools start over (see openPostgres). Returns the unregistration. */
export function onDriverFault(reset: () => void): () => void {
  resets.add(reset);
  return () => resets.delete(reset);
}

export function survivePostgresWriteAfterClose(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (err, origin) => {
    if (isDriverWriteAfterClose(err)) {
      logger.warn({ err }, 'a PostgreSQL connection closed under a pending write (driver bug worked around): the pool starts over');
      for (const reset of resets) reset();
      return;
    }
    // What Node does without a handler: print and exit 1.
    process.stderr.write(`${origin}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}

/** Whether the installed postgres.js carries patches/postgres+3.4.9.patch (`npm install` applies it; `--ignore-scripts` does not). */
export function postgresDriverPatched(): boolean {
  try {
    const entry = createRequire(import.meta.url).resolve('postgres');
    return readFileSync(path.join(path.dirname(entry), 'connection.js'), 'utf8').includes('latchkey patch');
  } catch {
    return false;
  }
}
