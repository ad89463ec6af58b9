import { z } from 'zod';
import { AppError } from './errors';

/**
 * The one set of bounds on metadata (public, private and unsafe; on users, sign-ups,
 * organizations, memberships and invitations): at most 8 KiB as JSON (UTF-8) and at
 * most 10 levels of nesting, checked on the input and again on the stored value after
 * a merge. Every walk here is iterative, so no input can overflow the stack.
 */

export const METADATA_MAX_BYTES = 8 * 1024;
/** The metadata object itself is level 1: `{"a":{"b":1}}` has depth 2. */
const METADATA_MAX_DEPTH = 10;

/** Stable `meta.reason` values of a metadata 422 (listed in docs/conventions.md). */
export type MetadataProblem = 'too_deep' | 'too_large';

type Metadata = Record<string, unknown>;

interface Frame {
  value: object;
  depth: number;
  key: string | null;
  parent: Frame | null;
}

/**
 * The path of the first object/array nested more than `limit` levels deep in a JSON
 * value (a scalar is level 0, `{}` and `[]` level 1), or null. Iterative with an
 * explicit stack, and it never descends past the limit, so any depth is harmless.
 */
export function pathDeeperThan(value: unknown, limit: number): string[] | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Frame[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > limit) {
      const path: string[] = [];
      for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) path.push(f.key);
      return path.reverse();
    }
    for (const [key, child] of Object.entries(frame.value)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return null;
}

const nestedDeeperThan = (value: unknown, limit: number) => pathDeeperThan(value, limit) !== null;

/** UTF-8 bytes of the JSON serialisation; only called once the depth is known to be small. */
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** What is wrong with a metadata value, or null when it is within bounds. Depth first: serialising is safe only after. */
export function metadataProblem(value: unknown): MetadataProblem | null {
  if (nestedDeeperThan(value, METADATA_MAX_DEPTH)) return 'too_deep';
  if (jsonBytes(value) > METADATA_MAX_BYTES) return 'too_large';
  return null;
}

const MESSAGES: Record<MetadataProblem, string> = {
  too_deep: `must not nest more than ${METADATA_MAX_DEPTH} levels deep`,
  too_large: `must be at most ${METADATA_MAX_BYTES} bytes as JSON`,
};

/** Throws 422 VALIDATION_FAILED (meta.param = the field, meta.reason) when a value to be stored is out of bounds. */
export function assertMetadata(param: string, value: unknown, when = ''): void {
  const problem = metadataProblem(value);
  if (!problem) return;
  throw new AppError('VALIDATION_FAILED', {
    message: `${param} ${MESSAGES[problem]}${when}.`,
    meta: { param, reason: problem },
  });
}

/**
 * Metadata input on every surface: an object, bounded in depth and size. A PATCH value
 * is a patch (merged by `mergeMetadata`) and is bounded the same way.
 */
export const metadataInput = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const problem = metadataProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: MESSAGES[problem], params: { reason: problem } });
});

const isPlainObject = (v: unknown): v is Metadata => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets an own property, even one named `__proto__` (plain assignment would change the prototype instead). */
const setOwn = (o: Metadata, k: string, v: unknown) =>
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });

/**
 * Deep-merges a metadata patch into the stored value: nested objects merge, `null`
 * deletes a key, anything else replaces. Iterative; neither argument is modified.
 */
export function mergeMetadata(current: Metadata, patch: Metadata): Metadata {
  const out: Metadata = { ...current };
  const stack: { target: Metadata; patch: Metadata }[] = [{ target: out, patch }];
  while (stack.length > 0) {
    const { target, patch: p } = stack.pop()!;
    for (const [k, v] of Object.entries(p)) {
      const existing = Object.hasOwn(target, k) ? target[k] : undefined;
      if (v === null) delete target[k];
      else if (isPlainObject(v) && isPlainObject(existing)) {
        const copy: Metadata = { ...existing };
        setOwn(target, k, copy);
        stack.push({ target: copy, patch: v });
      } else setOwn(target, k, v);
    }
  }
  return out;
}

/**
 * Merges a patch into the stored value and checks the result: each patch may be within
 * bounds while their sum is not. Call it in the transaction that writes the result.
 */
export function mergeMetadataChecked(param: string, current: Metadata, patch: Metadata): Metadata {
  const merged = mergeMetadata(current, patch);
  assertMetadata(param, merged, ' after merging');
  return merged;
}
