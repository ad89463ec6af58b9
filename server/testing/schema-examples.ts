/**
 * Deterministic examples of the JSON Schema subset our OpenAPI documents emit, and a
 * validator for the same subset. `examples(schema)` returns values the schema accepts:
 * for strings, every string of a pool of ordinary and awkward ones (blank, padded, NUL,
 * non-ASCII, longest allowed...) that meets the schema, so a test can send what an
 * outside generator (schemathesis and the like) would and see whether the server agrees.
 */

export type JsonSchema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  if?: JsonSchema;
  then?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  dependentRequired?: Record<string, string[]>;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minProperties?: number;
  maxProperties?: number;
};

const KNOWN = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'dependentRequired',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'minProperties',
  'maxProperties',
  'if',
  'then',
  'default',
  'description',
  'title',
  'examples',
  'id',
  'readOnly',
  'writeOnly',
  'deprecated',
  // Annotations only (JSON Schema 2020-12 §8): nothing to check.
  'contentEncoding',
  'contentMediaType',
]);

/** Strings a careless or hostile client could send; each is used wherever the schema allows it. */
const STRING_POOL = [
  'abc',
  ' ',
  '   ',
  ' padded ',
  'x y',
  'a\u0000b',
  '\u0000',
  'ABC',
  'Émile',
  '日本語',
  '😀',
  'a',
  'ab',
  'abc.def-1_2',
  'org:member',
  'org:admin',
  'org:sys_probe',
  'org:probe',
  'org:probe:read',
  'org:sys_memberships:read',
  'org:sys_probe:read',
  'example.com',
  'sub.example.org',
  'EXAMPLE.COM',
  'user@example.com',
  'a.b+c@sub.example.org',
  ' user@example.com ',
  'not-an-email',
  'https://example.com/hook',
  'http://example.com/a?b=c',
  'https://localhost/x',
  'http://127.0.0.1/',
  'http://10.0.0.1/',
  'ftp://example.com/',
  'javascript:alert(1)',
  '+14155550100',
  '+4930123456',
  'en',
  'fr-CA',
  'de',
  'xx',
  'zz-ZZ',
  '*',
  'user.created',
  'session.created',
  'argon2id',
  'bcrypt',
  '-created_at',
  'created_at',
  '0',
  '123456',
];

/** Calls `f` for every string the pool and the schema's own lengths suggest. */
function stringCandidates(s: JsonSchema, extra: string[]): string[] {
  const out = [...extra, ...STRING_POOL];
  for (const n of [s.minLength, s.maxLength]) {
    if (n === undefined || n > 4096) continue;
    out.push('a'.repeat(n), ' '.repeat(n), 'é'.repeat(n), `${' '.repeat(Math.max(0, n - 1))}a`);
  }
  return out;
}

export interface ExampleOptions {
  /** Further strings to try (e.g. the ids of seeded resources), tried first. */
  strings?: string[];
  /** At most this many examples of one value (strings, numbers...). */
  perValue?: number;
  components: Record<string, JsonSchema>;
}

function deref(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  let s = schema;
  while (s.$ref) {
    const name = s.$ref.replace('#/components/schemas/', '');
    const next = components[name];
    if (!next) throw new Error(`unresolved $ref ${s.$ref}`);
    s = next;
  }
  return s;
}

const typesOf = (s: JsonSchema): string[] | null => (s.type === undefined ? null : Array.isArray(s.type) ? s.type : [s.type]);

function regexOf(pattern: string): RegExp {
  return new RegExp(pattern, 'u');
}

const utf16Len = (v: string) => [...v].length; // JSON Schema counts code points

/** Whether `value` meets `schema` (the subset above; unknown keywords make it throw). */
export function isValid(schema: JsonSchema | boolean, value: unknown, components: Record<string, JsonSchema>): boolean {
  if (schema === true) return true;
  if (schema === false) return false;
  const s = deref(schema, components);
  for (const k of Object.keys(s)) if (!KNOWN.has(k) && !k.startsWith('x-')) throw new Error(`unsupported keyword ${k}`);
  const types = typesOf(s);
  if (types && !types.some((t) => hasType(t, value))) return false;
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return false;
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) return false;
  if (s.anyOf && !s.anyOf.some((x) => isValid(x, value, components))) return false;
  if (s.oneOf && s.oneOf.filter((x) => isValid(x, value, components)).length !== 1) return false;
  if (s.allOf && !s.allOf.every((x) => isValid(x, value, components))) return false;
  if (s.not && isValid(s.not, value, components)) return false;
  if (s.if && s.then && isValid(s.if, value, components) && !isValid(s.then, value, components)) return false;
  if (typeof value === 'string') {
    if (s.minLength !== undefined && utf16Len(value) < s.minLength) return false;
    if (s.maxLength !== undefined && utf16Len(value) > s.maxLength) return false;
    if (s.pattern !== undefined && !regexOf(s.pattern).test(value)) return false;
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) return false;
    if (s.maximum !== undefined && value > s.maximum) return false;
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) return false;
    if (s.maxItems !== undefined && value.length > s.maxItems) return false;
    if (s.items && !value.every((v) => isValid(s.items!, v, components))) return false;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (s.required && !s.required.every((k) => k in obj)) return false;
    if (s.minProperties !== undefined && keys.length < s.minProperties) return false;
    if (s.maxProperties !== undefined && keys.length > s.maxProperties) return false;
    for (const [k, deps] of Object.entries(s.dependentRequired ?? {})) if (k in obj && !deps.every((d) => d in obj)) return false;
    for (const k of keys) {
      if (s.propertyNames && !isValid(s.propertyNames, k, components)) return false;
      const prop = s.properties?.[k];
      if (prop) {
        if (!isValid(prop, obj[k], components)) return false;
      } else if (s.additionalProperties !== undefined && !isValid(s.additionalProperties, obj[k], components)) return false;
    }
  }
  return true;
}

