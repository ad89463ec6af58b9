import { scimError } from './errors';

/**
 * SCIM filters (RFC 7644 §3.4.2.2), parsed by hand into a tree. The tree is turned into
 * SQL with parameters (filter-sql.ts) or evaluated against an attribute value in memory
 * (PATCH value-filter paths); the filter text never becomes SQL text.
 *
 *   FILTER    = attrExp / logExp / valuePath / *1"not" "(" FILTER ")"
 *   valuePath = attrPath "[" valFilter "]"
 *   attrExp   = (attrPath SP "pr") / (attrPath SP compareOp SP compValue)
 *   logExp    = FILTER SP ("and" / "or") SP FILTER          ("and" binds tighter)
 *   compValue = false / null / true / number / string
 *   attrPath  = [URI ":"] ATTRNAME *1subAttr
 */
const COMPARE_OPS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];
export type CompValue = string | number | boolean | null;

export interface AttrPath {
  /** The schema URN when the path was written in full, lower-cased. */
  uri?: string;
  /** Lower-cased attribute name. */
  attr: string;
  /** Lower-cased sub-attribute name. */
  sub?: string;
}

export type Filter =
  | { op: 'and' | 'or'; left: Filter; right: Filter }
  | { op: 'not'; filter: Filter }
  | { op: 'pr'; path: AttrPath }
  | { op: CompareOp; path: AttrPath; value: CompValue }
  | { op: 'valuePath'; path: AttrPath; filter: Filter };

/** Filters longer than this are refused rather than parsed. */
export const MAX_FILTER_LENGTH = 4096;
const MAX_DEPTH = 32;

type Token = { t: 'word'; v: string } | { t: 'string'; v: string } | { t: 'number'; v: number } | { t: '(' | ')' | '[' | ']' };

const invalidFilter = (detail: string) => scimError('VALIDATION_FAILED', 'invalidFilter', `Invalid filter: ${detail}`);

/** Attribute paths and keywords: letters, digits, `_ - $ . :` (URNs and sub-attributes). */
const WORD_RE = /[A-Za-z0-9_$.:-]/;
const NUMBER_RE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
    } else if (ch === '(' || ch === ')' || ch === '[' || ch === ']') {
      tokens.push({ t: ch });
      i++;
    } else if (ch === '"') {
      // A JSON string: find its end, honouring backslash escapes, and let JSON.parse decode it.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw invalidFilter('unterminated string.');
      try {
        tokens.push({ t: 'string', v: JSON.parse(text.slice(i, j + 1)) as string });
      } catch {
        throw invalidFilter('bad escape in a string.');
      }
      i = j + 1;
    } else if (WORD_RE.test(ch)) {
      let j = i;
      while (j < text.length && WORD_RE.test(text[j]!)) j++;
      const word = text.slice(i, j);
      tokens.push(NUMBER_RE.test(word) ? { t: 'number', v: Number(word) } : { t: 'word', v: word });
      i = j;
    } else {
      throw invalidFilter(`unexpected character "${ch}".`);
    }
  }
  return tokens;
}

/** `urn:…:User:userName`, `name.givenName`, `emails`: the URN prefix is everything up to the last colon. */
function parseAttrPath(text: string): AttrPath {
  let rest = text;
  let uri: string | undefined;
  if (/^urn:/i.test(text)) {
    const cut = text.lastIndexOf(':');
    uri = text.slice(0, cut).toLowerCase();
    rest = text.slice(cut + 1);
  }
  const parts = rest.split('.');
  if (parts.length > 2 || parts.some((p) => !/^[A-Za-z][A-Za-z0-9_$-]*$/.test(p)))
    throw invalidFilter(`"${text}" is not an attribute path.`);
  return { ...(uri ? { uri } : {}), attr: parts[0]!.toLowerCase(), ...(parts[1] ? { sub: parts[1].toLowerCase() } : {}) };
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Filter {
    const f = this.or(0);
    if (this.pos < this.tokens.length) throw invalidFilter('unexpected text after the filter.');
    return f;
  }

  private peek() {
    return this.tokens[this.pos];
  }
  private keyword(): string | null {
    const tok = this.peek();
    return tok?.t === 'word' ? tok.v.toLowerCase() : null;
  }
  private expect(t: '(' | ')' | ']') {
    if (this.peek()?.t !== t) throw invalidFilter(`expected "${t}".`);
    this.pos++;
  }

  private or(depth: number): Filter {
    let left = this.and(depth);
    while (this.keyword() === 'or') {
      this.pos++;
      left = { op: 'or', left, right: this.and(depth) };
    }
    return left;
  }

  private and(depth: number): Filter {
    let left = this.unary(depth);
    while (this.keyword() === 'and') {
      this.pos++;
      left = { op: 'and', left, right: this.unary(depth) };
    }
    return left;
  }

  private unary(depth: number): Filter {
    if (depth > MAX_DEPTH) throw invalidFilter('nested too deeply.');
    const tok = this.peek();
    if (!tok) throw invalidFilter('unexpected end.');
    if (tok.t === '(') {
      this.pos++;
      const inner = this.or(depth + 1);
      this.expect(')');
      return inner;
    }
    if (tok.t === 'word' && tok.v.toLowerCase() === 'not' && this.tokens[this.pos + 1]?.t === '(') {
      this.pos++;
      return { op: 'not', filter: this.unary(depth + 1) };
    }
    if (tok.t !== 'word') throw invalidFilter('expected an attribute path.');
    this.pos++;
    const path = parseAttrPath(tok.v);
    if (this.peek()?.t === '[') {
      if (path.sub) throw invalidFilter('a value filter applies to an attribute, not a sub-attribute.');
      this.pos++;
      const inner = this.or(depth + 1);
      this.expect(']');
      // Entra's `emails[type eq "work"].value eq "x"`, read as `emails[type eq "work" and value eq "x"]`.
      const next = this.peek();
      if (next?.t === 'word' && next.v.startsWith('.')) {
        this.pos++;
        const sub = parseAttrPath(next.v.slice(1));
        if (sub.sub || sub.uri) throw invalidFilter(`"${next.v}" is not a sub-attribute.`);
        const subOp = this.keyword();
        if (subOp === 'pr') {
          this.pos++;
          return { op: 'valuePath', path, filter: { op: 'and', left: inner, right: { op: 'pr', path: sub } } };
        }
        if (!subOp || !(COMPARE_OPS as readonly string[]).includes(subOp)) throw invalidFilter(`expected an operator after "${next.v}".`);
        this.pos++;
        return {
          op: 'valuePath',
          path,
          filter: { op: 'and', left: inner, right: { op: subOp as CompareOp, path: sub, value: this.compValue() } },
        };
      }
      return { op: 'valuePath', path, filter: inner };
    }
    const op = this.keyword();
    if (op === 'pr') {
      this.pos++;
      return { op: 'pr', path };
    }
    if (!op || !(COMPARE_OPS as readonly string[]).includes(op)) throw invalidFilter(`expected an operator after "${tok.v}".`);
    this.pos++;
    return { op: op as CompareOp, path, value: this.compValue() };
  }

  private compValue(): CompValue {
    const tok = this.peek();
    this.pos++;
    if (tok?.t === 'string' || tok?.t === 'number') return tok.v;
    if (tok?.t === 'word') {
      const w = tok.v.toLowerCase();
      if (w === 'true') return true;
      if (w === 'false') return false;
      if (w === 'null') return null;
    }
    throw invalidFilter('expected a value (a quoted string, a number, true, false or null).');
  }
}

