import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * How the console and the hosted pages refresh what a write changed: `useInvalidate()` on the
 * path the write touched (lib/query/use-resource.ts), which refetches every GET on screen at
 * that path or below it, wherever it is on the page. Not by calling a resource's `reload()`
 * after a write (only the component holding it would refresh), nor by a counter passed down
 * as a `version` prop (or `useReloadOn`) that children watch. A resource's `reload` stays for
 * the user's own "retry" and "refresh" buttons: passed (`onRetry={list.reload}`), never
 * called. `window.location.reload()` (a whole page load) is not this.
 */
const ROOT = resolve(__dirname, '../..');

function breaches(file: string, text: string): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${file}:${src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1} ${what}`);
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && (callee.text === 'reload' || callee.text === 'useReloadOn')) at(node, `${callee.text}()`);
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'reload' && !/(^|\.)location$/.test(callee.expression.getText(src)))
        at(node, `${callee.getText(src)}()`);
    }
    if (ts.isJsxAttribute(node) && node.name.getText(src) === 'version') at(node, 'a version prop');
    if (ts.isArrayBindingPattern(node) && node.elements.some((e) => ts.isBindingElement(e) && /Version$/.test(e.name.getText(src))))
      at(node, `a version counter ${node.getText(src)}`);
    node.forEachChild(visit);
  };
  visit(src);
  return found;
}

const sources = () =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'components', 'app', 'lib'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.startsWith('lib/generated/'));

describe('a write refreshes what it changed by invalidating its path', () => {
  it('finds reload calls and version counters, and lets a passed reload and a page reload be', () => {
    const sample = [
      'list.reload();',
      'const [deliveriesVersion, setDeliveriesVersion] = useState(0);',
      'const x = <Log version={deliveriesVersion} />;',
      'useReloadOn(version, reload);',
      'const y = <ErrorState onRetry={list.reload} />;',
      'window.location.reload();',
      'void invalidate(base);',
    ].join('\n');
    expect(breaches('x.tsx', sample).map((b) => b.split(' ')[0])).toEqual(['x.tsx:1', 'x.tsx:2', 'x.tsx:3', 'x.tsx:4']);
  });

  it('no component or hook calls reload() or passes a version counter', () => {
    const found = sources().flatMap((f) => breaches(f, readFileSync(resolve(ROOT, f), 'utf8')));
    expect(found, 'after a write, call useInvalidate() with the path it changed').toEqual([]);
  });
});
