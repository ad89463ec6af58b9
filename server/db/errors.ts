/** The constraint a unique violation (23505) hit, from postgres.js or PGlite, or null. */
export function uniqueViolation(err: unknown): string | null {
  for (
    let e = err as { code?: string; constraint?: string; constraint_name?: string; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e.code === '23505') return e.constraint_name ?? e.constraint ?? 'unknown';
  }
  return null;
}

/**
 * What a client can be told about a database failure, or null for any other error:
 * - `unavailable`: the database cannot be reached or is restarting (a refused or lost
 *   connection, a shutdown or start-up in progress, too many connections);
 * - `busy`: every connection of this node stayed busy past the admission bounds
 *   (server/db/admission.ts), or a statement was cancelled for taking too long;
 * - `removed_meanwhile`: a row the write refers to (a foreign key) was deleted by a
 *   transaction that committed after this one's checks.
 */
export type DatabaseFault = 'unavailable' | 'busy' | 'removed_meanwhile';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // postgres.js
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

export function databaseFault(err: unknown): DatabaseFault | null {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (code === 'LATCHKEY_DATABASE_BUSY' || code === '57014') return 'busy';
    // Class 08: connection exceptions.
    if (UNAVAILABLE_CODES.has(code) || code.startsWith('08')) return 'unavailable';
    if (code === '23503') return 'removed_meanwhile';
  }
  return null;
}
