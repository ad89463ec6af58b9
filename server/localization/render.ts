import { createHash } from 'node:crypto';
import Handlebars from 'handlebars';
import mjml2html from 'mjml';
import { isHttpUrl } from '../http/url';

/**
 * The one renderer and validator of templates: the mailer, and later the template
 * editor (preview, save), call these same functions, so what validates is what sends.
 *
 * Email: the MJML source, with Handlebars inside, is compiled to HTML once (MJML keeps
 * the `{{…}}` expressions in text and attributes); the HTML, the subject and the text
 * body are then Handlebars templates in strict mode, with no partials, no helpers but
 * `#if`/`#unless`, no prototype access, and HTML escaping in the HTML part only.
 */

type VariableType = 'string' | 'number' | 'url';

export interface TemplateVariable {
  /** `[a-z][a-z0-9_]*`, never a name an object inherits (`constructor`, …). */
  name: string;
  /** `url` values must be absolute http(s) URLs. */
  type: VariableType;
  /** A required variable must appear in every body part, outside any `#if`/`#unless`. */
  required: boolean;
  description: string;
  /** Used by previews and by the trial render of validation. */
  sample: string | number;
}

export type TemplateSchema = readonly TemplateVariable[];

export interface EmailTemplateParts {
  subject: string;
  mjml: string;
  /** Optional: without it the text body is derived from the HTML. */
  text?: string | null;
}

export interface EmailTemplate extends EmailTemplateParts {
  name: string;
  locale: string;
  variables: TemplateSchema;
}

export interface SmsTemplate {
  name: string;
  locale: string;
  body: string;
  variables: TemplateSchema;
}

type TemplatePart = 'subject' | 'mjml' | 'text';

type TemplateProblemKind =
  'unknown_variable' | 'missing_required_variable' | 'unknown_helper' | 'mjml_error' | 'syntax_error' | 'too_large';

export interface TemplateProblem {
  part: TemplatePart;
  /** 1-based. Problems about something absent point at the start of the part. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
  kind: TemplateProblemKind;
}

/** Characters of template source per part; an SMS body is a `text` part with its own limit. */
export const TEMPLATE_LIMITS = { subject: 1_000, mjml: 100_000, text: 20_000, sms: 1_600 } as const;
/** A rendered subject longer than this is cut (RFC 5322 keeps header lines under 998). */
const SUBJECT_MAX = 500;
/** A single variable's value; longer values are a caller bug, not content. */
const VALUE_MAX = 4_096;

export type TemplateData = Record<string, string | number | null | undefined>;

export class TemplateInvalidError extends Error {
  constructor(
    readonly template: string,
    readonly problems: TemplateProblem[],
  ) {
    const first = problems[0];
    super(
      `Template ${template} is invalid: ${problems.length} problem(s)` +
        (first ? `; first: ${first.part} ${first.line}:${first.column} ${first.message}` : ''),
    );
    this.name = 'TemplateInvalidError';
  }
}

// ---------------------------------------------------------------------------------------
// Handlebars environment

const HELPERS = ['if', 'unless'] as const;
const hb = Handlebars.create();
for (const name of ['each', 'with', 'lookup', 'log']) hb.unregisterHelper(name);

const KNOWN_HELPERS = { if: true, unless: true, each: false, with: false, lookup: false, log: false };

const compileOptions = (escape: boolean): CompileOptions => ({
  strict: true,
  knownHelpersOnly: true,
  knownHelpers: KNOWN_HELPERS,
  noEscape: !escape,
  preventIndent: true,
});

const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = {
  partials: {},
  decorators: {},
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
  allowCallsToHelperMissing: false,
};

type Delegate = Handlebars.TemplateDelegate<Record<string, unknown>>;

// ---------------------------------------------------------------------------------------
// Schema and data

const NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;

/** Throws on a malformed schema: schemas are code (built-ins) or checked input (issue 7). */
function assertValidSchema(schema: TemplateSchema) {
  const seen = new Set<string>();
  for (const v of schema) {
    if (!NAME_RE.test(v.name) || v.name in Object.prototype || seen.has(v.name)) {
      throw new Error(`Invalid template variable name: ${JSON.stringify(v.name)}`);
    }
    seen.add(v.name);
  }
}

/**
 * The render context: exactly the schema's variables (others are dropped), on an object
 * without a prototype. A missing optional variable is '' so strict mode never throws for
 * it; a missing required one, or a value of the wrong type, is a caller bug and throws.
 */
export function templateContext(schema: TemplateSchema, data: TemplateData, templateName = 'template') {
  const ctx: Record<string, string | number> = Object.create(null);
  for (const v of schema) {
    const value = Object.prototype.hasOwnProperty.call(data, v.name) ? data[v.name] : undefined;
    if (value === undefined || value === null || value === '') {
      if (v.required) throw new TypeError(`${templateName}: the variable ${v.name} is required`);
      ctx[v.name] = '';
      continue;
    }
    if (v.type === 'number') {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`${templateName}: ${v.name} must be a number`);
      ctx[v.name] = value;
      continue;
    }
    const s = typeof value === 'number' ? String(value) : value;
    if (typeof s !== 'string') throw new TypeError(`${templateName}: ${v.name} must be a string`);
    if (s.length > VALUE_MAX) throw new TypeError(`${templateName}: ${v.name} is longer than ${VALUE_MAX} characters`);
    if (v.type === 'url' && !isHttpUrl(s)) throw new TypeError(`${templateName}: ${v.name} must be an http(s) URL`);
    ctx[v.name] = s;
  }
  return ctx;
}

