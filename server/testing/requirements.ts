/**
 * Whether tests that need something outside Node (Chromium, a PostgreSQL server) can run.
 * Missing on a developer's machine: false, and a line on stderr says what is skipped. Missing
 * under CI=true: an error, so the file fails instead of passing with its tests quietly skipped.
 */
export function required(what: string, present: boolean, skipped: string): boolean {
  if (present) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true: ${what} is missing, so ${skipped} cannot run (skipped only outside CI)`);
  process.stderr.write(`${skipped} skipped: ${what} is missing\n`);
  return false;
}
