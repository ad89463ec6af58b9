import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Where hand-written SQL lives (docs/development.md, "Data access"): in its domain's
 * `<domain>/statements.ts`, or in the database plumbing (`server/db/`). Hand-written SQL is a
 * `sql` template that reads or writes a table by itself (its text says `select`, `insert`,
 * `update` or `delete`: a statement, a CTE, a subquery, an `exists (select …)` column), a
 * template handed straight to `.execute(…)`, and every `preparedSql(…)`. An expression over
 * the columns of a query-builder query (`sql<number>\`count(*)::int\``,
 * `sql\`${t.version} + 1\``) is the builder's and stays where the query is. Tests and
 * server/testing/ are apart.
 */
const ROOT = resolve(__dirname, '..');
const STATEMENT_TEXT = /\b(select|insert|update|delete)\b/i;

const allowed = (file: string) =>
  /^server\/([a-z0-9-]+\/)*statements\.ts$/.test(file) || file.startsWith('server/db/') || file.startsWith('server/testing/');

/** The hand-written SQL of a source text: each with its line and the start of its text. */
function handWritten(file: string, text: string): { line: number; what: string }[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { line: number; what: string }[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push({
      line: src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1,
      what: what.replace(/\s+/g, ' ').trim().slice(0, 60),
    });
  const isSqlTag = (node: ts.TaggedTemplateExpression) => ts.isIdentifier(node.tag) && node.tag.text === 'sql';
  const textOf = (t: ts.TemplateLiteral) =>
    ts.isNoSubstitutionTemplateLiteral(t) ? t.text : [t.head.text, ...t.templateSpans.map((s) => s.literal.text)].join(' … ');
  const visit = (node: ts.Node) => {
    if (ts.isTaggedTemplateExpression(node) && isSqlTag(node)) {
      const sqlText = textOf(node.template);
      const executed =
        ts.isCallExpression(node.parent) &&
        ts.isPropertyAccessExpression(node.parent.expression) &&
        node.parent.expression.name.text === 'execute';
      if (STATEMENT_TEXT.test(sqlText) || executed) at(node, sqlText);
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'preparedSql') at(node, 'preparedSql(…)');
    node.forEachChild(visit);
  };
  visit(src);
  return found;
}

describe('hand-written SQL lives in statement modules', () => {
  it('finds statements, subqueries, executed templates and preparedSql, and lets builder expressions be', () => {
    const sample = [
      'const a = sql`select 1 from ${users} where ${users.id} = ${id}`;',
      'const b = sql<boolean>`exists (select 1 from totp_factors tf where tf.user_id = ${u.id})`;',
      'await db.execute(sql`set local statement_timeout = 100`);',
      "const c = preparedSql('name', () => a);",
      'const d = sql<number>`count(*)::int`;',
      'const e = db.update(t).set({ version: sql`${t.version} + 1` });',
    ].join('\n');
    expect(handWritten('server/x/y.ts', sample).map((f) => f.line)).toEqual([1, 2, 3, 4]);
  });

  it('no hand-written SQL outside server/<domain>/statements.ts and server/db/', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'server'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.ts$/.test(f) && !/\.test\.ts$/.test(f) && !allowed(f));
    const misplaced = files.flatMap((f) => handWritten(f, readFileSync(resolve(ROOT, f), 'utf8')).map((h) => `${f}:${h.line} ${h.what}`));
    expect(misplaced, 'move these into their domain’s statements.ts (docs/development.md, "Data access")').toEqual([]);
  });

  it('statement modules hold SQL and its values only: they import no domain code but other statement modules', () => {
    const modules = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'server'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\/statements\.ts$/.test(f));
    expect(modules.length).toBeGreaterThan(10);
    const wrong = modules.flatMap((f) =>
      [...readFileSync(resolve(ROOT, f), 'utf8').matchAll(/from '(\.[^']+)'/g)]
        .map((m) => m[1]!)
        .filter((spec) => !/^\.\.\/db\//.test(spec) && !/(^|\/)statements$/.test(spec) && !/^\.\/(policy|filter-sql)$/.test(spec))
        .map((spec) => `${f} imports ${spec}`),
    );
    expect(wrong).toEqual([]);
  });
});