export const sampleData = (schema: TemplateSchema): TemplateData => Object.fromEntries(schema.map((v) => [v.name, v.sample]));

// ---------------------------------------------------------------------------------------
// Validation

type AST = hbs.AST.Program;
type Node = hbs.AST.Node;
type Statement = hbs.AST.Statement;
type Expression = hbs.AST.Expression;

const problemAt = (
  part: TemplatePart,
  kind: TemplateProblemKind,
  message: string,
  loc?: hbs.AST.SourceLocation | null,
): TemplateProblem => ({
  part,
  kind,
  message,
  line: loc?.start.line ?? 1,
  column: (loc?.start.column ?? 0) + 1,
});

const TOKEN_NAMES: Record<string, string> = {
  EOF: 'end of the template (is a block or comment left open?)',
  INVALID: 'character inside {{…}}',
  CLOSE: '"}}"',
  CLOSE_UNESCAPED: '"}}}"',
  OPEN: '"{{"',
  OPEN_BLOCK: '"{{#"',
  OPEN_ENDBLOCK: '"{{/"',
  INVERSE: '"{{else}}"',
  OPEN_INVERSE_CHAIN: '"{{else …}}"',
  ID: 'name',
  CONTENT: 'text',
};

/** Handlebars' parser drops the location of a syntax error; its lexer still has it. */
function parseProblem(part: TemplatePart, err: unknown): TemplateProblem {
  const e = err as { message?: string; lineNumber?: number; column?: number };
  const raw = String(e.message ?? err);
  if (typeof e.lineNumber === 'number') {
    return {
      part,
      kind: 'syntax_error',
      message: `Syntax error: ${raw.replace(/ - \d+:\d+$/, '')}.`,
      line: e.lineNumber,
      column: (e.column ?? 0) + 1,
    };
  }
  const loc = (hb as unknown as { Parser?: { lexer?: { yylloc?: { first_line?: number; first_column?: number } } } }).Parser?.lexer?.yylloc;
  const line = loc?.first_line ?? Number(/on line (\d+)/.exec(raw)?.[1] ?? 1);
  const column = (loc?.first_column ?? 0) + 1;
  const got = /got '([A-Z_]+)'/.exec(raw)?.[1];
  const message = got
    ? `Syntax error: unexpected ${TOKEN_NAMES[got] ?? got.toLowerCase().replace(/_/g, ' ')}.`
    : /^Lexical error/.test(raw)
      ? 'Syntax error: unrecognized text (is a comment or {{…}} left open?).'
      : `Syntax error: ${raw.split('\n')[0]!.replace(/^Parse error on line \d+:?\s*/, '')}`;
  return { part, kind: 'syntax_error', message, line, column };
}

