#!/usr/bin/env node
// Counts non-null assertions (`x!`, TypeScript's NonNullExpression) with the compiler's own parser:
// on path parameters (`params.id!`), in server/ code (tests apart), in server/api/ and its
// domains' endpoint modules (the handlers), and in every .ts/.tsx file of the repository.
// Usage: node scripts/count-non-null.mjs [--list]   (--list prints each path-parameter one)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const SKIP = new Set(['node_modules', '.next', 'data', 'dist', '.git', 'e2e/.run']);

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (SKIP.has(e.name) || SKIP.has(relative(root, p))) continue;
    if (e.isDirectory()) yield* files(p);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) yield p;
  }
}

const isTest = (f) => /\.(test|spec)\.tsx?$/.test(f) || f.includes('/testing/');
const isHandler = (f) => f.startsWith('server/api/') || /^server\/[^/]+\/(endpoints|[a-z-]+-endpoints)\.ts$/.test(f);
const counts = { pathParams: 0, handlers: 0, server: 0, all: 0 };
const list = process.argv.includes('--list');

for (const abs of files(root)) {
  const f = relative(root, abs);
  const src = ts.createSourceFile(
    f,
    readFileSync(abs, 'utf8'),
    ts.ScriptTarget.Latest,
    false,
    f.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const visit = (node) => {
    if (ts.isNonNullExpression(node)) {
      counts.all += 1;
      if (f.startsWith('server/') && !isTest(f)) {
        counts.server += 1;
        if (isHandler(f)) counts.handlers += 1;
        const e = node.expression;
        if (ts.isPropertyAccessExpression(e) && e.expression.getText(src).endsWith('params')) {
          counts.pathParams += 1;
          if (list) console.log(`${f}:${src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1} ${node.getText(src)}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
}

console.log(`non-null assertions on path parameters (params.x!) in server/: ${counts.pathParams}`);
console.log(`non-null assertions in handlers (server/api/, server/*/endpoints.ts): ${counts.handlers}`);
console.log(`non-null assertions in server/ (tests apart): ${counts.server}`);
console.log(`non-null assertions in every .ts/.tsx file: ${counts.all}`);