function hasType(t: string, v: unknown): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    default:
      throw new Error(`unknown type ${t}`);
  }
}

/** Examples of one schema, deterministic; the first is the "plain" one used to fill required fields. */
export function examples(schema: JsonSchema | boolean, opts: ExampleOptions, depth = 0, uncapped = false): unknown[] {
  if (schema === true || schema === false) return schema ? ['x', 1, true, null, {}] : [];
  if (depth > 8) return [];
  const s = deref(schema, opts.components);
  // Scalars are capped; the top-level value and combinator branches keep every variant.
  const keep = (vs: unknown[]) => {
    const valid = dedupe(vs.filter((v) => isValid(s, v, opts.components)));
    if (uncapped) return valid;
    return valid.slice(0, depth === 0 && typeof valid[0] === 'object' ? Infinity : (opts.perValue ?? 12));
  };
  if (s.enum) return keep(s.enum);
  if ('const' in s) return keep([s.const]);
  // A combinator: each branch together with the rest of the schema, kept when the whole schema accepts it.
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = s[k];
    if (!branches) continue;
    const rest = { ...s };
    delete rest[k];
    return keep(branches.flatMap((b) => examples(merge(rest, deref(b, opts.components)), opts, depth + 1, true)));
  }
  const types = typesOf(s) ?? ['string', 'integer', 'boolean', 'null', 'object'];
  const out: unknown[] = [];
  for (const t of types) {
    if (t === 'string') out.push(...stringCandidates(s, opts.strings ?? []));
    if (t === 'integer' || t === 'number') {
      const lo = s.minimum ?? -5;
      const hi = s.maximum ?? 1e6;
      out.push(lo, hi, Math.floor((lo + hi) / 2), 0, 1, 30, 3600, lo + 1, hi - 1, 1.5);
    }
    if (t === 'boolean') out.push(true, false);
    if (t === 'null') out.push(null);
    if (t === 'array') out.push(...arrayExamples(s, opts, depth));
    if (t === 'object') out.push(...objectExamples(s, opts, depth));
  }
  return keep(out);
}

/** Two schemas' constraints on one value, for generating candidates; the full schema still filters them (b's pattern wins here). */
function merge(a: JsonSchema, b: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...a, ...b };
  if (a.properties && b.properties) {
    const props: Record<string, JsonSchema> = { ...a.properties };
    for (const [k, v] of Object.entries(b.properties)) props[k] = props[k] ? { allOf: [props[k]!, v] } : v;
    out.properties = props;
  }
  if (a.required && b.required) out.required = [...new Set([...a.required, ...b.required])];
  return out;
}

function dedupe(vs: unknown[]): unknown[] {
  const seen = new Set<string>();
  return vs.filter((v) => {
    const k = JSON.stringify(v) ?? 'undefined';
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function arrayExamples(s: JsonSchema, opts: ExampleOptions, depth: number): unknown[][] {
  const items = examples(s.items ?? true, opts, depth + 1);
  if (items.length === 0) return (s.minItems ?? 0) === 0 ? [[]] : [];
  const min = Math.max(s.minItems ?? 0, 0);
  const max = s.maxItems ?? Math.max(min, 3);
  const out: unknown[][] = [];
  // One single-item array per item example, the smallest array, and the largest one of distinct items.
  if (min <= 1 && max >= 1) for (const it of items) out.push([it]);
  if (min === 0) out.push([]);
  const n = Math.min(max, Math.max(min, items.length));
  if (n >= min) out.push(Array.from({ length: n }, (_, i) => items[i % items.length]));
  return out;
}

function objectExamples(s: JsonSchema, opts: ExampleOptions, depth: number): Record<string, unknown>[] {
  const props = s.properties ?? {};
  const required = s.required ?? [];
  if (depth > 6) return [];
  const propExamples = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, examples(p, opts, depth + 1)]));
  const withDeps = (o: Record<string, unknown>, k: string) => {
    for (const d of s.dependentRequired?.[k] ?? []) if (!(d in o) && propExamples[d]?.length) o[d] = propExamples[d]![0];
    return o;
  };
  const base: Record<string, unknown> = {};
  for (const k of required) {
    const ex = propExamples[k];
    if (!ex || ex.length === 0) return [];
    base[k] = ex[0];
  }
  for (const k of required) withDeps(base, k);
  const out: Record<string, unknown>[] = [base];
  // Each optional property alone (with what it depends on), and each required one varied.
  for (const [k, ex] of Object.entries(propExamples)) for (const v of ex) out.push(withDeps({ ...base, [k]: v }, k));
  // Everything at once.
  const all = { ...base };
  for (const [k, ex] of Object.entries(propExamples)) if (ex.length > 0) all[k] = ex[0];
  out.push(all);
  // Free-form objects (metadata): a few keys and values.
  if (Object.keys(props).length === 0 && s.additionalProperties !== false) {
    out.push({ plan: 'pro', n: 1, nested: { a: [1, 'b', null], ok: true } }, { 'a\u0000b': 1 }, { k: 'a\u0000b' }, { '': '' });
  }
  return out;
}
