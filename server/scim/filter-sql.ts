import { and, eq, gt, gte, isNotNull, isNull, like, lt, lte, ne, not, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { scimError } from './errors';
import type { AttrPath, CompareOp, CompValue, Filter } from './filter';

type Expr = AnyPgColumn | SQL;

/** How one attribute is read in SQL. */
type ScalarSpec =
  /** `key`: a stored lower-cased copy that `eq` uses when the attribute is not caseExact (indexed look-ups). */
  | { kind: 'string'; expr: Expr; caseExact: boolean; key?: AnyPgColumn }
  | { kind: 'boolean'; expr: Expr }
  /** Milliseconds in storage, compared against an RFC 3339 date-time. */
  | { kind: 'datetime'; expr: Expr };

/** A multi-valued attribute: its sub-attributes, and an EXISTS over its elements. */
interface MultiSpec {
  kind: 'multi';
  subs: Record<string, ScalarSpec>;
  exists(where: SQL | undefined): SQL;
}

export type AttrSpec = ScalarSpec | MultiSpec;

/** Resolves a lower-cased attribute path of a resource to its SQL; null when the resource has no such attribute. */
export type AttrResolver = (path: AttrPath) => AttrSpec | null;

const invalidFilter = (detail: string) => scimError('VALIDATION_FAILED', 'invalidFilter', `Invalid filter: ${detail}`);
const pathText = (p: AttrPath) => (p.sub ? `${p.attr}.${p.sub}` : p.attr);

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function compareString(spec: Extract<ScalarSpec, { kind: 'string' }>, op: CompareOp, value: string): SQL {
  if (!spec.caseExact && op === 'eq' && spec.key) return eq(spec.key, value.toLowerCase());
  const col = spec.caseExact ? sql`${spec.expr}` : sql`lower(${spec.expr})`;
  const v = spec.caseExact ? value : value.toLowerCase();
  switch (op) {
    case 'eq':
      return eq(col, v);
    case 'ne':
      return or(isNull(spec.expr), ne(col, v))!;
    case 'co':
      return like(col, `%${escapeLike(v)}%`);
    case 'sw':
      return like(col, `${escapeLike(v)}%`);
    case 'ew':
      return like(col, `%${escapeLike(v)}`);
    case 'gt':
      return gt(col, v);
    case 'ge':
      return gte(col, v);
    case 'lt':
      return lt(col, v);
    case 'le':
      return lte(col, v);
  }
}

function compareScalar(spec: ScalarSpec, path: AttrPath, op: CompareOp, value: CompValue): SQL {
  const expr = sql`${spec.expr}`;
  if (value === null) {
    if (op === 'eq') return isNull(expr);
    if (op === 'ne') return isNotNull(expr);
    throw invalidFilter(`${op} null compares nothing.`);
  }
  switch (spec.kind) {
    case 'string':
      if (typeof value !== 'string') throw invalidFilter(`${pathText(path)} is a string attribute.`);
      return compareString(spec, op, value);
    case 'boolean': {
      // Entra sends `active eq "False"`: a boolean written as a string is read as one.
      const b = typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : value;
      if (typeof b !== 'boolean') throw invalidFilter(`${pathText(path)} is a boolean attribute.`);
      if (op === 'eq') return eq(expr, b);
      if (op === 'ne') return ne(expr, b);
      throw invalidFilter(`${op} does not apply to the boolean ${pathText(path)}.`);
    }
    case 'datetime': {
      const ms = typeof value === 'string' ? Date.parse(value) : NaN;
      if (Number.isNaN(ms)) throw invalidFilter(`${pathText(path)} compares with a date-time such as "2026-01-31T12:00:00Z".`);
      switch (op) {
        case 'eq':
          return eq(expr, ms);
        case 'ne':
          return ne(expr, ms);
        case 'gt':
          return gt(expr, ms);
        case 'ge':
          return gte(expr, ms);
        case 'lt':
          return lt(expr, ms);
        case 'le':
          return lte(expr, ms);
        default:
          throw invalidFilter(`${op} does not apply to the date-time ${pathText(path)}.`);
      }
    }
  }
}

function present(spec: ScalarSpec): SQL {
  const expr = sql`${spec.expr}`;
  return spec.kind === 'string' ? and(isNotNull(expr), ne(expr, ''))! : isNotNull(expr);
}

function resolve(resolver: AttrResolver, path: AttrPath): AttrSpec {
  const spec = resolver(path);
  if (!spec) throw invalidFilter(`"${pathText(path)}" is not a filterable attribute.`);
  return spec;
}

function subOf(multi: MultiSpec, path: AttrPath, sub: string): ScalarSpec {
  const spec = multi.subs[sub];
  if (!spec) throw invalidFilter(`"${path.attr}.${sub}" is not a filterable attribute.`);
  return spec;
}

/** Inside `emails[…]`, attribute names are the sub-attributes of `emails`. */
const elementResolver =
  (multi: MultiSpec): AttrResolver =>
  (p) =>
    p.sub || p.uri ? null : (multi.subs[p.attr] ?? null);

/** The SQL of a parsed filter: every value is a bound parameter. */
export function filterToSql(filter: Filter, resolver: AttrResolver): SQL {
  switch (filter.op) {
    case 'and':
      return and(filterToSql(filter.left, resolver), filterToSql(filter.right, resolver))!;
    case 'or':
      return or(filterToSql(filter.left, resolver), filterToSql(filter.right, resolver))!;
    case 'not':
      return not(filterToSql(filter.filter, resolver));
    case 'valuePath': {
      const spec = resolve(resolver, filter.path);
      if (spec.kind !== 'multi') throw invalidFilter(`"${filter.path.attr}" is not multi-valued.`);
      return spec.exists(filterToSql(filter.filter, elementResolver(spec)));
    }
    case 'pr': {
      const whole = resolver({ ...filter.path, sub: undefined });
      if (whole?.kind === 'multi') return whole.exists(filter.path.sub ? present(subOf(whole, filter.path, filter.path.sub)) : undefined);
      const spec = resolve(resolver, filter.path);
      if (spec.kind === 'multi') throw invalidFilter(`"${pathText(filter.path)}" is multi-valued.`);
      return present(spec);
    }
    default: {
      const whole = resolver({ ...filter.path, sub: undefined });
      if (whole?.kind === 'multi') {
        // `emails eq "x"` compares each element's value, as `emails.value eq "x"` does.
        const sub = subOf(whole, filter.path, filter.path.sub ?? 'value');
        return whole.exists(compareScalar(sub, filter.path, filter.op, filter.value));
      }
      const spec = resolve(resolver, filter.path);
      if (spec.kind === 'multi') throw invalidFilter(`"${pathText(filter.path)}" is multi-valued.`);
      return compareScalar(spec, filter.path, filter.op, filter.value);
    }
  }
}

/** A resolver from a table of `attr` / `attr.sub` names (lower-case) per schema URN (lower-case). */
export function tableResolver(coreUri: string, tables: Record<string, Record<string, AttrSpec>>): AttrResolver {
  return (p) => {
    const table = tables[p.uri ?? coreUri];
    if (!table) return null;
    return table[p.sub ? `${p.attr}.${p.sub}` : p.attr] ?? null;
  };
}