function parse(part: TemplatePart, source: string): { ast: AST } | { problem: TemplateProblem } {
  try {
    return { ast: hb.parse(source) };
  } catch (err) {
    return { problem: parseProblem(part, err) };
  }
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

function unknownVariable(name: string, names: string[]): string {
  const near = names.find((n) => levenshtein(n, name) <= 2);
  const known = names.length ? names.map((n) => `{{${n}}}`).join(', ') : 'none';
  return `Unknown variable "${name}".${near ? ` Did you mean {{${near}}}?` : ''} Available: ${known}.`;
}

/** Walks one part's AST: every output must be a declared variable, every block #if/#unless. */
function checkAst(part: TemplatePart, ast: AST, schema: TemplateSchema): TemplateProblem[] {
  const names = schema.map((v) => v.name);
  const declared = new Set(names);
  const problems: TemplateProblem[] = [];

  const checkPath = (p: hbs.AST.PathExpression) => {
    if (p.data) {
      problems.push(
        problemAt(part, 'unknown_variable', `"@${p.parts.join('.')}": data variables are not available; use a variable by name.`, p.loc),
      );
    } else if (p.depth > 0 || p.original.startsWith('../')) {
      problems.push(
        problemAt(part, 'unknown_variable', `"${p.original}": parent scopes are not available; use the variable by name.`, p.loc),
      );
    } else if (p.parts.length === 0) {
      problems.push(problemAt(part, 'unknown_variable', `"${p.original}" is not a variable; use a variable by name.`, p.loc));
    } else if (!declared.has(p.parts[0]!)) {
      problems.push(problemAt(part, 'unknown_variable', unknownVariable(p.original, names), p.loc));
    } else if (p.parts.length > 1) {
      problems.push(problemAt(part, 'unknown_variable', `"${p.original}": variables have no properties; use {{${p.parts[0]}}}.`, p.loc));
    }
  };

  const checkExpression = (e: Expression, what: string) => {
    if (e.type === 'PathExpression') checkPath(e as hbs.AST.PathExpression);
    else if (e.type === 'SubExpression') {
      const name = ((e as hbs.AST.SubExpression).path as hbs.AST.PathExpression).original;
      problems.push(problemAt(part, 'unknown_helper', `Unknown helper "${name}": no helper can be called here.`, e.loc));
    } else problems.push(problemAt(part, 'syntax_error', `${what} must be a variable, not a literal.`, e.loc));
  };

  const visit = (nodes: Statement[]) => {
    for (const node of nodes) {
      switch (node.type) {
        case 'ContentStatement':
        case 'CommentStatement':
          break;
        case 'MustacheStatement': {
          const m = node as hbs.AST.MustacheStatement;
          const name =
            m.path.type === 'PathExpression'
              ? (m.path as hbs.AST.PathExpression).original
              : String((m.path as hbs.AST.Literal & { original?: unknown }).original ?? '');
          if (m.params.length || m.hash) {
            const hint = (HELPERS as readonly string[]).includes(name)
              ? ` Use it as a block: {{#${name} variable}}…{{/${name}}}.`
              : ' The only helpers are #if and #unless, as blocks.';
            problems.push(problemAt(part, 'unknown_helper', `Unknown helper "${name}".${hint}`, m.loc));
            break;
          }
          checkExpression(m.path, 'An output');
          if (!m.escaped && part === 'mjml') {
            problems.push(
              problemAt(part, 'syntax_error', `{{{${name}}}} would insert raw HTML; use {{${name}}}, which is escaped.`, m.loc),
            );
          }
          break;
        }
        case 'BlockStatement': {
          const b = node as hbs.AST.BlockStatement;
          const name = b.path.type === 'PathExpression' ? (b.path as hbs.AST.PathExpression).original : '';
          if (!(HELPERS as readonly string[]).includes(name)) {
            problems.push(
              problemAt(part, 'unknown_helper', `Unknown block helper "#${name}". The only blocks are #if and #unless.`, b.loc),
            );
          } else if (b.params.length !== 1 || b.hash || b.program?.blockParams?.length) {
            problems.push(problemAt(part, 'syntax_error', `#${name} takes exactly one variable: {{#${name} variable}}.`, b.loc));
          } else {
            checkExpression(b.params[0]!, `The condition of #${name}`);
          }
          if (b.program) visit(b.program.body);
          if (b.inverse) visit(b.inverse.body);
          break;
        }
        case 'PartialStatement':
        case 'PartialBlockStatement':
          problems.push(problemAt(part, 'syntax_error', 'Partials ({{> name}}) are not supported.', (node as Node).loc));
          break;
        case 'Decorator':
        case 'DecoratorBlock':
          problems.push(problemAt(part, 'syntax_error', 'Decorators ({{* name}}) are not supported.', (node as Node).loc));
          break;
        default:
          problems.push(problemAt(part, 'syntax_error', 'Unsupported template syntax.', (node as Node).loc));
      }
    }
  };
  visit(ast.body);
  return problems;
}

/** Where a variable is printed: `always` when no #if/#unless can hide it. */
function usage(nodes: Statement[], name: string): { always: boolean; first: hbs.AST.SourceLocation | null } {
  let first: hbs.AST.SourceLocation | null = null;
  const isVar = (e: Expression) =>
    e.type === 'PathExpression' && (e as hbs.AST.PathExpression).parts.length === 1 && (e as hbs.AST.PathExpression).parts[0] === name;
  const walk = (list: Statement[]): boolean => {
    let always = false;
    for (const node of list) {
      if (node.type === 'MustacheStatement' && isVar((node as hbs.AST.MustacheStatement).path)) {
        first ??= node.loc;
        always = true;
      } else if (node.type === 'BlockStatement') {
        const b = node as hbs.AST.BlockStatement;
        const inProgram = b.program ? walk(b.program.body) : false;
        const inInverse = b.inverse ? walk(b.inverse.body) : false;
        if (inProgram && inInverse) always = true;
      }
    }
    return always;
  };
  const always = walk(nodes);
  return { always, first };
}

function checkRequired(part: TemplatePart, ast: AST, schema: TemplateSchema): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const v of schema) {
    if (!v.required) continue;
    const u = usage(ast.body, v.name);
    if (u.always) continue;
    problems.push(
      u.first
        ? problemAt(part, 'missing_required_variable', `{{${v.name}}} is required and must not depend on an #if or #unless.`, u.first)
        : problemAt(part, 'missing_required_variable', `{{${v.name}}} is required: ${v.description.replace(/\.$/, '')}.`),
    );
  }
  return problems;
}

