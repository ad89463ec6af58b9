/** The constraint a unique violation (23505) hit, from postgres.js or PGlite, or null. */
export function uniqueViolation(err: unknown): string | null {
  for (let e = err as { code?: string; constraint?: string; constraint_name?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505') return e.constraint_name ?? e.constraint ?? 'unknown';
  }
  return null;
}
