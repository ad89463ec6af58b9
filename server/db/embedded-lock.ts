import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * PGlite is single-process. Whoever opens DATA_DIR holds this lock file; a server
 * also publishes its port and a token so the CLI can work through it instead.
 */
export interface EmbeddedLock {
  pid: number;
  port: number | null;
  token: string | null;
}

const lockPath = (dataDir: string) => path.join(dataDir, 'latchkey.lock');

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock held by another live process, or null (a stale lock is removed). */
export function readLiveLock(dataDir: string): EmbeddedLock | null {
  let lock: EmbeddedLock;
  try {
    lock = JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as EmbeddedLock;
  } catch {
    return null;
  }
  if (lock.pid !== process.pid && alive(lock.pid)) return lock;
  if (lock.pid !== process.pid) rmSync(lockPath(dataDir), { force: true });
  return null;
}

export class DataDirInUseError extends Error {
  constructor(
    dataDir: string,
    readonly lock: EmbeddedLock,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${lock.pid}. ` +
        'Stop that process first, or set DATABASE_URL to use PostgreSQL, which many processes can share.',
    );
  }
}

export function acquireLock(dataDir: string, port: number | null): EmbeddedLock {
  mkdirSync(dataDir, { recursive: true });
  const lock: EmbeddedLock = { pid: process.pid, port, token: port ? randomBytes(32).toString('base64url') : null };
  for (let attempt = 0; ; attempt++) {
    const held = readLiveLock(dataDir);
    if (held) throw new DataDirInUseError(dataDir, held);
    try {
      // Exclusive create: of two processes starting together, one wins.
      writeFileSync(lockPath(dataDir), JSON.stringify(lock), { mode: 0o600, flag: 'wx' });
      return lock;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
    }
  }
}

export function releaseLock(dataDir: string) {
  try {
    const lock = JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as EmbeddedLock;
    if (lock.pid === process.pid) rmSync(lockPath(dataDir), { force: true });
  } catch {
    /* already gone */
  }
}