const MJML_OPTIONS = {
  validationLevel: 'strict' as const,
  // No remote fonts, no includes read from disk, no config file.
  fonts: {},
  ignoreIncludes: true,
  keepComments: false,
  minify: false,
  beautify: false,
};

interface MjmlIssue {
  line?: number;
  message?: string;
  tagName?: string;
}

function mjmlColumn(source: string, line: number, tagName?: string): number {
  if (!tagName) return 1;
  const text = source.split('\n')[line - 1] ?? '';
  const at = text.indexOf(`<${tagName}`);
  return at >= 0 ? at + 1 : 1;
}

/** MJML → HTML, or the problems of the MJML (strict validation, every error with its line). */
async function compileMjml(source: string): Promise<{ html: string } | { problems: TemplateProblem[] }> {
  const problems: TemplateProblem[] = [];
  const include = /<mj-include\b/.exec(source);
  if (include) {
    const before = source.slice(0, include.index).split('\n');
    problems.push({
      part: 'mjml',
      kind: 'mjml_error',
      line: before.length,
      column: before.at(-1)!.length + 1,
      message: 'mj-include is not supported: a template is one document.',
    });
    return { problems };
  }
  try {
    const out = await mjml2html(source, MJML_OPTIONS);
    return { html: out.html };
  } catch (err) {
    const issues = (err as { errors?: MjmlIssue[] }).errors;
    if (Array.isArray(issues) && issues.length) {
      for (const i of issues) {
        const line = typeof i.line === 'number' && i.line > 0 ? i.line : 1;
        problems.push({
          part: 'mjml',
          kind: 'mjml_error',
          line,
          column: mjmlColumn(source, line, i.tagName),
          message: String(i.message ?? 'Invalid MJML').trim(),
        });
      }
    } else {
      problems.push({ part: 'mjml', kind: 'mjml_error', line: 1, column: 1, message: String((err as Error)?.message ?? err).trim() });
    }
    return { problems: problems.sort((a, b) => a.line - b.line || a.column - b.column) };
  }
}

const TOKEN_RE = /\{\{\{?[^}]*\}?\}\}/g;

/**
 * MJML keeps `{{…}}` in text and attributes but drops text where no text may stand
 * (between sections, say). Every expression of the source must reach the HTML.
 */
