import { z } from 'zod';
import type { Reason } from './errors';
import { AppError, type ErrorEntry } from './errors';
import { pathDeeperThan } from './metadata';

/** The value at an issue's path in the input: zod 4 leaves `issue.input` out unless asked. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function entry(issue: z.core.$ZodIssue, root: string, input: unknown): ErrorEntry[] {
  const base = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => {
      const param = [base, k].filter(Boolean).join('.') || root;
      return { code: 'VALIDATION_FAILED', message: `${param} is not a known field.`, meta: { param, reason: 'unknown_field' } };
    });
  }
  const param = base || root;
  // A custom rule names its reason in params ({ reason }); zod's own codes are used as they are.
  const custom = issue.code === 'custom' ? (issue.params as { reason?: Reason } | undefined)?.reason : undefined;
  const reason = custom ?? (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined ? 'required' : issue.code);
  const message = reason === 'required' ? `${param} is required.` : `${param}: ${issue.message}`;
  return [{ code: 'VALIDATION_FAILED', message, meta: { param, reason, ...bounds(issue) } }];
}

const BOUND_NAMES: Record<string, [min: string, max: string]> = {
  string: ['min_length', 'max_length'],
  array: ['min_items', 'max_items'],
  set: ['min_items', 'max_items'],
  number: ['minimum', 'maximum'],
};

/** The bound a too_small/too_big value missed, so a client can say it in its own words: `min_length: 8`. */
function bounds(issue: z.core.$ZodIssue): Record<string, number> {
  if (issue.code !== 'too_small' && issue.code !== 'too_big') return {};
  const names = BOUND_NAMES[issue.origin];
  const limit = issue.code === 'too_small' ? issue.minimum : issue.maximum;
  if (!names || typeof limit !== 'number') return {};
  return { [names[issue.code === 'too_small' ? 0 : 1]]: limit };
}

/** U+0000 and unpaired surrogates: Postgres text and jsonb cannot store them faithfully. */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what is looked for
const UNSTORABLE_RE = /[\u0000\uD800-\uDFFF]/u;
export const isStorableText = (s: string) => !UNSTORABLE_RE.test(s);

interface Frame {
  value: unknown;
  key: string | null;
  parent: Frame | null;
}
const pathOf = (f: Frame | null): string[] => {
  const out: string[] = [];
  for (let x = f; x && x.key !== null; x = x.parent) out.push(x.key);
  return out.reverse();
};

/** The path of the first string (value or key) that cannot be stored; iterative and linear, so deep nesting is harmless. */
function firstUnstorable(input: unknown): string[] | null {
  const stack: Frame[] = [{ value: input, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return pathOf(frame);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (!isStorableText(k)) return [...pathOf(frame), k.replace(UNSTORABLE_RE, '\uFFFD')];
        stack.push({ value: child, key: k, parent: frame });
      }
    }
  }
  return null;
}

/** No request input nests deeper than this (metadata allows 10 inside a body): nothing recursive downstream can overflow. */
const MAX_INPUT_DEPTH = 32;

/** 422 too_deep naming the top-level field (past array indexes) that holds the over-deep part. */
function assertShallow(input: unknown, root: string) {
  const path = pathDeeperThan(input, MAX_INPUT_DEPTH);
  if (!path) return;
  const field = path.findIndex((k) => !/^\d+$/.test(k));
  const param = field < 0 ? root : path.slice(0, field + 1).join('.');
  throw new AppError('VALIDATION_FAILED', {
    message: `${param} is nested too deeply.`,
    meta: { param, reason: 'too_deep' },
  });
}

/** Parses input with a zod schema; every problem becomes one 422 entry naming its field. */
export function validate<T extends z.ZodType>(schema: T, input: unknown, root = 'body'): z.output<T> {
  assertShallow(input, root);
  const bad = firstUnstorable(input);
  if (bad) {
    const param = bad.join('.') || root;
    throw new AppError('VALIDATION_FAILED', {
      message: `${param} contains a NUL character or invalid Unicode.`,
      meta: { param, reason: 'invalid_characters' },
    });
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const entries = result.error.issues.flatMap((i) => entry(i, root, input)).slice(0, 20);
  const [first, ...more] = entries;
  throw new AppError('VALIDATION_FAILED', { message: first!.message, meta: first!.meta, more });
}
