/** A plain JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The patch that turns `before` into `after` under the API's metadata deep merge (RFC 7396
 * style): removed keys become null, nested objects are diffed, anything else is replaced.
 */
export function mergePatch(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    patch[key] = isObject(old) && isObject(value) ? mergePatch(old, value) : value;
  }
  for (const key of Object.keys(before)) if (!(key in after)) patch[key] = null;
  return patch;
}