function lostExpressions(source: string, html: string): TemplateProblem[] {
  const have = new Map<string, number>();
  for (const m of html.matchAll(TOKEN_RE)) have.set(m[0], (have.get(m[0]) ?? 0) + 1);
  const problems: TemplateProblem[] = [];
  for (const m of source.matchAll(TOKEN_RE)) {
    if (m[0].startsWith('{{!')) continue;
    const left = have.get(m[0]) ?? 0;
    if (left > 0) {
      have.set(m[0], left - 1);
      continue;
    }
    const before = source.slice(0, m.index).split('\n');
    problems.push({
      part: 'mjml',
      kind: 'mjml_error',
      line: before.length,
      column: before.at(-1)!.length + 1,
      message: `${m[0]} is dropped by MJML: put expressions inside content (mj-text, mj-button, mj-table, …) or an attribute value.`,
    });
  }
  return problems;
}

interface Analysis {
  problems: TemplateProblem[];
  /** The compiled parts when there are no problems. */
  compiled?: CompiledEmail;
}

interface CompiledEmail {
  subject: Delegate;
  html: Delegate;
  text: Delegate | null;
}

function tooLarge(part: TemplatePart, source: string, limit: number): TemplateProblem | null {
  return source.length > limit
    ? { part, kind: 'too_large', line: 1, column: 1, message: `The ${part} is ${source.length} characters; the limit is ${limit}.` }
    : null;
}

type PartsInput = { subject?: string | null; mjml?: string | null; text?: string | null };

async function analyze(parts: PartsInput, schema: TemplateSchema, opts: { sms?: boolean } = {}): Promise<Analysis> {
  assertValidSchema(schema);
  const problems: TemplateProblem[] = [];
  const limits: Record<TemplatePart, number> = {
    subject: TEMPLATE_LIMITS.subject,
    mjml: TEMPLATE_LIMITS.mjml,
    text: opts.sms ? TEMPLATE_LIMITS.sms : TEMPLATE_LIMITS.text,
  };
  const asts: Partial<Record<TemplatePart, AST>> = {};
  const order: TemplatePart[] = ['subject', 'mjml', 'text'];
  for (const part of order) {
    const source = parts[part];
    if (source === undefined || source === null) continue;
    const big = tooLarge(part, source, limits[part]);
    if (big) {
      problems.push(big);
      continue;
    }
    const parsed = parse(part, source);
    if ('problem' in parsed) {
      problems.push(parsed.problem);
      continue;
    }
    asts[part] = parsed.ast;
    problems.push(...checkAst(part, parsed.ast, schema));
    if (part !== 'subject') problems.push(...checkRequired(part, parsed.ast, schema));
  }
  let html: string | undefined;
  if (typeof parts.mjml === 'string' && !problems.some((p) => p.part === 'mjml' && p.kind === 'too_large')) {
    const out = await compileMjml(parts.mjml);
    if ('problems' in out) problems.push(...out.problems);
    else if (asts.mjml) {
      const lost = lostExpressions(parts.mjml, out.html);
      problems.push(...lost);
      if (!lost.length) {
        html = out.html;
        const again = parse('mjml', html);
        if ('problem' in again) {
          problems.push({
            part: 'mjml',
            kind: 'mjml_error',
            line: 1,
            column: 1,
            message: `The expressions do not survive MJML compilation: ${again.problem.message}`,
          });
          html = undefined;
        }
      }
    }
  }
  if (problems.length) return { problems: sortProblems(problems) };

  const compiled: CompiledEmail = {
    subject: hb.compile(parts.subject ?? '', compileOptions(false)) as Delegate,
    html: hb.compile(html ?? '', compileOptions(true)) as Delegate,
    text: typeof parts.text === 'string' ? (hb.compile(parts.text, compileOptions(false)) as Delegate) : null,
  };
  // A trial render, with every variable and with only the required ones: what validates
  // here cannot throw at send time.
  const required = Object.fromEntries(schema.filter((v) => v.required).map((v) => [v.name, v.sample]));
  for (const data of [sampleData(schema), required]) {
    const ctx = templateContext(schema, data);
    for (const part of order) {
      const fn = part === 'subject' ? compiled.subject : part === 'mjml' ? compiled.html : compiled.text;
      if (!fn || parts[part] === undefined || parts[part] === null) continue;
      try {
        fn(ctx, RUNTIME_OPTIONS);
      } catch (err) {
        problems.push({
          part,
          kind: 'syntax_error',
          line: 1,
          column: 1,
          message: `The template fails to render: ${(err as Error).message}`,
        });
      }
    }
  }
  if (problems.length) return { problems: sortProblems(problems) };
  return { problems: [], compiled };
}

