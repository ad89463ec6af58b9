import type { Metadata } from '../db/schema';

const isPlainObject = (v: unknown): v is Metadata => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep-merges a metadata patch: nested objects merge, `null` deletes a key, anything else replaces. */
export function mergeMetadata(current: Metadata, patch: Metadata): Metadata {
  const out: Metadata = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (isPlainObject(v) && isPlainObject(out[k])) out[k] = mergeMetadata(out[k] as Metadata, v);
    else out[k] = v;
  }
  return out;
}