export function parseFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH)
    throw scimError('VALIDATION_FAILED', 'invalidFilter', `A filter is at most ${MAX_FILTER_LENGTH} characters.`);
  if (text.trim() === '') throw invalidFilter('empty.');
  return new Parser(tokenize(text)).parse();
}

// --- In-memory evaluation, for PATCH paths such as emails[type eq "work"] ---

/** A property of a JSON object by case-insensitive name. */
export function getCaseless(obj: unknown, name: string): unknown {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : (obj as Record<string, unknown>)[key];
}

const compareScalar = (op: CompareOp, actual: unknown, expected: CompValue, caseExact: boolean): boolean => {
  if (actual === undefined || actual === null) return op === 'ne' ? expected !== null : op === 'eq' && expected === null;
  if (typeof actual === 'string' && typeof expected === 'string') {
    const a = caseExact ? actual : actual.toLowerCase();
    const e = caseExact ? expected : expected.toLowerCase();
    switch (op) {
      case 'eq':
        return a === e;
      case 'ne':
        return a !== e;
      case 'co':
        return a.includes(e);
      case 'sw':
        return a.startsWith(e);
      case 'ew':
        return a.endsWith(e);
      case 'gt':
        return a > e;
      case 'ge':
        return a >= e;
      case 'lt':
        return a < e;
      case 'le':
        return a <= e;
    }
  }
  if (typeof actual === 'number' && typeof expected === 'number') {
    switch (op) {
      case 'eq':
        return actual === expected;
      case 'ne':
        return actual !== expected;
      case 'gt':
        return actual > expected;
      case 'ge':
        return actual >= expected;
      case 'lt':
        return actual < expected;
      case 'le':
        return actual <= expected;
      default:
        throw invalidFilter(`${op} does not apply to numbers.`);
    }
  }
  if (typeof actual === 'boolean' && typeof expected === 'boolean') {
    if (op === 'eq') return actual === expected;
    if (op === 'ne') return actual !== expected;
    throw invalidFilter(`${op} does not apply to booleans.`);
  }
  return op === 'ne';
};

/**
 * Whether an element of a multi-valued attribute (or a resource) matches. Attribute names
 * are case-insensitive; string values are compared case-insensitively except for the
 * attributes in `caseExact` (e.g. `value` of members, which is an id).
 */
export function matches(filter: Filter, element: unknown, caseExact: ReadonlySet<string> = new Set()): boolean {
  switch (filter.op) {
    case 'and':
      return matches(filter.left, element, caseExact) && matches(filter.right, element, caseExact);
    case 'or':
      return matches(filter.left, element, caseExact) || matches(filter.right, element, caseExact);
    case 'not':
      return !matches(filter.filter, element, caseExact);
    case 'valuePath': {
      const list = getCaseless(element, filter.path.attr);
      return Array.isArray(list) && list.some((e) => matches(filter.filter, e, caseExact));
    }
    case 'pr': {
      const v = valueAt(element, filter.path);
      return v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
    }
    default: {
      const v = valueAt(element, filter.path);
      const exact = caseExact.has(filter.path.sub ?? filter.path.attr);
      if (Array.isArray(v))
        return v.some((item) =>
          compareScalar(filter.op as CompareOp, typeof item === 'object' ? getCaseless(item, 'value') : item, filter.value, exact),
        );
      return compareScalar(filter.op, v, filter.value, exact);
    }
  }
}

function valueAt(element: unknown, path: AttrPath): unknown {
  const v = getCaseless(element, path.attr);
  return path.sub ? getCaseless(v, path.sub) : v;
}