const PART_ORDER: Record<TemplatePart, number> = { subject: 0, mjml: 1, text: 2 };
const sortProblems = (list: TemplateProblem[]) =>
  [...list].sort((a, b) => PART_ORDER[a.part] - PART_ORDER[b.part] || a.line - b.line || a.column - b.column);

/**
 * Every problem of a template, each with its part, line and column (1-based). Validates
 * the parts given: `subject` and `mjml` (and optionally `text`) for an email, `text`
 * alone for an SMS body (pass `{ sms: true }` for its size limit). Empty list = valid.
 */
export async function validateTemplate(
  parts: { subject?: string | null; mjml?: string | null; text?: string | null },
  schema: TemplateSchema,
  opts: { sms?: boolean } = {},
): Promise<TemplateProblem[]> {
  return (await analyze(parts, schema, opts)).problems;
}

// ---------------------------------------------------------------------------------------
// Rendering, with compiled templates cached by content

const CACHE_MAX = 500;
const cache = new Map<string, Promise<CompiledEmail>>();

function cacheKey(kind: string, parts: PartsInput, schema: TemplateSchema): string {
  return createHash('sha256')
    .update(JSON.stringify([kind, parts.subject ?? null, parts.mjml ?? null, parts.text ?? null, schema]))
    .digest('hex');
}

function compiledFor(kind: 'email' | 'sms', name: string, parts: PartsInput, schema: TemplateSchema): Promise<CompiledEmail> {
  const key = cacheKey(kind, parts, schema);
  const hit = cache.get(key);
  if (hit) {
    // Most recently used last: the oldest entry is the first evicted.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const pending = analyze(parts, schema, { sms: kind === 'sms' }).then((a) => {
    if (!a.compiled) throw new TemplateInvalidError(name, a.problems);
    return a.compiled;
  });
  pending.catch(() => cache.delete(key));
  cache.set(key, pending);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return pending;
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/**
 * Renders an email. The template is validated (and compiled) once per distinct content;
 * an invalid template throws TemplateInvalidError, bad data a TypeError.
 */
export async function renderTemplate(template: EmailTemplate, data: TemplateData): Promise<RenderedEmail> {
  const compiled = await compiledFor('email', template.name, template, template.variables);
  const ctx = templateContext(template.variables, data, template.name);
  const html = compiled.html(ctx, RUNTIME_OPTIONS);
  const subject = compiled.subject(ctx, RUNTIME_OPTIONS).replace(/\s+/g, ' ').trim().slice(0, SUBJECT_MAX);
  const text = compiled.text ? tidyText(compiled.text(ctx, RUNTIME_OPTIONS)) : htmlToText(html);
  return { subject, html, text };
}

/** Renders an SMS body (the template's `body` is validated as a `text` part). */
export async function renderSms(template: SmsTemplate, data: TemplateData): Promise<{ body: string }> {
  const compiled = await compiledFor('sms', template.name, { text: template.body }, template.variables);
  const ctx = templateContext(template.variables, data, template.name);
  return {
    body: compiled.text!(ctx, RUNTIME_OPTIONS)
      .replace(/[ \t]+\n/g, '\n')
      .trim(),
  };
}

/** Forgets compiled templates (tests). */
export function clearTemplateCache() {
  cache.clear();
}

// ---------------------------------------------------------------------------------------
// Text

const tidyText = (s: string) =>
  s
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim() + '\n';

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
  '#x27': "'",
  '#x3D': '=',
  '#x60': '`',
  '#x2F': '/',
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (ENTITIES[e] !== undefined) return ENTITIES[e]!;
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return m;
  });
}

/** A readable text body from rendered HTML, for templates without a text part. */
export function htmlToText(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const text = body
    .replace(/<(style|script|head|title)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<a\b[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, label: string) => {
      const inner = label.replace(/<[^>]+>/g, '').trim();
      return inner && decodeEntities(inner) !== decodeEntities(href) ? `${inner} (${href})` : href;
    })
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|tr|h[1-6]|li|table)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .split('\n')
    .map((l) =>
      decodeEntities(l)
        .replace(/[ \t\u00a0]+/g, ' ')
        .trim(),
    )
    .join('\n');
  return tidyText(text);
}
