import { z } from 'zod';
import { invalidValue, scimError } from './errors';
import { getCaseless, matches, parseFilter, type Filter } from './filter';
import { PATCH_SCHEMA } from './discovery';

/**
 * PATCH (RFC 7644 §3.5.2) applied to a resource's JSON representation, as Okta and Entra
 * send it: op names in any case (`Replace`), with or without `path`, path-less value maps
 * (`{op:"replace", value:{active:false}}`), value-filter paths (`emails[type eq
 * "work"].value`, `members[value eq "…"]`) and extension URNs in paths. The result is then
 * validated and stored like a PUT, so PATCH and PUT share one set of rules.
 */
export const patchBody = z.preprocess(
  (body) => {
    const folded = foldKeys(body, ['schemas', 'Operations']);
    const operations = (folded as { Operations?: unknown } | null)?.Operations;
    return Array.isArray(operations)
      ? { ...(folded as object), Operations: operations.map((o) => foldKeys(o, ['op', 'path', 'value'])) }
      : folded;
  },
  z.looseObject({
    schemas: z.array(z.string()).optional(),
    Operations: z
      .array(z.looseObject({ op: z.string().max(16), path: z.string().max(1024).optional(), value: z.unknown().optional() }))
      .min(1)
      .max(1000),
  }),
);

/**
 * The PatchOp's own attribute names in their schema's case: names are case-insensitive
 * (RFC 7643 §2.1), and some directories send `operations` or `Op`. Values are left as sent.
 */
function foldKeys(v: unknown, names: string[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v)) {
    const name = names.find((n) => n.toLowerCase() === k.toLowerCase()) ?? k;
    if (!(name in out)) out[name] = value;
  }
  return out;
}
export type PatchBody = z.output<typeof patchBody>;
type Operation = PatchBody['Operations'][number];

export interface PatchShape {
  /** Lower-case names of multi-valued attributes (`emails`, `members`). */
  multiValued: ReadonlySet<string>;
  /** Extension schema URNs whose attributes live in an object under the URN. */
  extensions: readonly string[];
  /** The core schema URN, which a path may also be prefixed with. */
  core: string;
  /** Sub-attributes compared case-sensitively in value filters (`value` of members). */
  caseExact?: ReadonlySet<string>;
}

type Json = Record<string, unknown>;
interface Target {
  ext?: string;
  attr: string;
  filter?: Filter;
  sub?: string;
}

const READ_ONLY = new Set(['id', 'meta', 'schemas']);
const PATH_RE = /^([A-Za-z$][\w$-]*)(?:\[(.*)\])?(?:\.([A-Za-z$][\w$-]*))?$/s;

const invalidPath = (path: string) => scimError('VALIDATION_FAILED', 'invalidPath', `"${path}" is not a valid attribute path.`);

function parsePath(path: string, shape: PatchShape): Target {
  let rest = path;
  const lower = path.toLowerCase();
  const ext = shape.extensions.find((u) => lower.startsWith(`${u.toLowerCase()}:`));
  if (ext) rest = path.slice(ext.length + 1);
  else if (lower.startsWith(`${shape.core.toLowerCase()}:`)) rest = path.slice(shape.core.length + 1);
  const m = PATH_RE.exec(rest);
  if (!m) throw invalidPath(path);
  let filter: Filter | undefined;
  if (m[2] !== undefined) {
    try {
      filter = parseFilter(m[2]);
    } catch {
      throw invalidPath(path);
    }
  }
  return { ...(ext ? { ext } : {}), attr: m[1]!, ...(filter ? { filter } : {}), ...(m[3] ? { sub: m[3] } : {}) };
}

/** The key of an attribute in an object, matched case-insensitively; `name` when absent. */
const keyOf = (obj: Json, name: string) => Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function containerFor(resource: Json, target: Target, create: boolean): Json | undefined {
  if (!target.ext) return resource;
  const key = keyOf(resource, target.ext);
  if (!isObject(resource[key])) {
    if (!create) return undefined;
    resource[key] = {};
  }
  return resource[key] as Json;
}

/** `emails[type eq "work"]` without a match: the element the filter's equalities describe. */
function elementFromFilter(filter: Filter): Json {
  if (filter.op === 'eq' && !filter.path.sub) return { [filter.path.attr]: filter.value };
  if (filter.op === 'and') return { ...elementFromFilter(filter.left), ...elementFromFilter(filter.right) };
  return {};
}

const sameValue = (a: unknown, b: unknown) => {
  const va = isObject(a) ? getCaseless(a, 'value') : a;
  const vb = isObject(b) ? getCaseless(b, 'value') : b;
  return va !== undefined && va === vb;
};

