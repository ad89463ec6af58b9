import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { availableParallelism } from 'node:os';
import { ConfigError, type Config } from '../config';

/** Set by the primary on each HTTP worker it forks: 0, 1, … (a restarted worker keeps its number). */
export const WORKER_ORDINAL_ENV = 'LATCHKEY_WORKER_ORDINAL';

/**
 * HTTP worker processes for `npm start` / `npm run api`: WEB_CONCURRENCY, else one per core
 * on PostgreSQL and one on the embedded store. PGlite is single-process (one process owns
 * DATA_DIR), so more than one without DATABASE_URL is a configuration error.
 */
export function httpWorkerCount(config: Pick<Config, 'WEB_CONCURRENCY' | 'DATABASE_URL'>, cores = availableParallelism()): number {
  if (!config.DATABASE_URL) {
    if ((config.WEB_CONCURRENCY ?? 1) > 1) {
      throw new ConfigError(
        'Invalid configuration:\n  WEB_CONCURRENCY: the embedded store is single-process (one process owns DATA_DIR); ' +
          'set DATABASE_URL to run more than one HTTP worker',
      );
    }
    return 1;
  }
  return config.WEB_CONCURRENCY ?? Math.max(1, cores);
}

/** This process's place: the primary of a cluster, or the server itself (ordinal 0 when alone). */
export type ProcessRole = { primary: true; workers: number } | { primary: false; ordinal: number; clustered: boolean };

export function processRole(workers: number): ProcessRole {
  if (cluster.isWorker) return { primary: false, ordinal: Number(process.env[WORKER_ORDINAL_ENV] ?? 0), clustered: true };
  return workers > 1 ? { primary: true, workers } : { primary: false, ordinal: 0, clustered: false };
}

interface PrimaryLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * The primary of a cluster: forks `count` HTTP workers that share the port (node:cluster
 * hands connections round-robin), forks a worker again when one dies, and on SIGTERM or
 * SIGINT passes the signal on and exits once every worker has drained (at most
 * `shutdownMs` plus a margin, after which the stragglers are killed).
 */
export function superviseWorkers(count: number, shutdownMs: number, log: PrimaryLog): void {
  let stopping = false;
  const live = new Map<number, number>(); // worker id → ordinal
  const fork = (ordinal: number) => {
    const w = cluster.fork({ [WORKER_ORDINAL_ENV]: String(ordinal) });
    live.set(w.id, ordinal);
  };
  cluster.on('exit', (w, code, signal) => {
    const ordinal = live.get(w.id);
    live.delete(w.id);
    if (stopping) {
      if (live.size === 0) process.exit(0);
      return;
    }
    if (ordinal === undefined) return;
    log.warn({ ordinal, code, signal }, 'an HTTP worker exited; starting it again');
    setTimeout(() => fork(ordinal), 1000).unref();
  });
  for (let i = 0; i < count; i++) fork(i);
  log.info({ workers: count, cores: availableParallelism() }, 'cluster primary: HTTP workers starting');
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'cluster primary: draining the HTTP workers');
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    if (live.size === 0) process.exit(0);
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      process.exit(1);
    }, shutdownMs + 15_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * Stops accepting connections and waits for the requests in flight, at most `timeoutMs`;
 * then closes the connections still open. Idle keep-alive connections are closed at once
 * and again as their requests finish, so clients reconnect to another worker or node.
 * Resolves true when everything finished within the bound.
 */
export function drainServer(server: Server, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let inTime = true;
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const bound = setTimeout(() => {
      inTime = false;
      server.closeAllConnections();
    }, timeoutMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(bound);
      resolve(inTime);
    });
    server.closeIdleConnections();
  });
}