function setValue(container: Json, target: Target, value: unknown, op: 'add' | 'replace', shape: PatchShape) {
  const key = keyOf(container, target.attr);
  const multi = shape.multiValued.has(target.attr.toLowerCase());
  if (target.filter) {
    if (!multi) throw invalidPath(target.attr);
    const list = Array.isArray(container[key]) ? (container[key] as unknown[]) : [];
    let hits = list.filter((e) => matches(target.filter!, e, shape.caseExact));
    if (hits.length === 0) {
      // Entra replaces `emails[type eq "work"].value` on a user that has no work address yet.
      const created = elementFromFilter(target.filter);
      list.push(created);
      hits = [created];
    }
    for (const el of hits) {
      if (!isObject(el)) continue;
      if (target.sub) el[keyOf(el, target.sub)] = value;
      else if (isObject(value)) Object.assign(el, value);
      else throw invalidValue(`The value for ${target.attr}[…] must be an object.`);
    }
    container[key] = list;
    return;
  }
  if (target.sub) {
    const current = container[key];
    if (Array.isArray(current)) {
      for (const el of current) if (isObject(el)) el[keyOf(el, target.sub)] = value;
    } else {
      const obj = isObject(current) ? current : {};
      obj[keyOf(obj, target.sub)] = value;
      container[key] = obj;
    }
    return;
  }
  if (multi) {
    const incoming = Array.isArray(value) ? value : [value];
    if (op === 'replace') {
      container[key] = incoming;
    } else {
      const list = Array.isArray(container[key]) ? [...(container[key] as unknown[])] : [];
      for (const v of incoming) if (!list.some((e) => sameValue(e, v))) list.push(v);
      container[key] = list;
    }
    return;
  }
  // A complex value merges into the attribute: sub-attributes it does not name stay.
  const current = container[key];
  container[key] = isObject(value) && isObject(current) ? { ...current, ...value } : value;
}

function removeValue(container: Json, target: Target, value: unknown, shape: PatchShape) {
  const key = keyOf(container, target.attr);
  const current = container[key];
  if (target.filter) {
    if (!Array.isArray(current)) return;
    if (target.sub) {
      for (const el of current) if (isObject(el) && matches(target.filter, el, shape.caseExact)) delete el[keyOf(el, target.sub)];
    } else {
      container[key] = current.filter((el) => !matches(target.filter!, el, shape.caseExact));
    }
    return;
  }
  if (target.sub) {
    if (isObject(current)) delete current[keyOf(current, target.sub)];
    else if (Array.isArray(current)) for (const el of current) if (isObject(el)) delete el[keyOf(el, target.sub)];
    return;
  }
  // Entra removes members by value: {op:"Remove", path:"members", value:[{value:"…"}]}.
  if (Array.isArray(current) && value !== undefined && value !== null) {
    const gone = Array.isArray(value) ? value : [value];
    container[key] = current.filter((el) => !gone.some((g) => sameValue(el, g)));
    return;
  }
  delete container[key];
}

function applyOne(resource: Json, op: 'add' | 'replace' | 'remove', path: string, value: unknown, shape: PatchShape) {
  const target = parsePath(path, shape);
  if (!target.ext && READ_ONLY.has(target.attr.toLowerCase())) {
    throw scimError('VALIDATION_FAILED', 'mutability', `${target.attr} cannot be changed.`);
  }
  const container = containerFor(resource, target, op !== 'remove');
  if (!container) return;
  if (op === 'remove') removeValue(container, target, value, shape);
  else setValue(container, target, value, op, shape);
}

function applyOperation(resource: Json, operation: Operation, shape: PatchShape) {
  const op = operation.op.toLowerCase();
  if (op !== 'add' && op !== 'replace' && op !== 'remove')
    throw invalidValue(`Unknown PATCH op "${operation.op}": use add, replace or remove.`);
  if (operation.path !== undefined && operation.path.trim() !== '') {
    if (op !== 'remove' && operation.value === undefined) throw invalidValue(`The ${op} of "${operation.path}" needs a value.`);
    applyOne(resource, op, operation.path.trim(), operation.value, shape);
    return;
  }
  if (op === 'remove') throw scimError('VALIDATION_FAILED', 'noTarget', 'A remove operation needs a path.');
  if (!isObject(operation.value)) throw invalidValue(`A ${op} without a path needs an object value.`);
  for (const [name, value] of Object.entries(operation.value)) {
    if (READ_ONLY.has(name.toLowerCase())) continue;
    const ext = shape.extensions.find((u) => u.toLowerCase() === name.toLowerCase());
    if (ext && isObject(value)) {
      for (const [sub, v] of Object.entries(value)) applyOne(resource, op, `${ext}:${sub}`, v, shape);
    } else {
      applyOne(resource, op, name, value, shape);
    }
  }
}

/** The resource after the operations (a deep copy: the input is not changed). */
export function applyPatch(resource: Json, body: PatchBody, shape: PatchShape): Json {
  if (body.schemas && !body.schemas.includes(PATCH_SCHEMA)) throw invalidValue(`A PATCH body names the schema ${PATCH_SCHEMA}.`);
  const copy = structuredClone(resource);
  for (const operation of body.Operations) applyOperation(copy, operation, shape);
  return copy;
}
