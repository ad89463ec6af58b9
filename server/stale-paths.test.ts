import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * What renames leave behind: a comment (server/, lib/, app/, components/) or a doc (docs/,
 * README.md) naming a repository path or a source file that no longer exists. A path is a
 * word starting with one of the repository's top folders, or in server/ with one of server/'s
 * folders (`db/together.ts` is server/db/together.ts); a source file is a bare file name with a
 * .ts, .tsx or .mjs extension, found anywhere in the repository. Placeholders
 * (`server/api/<surface>/index.ts`, `*`, `{…}`), a trailing `:line` or `#anchor` are not part of
 * the path; a path git ignores (an output such as `bench/results/latest.json`) counts as named.
 */
const ROOT = resolve(__dirname, '..');
const TRACKED = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const SCANNED = TRACKED.filter((f) => /^(server|lib|app|components)\/.*\.tsx?$/.test(f) || /^docs\/.*\.md$/.test(f) || f === 'README.md');
const TOP = [...new Set(TRACKED.filter((f) => f.includes('/')).map((f) => f.split('/')[0]!))].filter((d) => !d.startsWith('.'));
const SERVER_TOP = [...new Set(TRACKED.filter((f) => /^server\/[^/]+\//.test(f)).map((f) => f.split('/')[1]!))];
const BASENAMES = new Set(TRACKED.map((f) => basename(f)));
const ignored = new Map<string, boolean>();
const IGNORED = (path: string) => {
  if (!ignored.has(path)) {
    try {
      execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: ROOT });
      ignored.set(path, true);
    } catch {
      ignored.set(path, false);
    }
  }
  return ignored.get(path)!;
};

/** The comments of a source file (every comment range the parser attaches to a node), with the line each starts on. */
function comments(file: string, text: string): { line: number; text: string }[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const ranges = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node) => {
    for (const r of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])])
      ranges.set(r.pos, r);
    node.forEachChild(visit);
  };
  visit(src);
  visit(src.endOfFileToken);
  return [...ranges.values()].map((r) => ({ line: src.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) }));
}

const pathPattern = (tops: string[]) => new RegExp(`(?<=^|[\\s\`'"(\\[])((?:${tops.join('|')})/[A-Za-z0-9_.+\\-/[\\]]*)`, 'g');
const PATH = pathPattern(TOP);
const SERVER_PATH = pathPattern(SERVER_TOP);
const FILE = /(?<=^|[\s`'"(])([a-z0-9][\w.-]*\.(?:ts|tsx|mjs))(?=$|[\s`'",;:)])/g;

function exists(path: string, under = '', orIgnored = true): boolean {
  let p = path.replace(/[.,;:)]+$/, '').replace(/\/$/, '');
  while (p.endsWith(']') && p.split('[').length < p.split(']').length) p = p.slice(0, -1); // a Markdown link's bracket
  p = join(under, p);
  return (
    [p, `${p}.ts`, `${p}.tsx`, `${p}.mjs`, `${p}.md`].some((c) => existsSync(join(ROOT, c))) || (orIgnored && IGNORED(join(under, path)))
  );
}

function stale(file: string, line: number, text: string): string[] {
  const found: string[] = [];
  const patterns: [RegExp, string][] = file.startsWith('server/')
    ? [
        [PATH, ''],
        [SERVER_PATH, 'server'],
      ]
    : [[PATH, '']];
  for (const raw of text.split('\n')) {
    for (const [pattern, under] of patterns) {
      for (const m of raw.matchAll(pattern)) {
        const path = m[1]!.split('#')[0]!.replace(/:\d+$/, '');
        const after = raw.slice(m.index! + m[1]!.length);
        if (/^[<*{$]/.test(after)) continue; // a placeholder or a pattern
        if (under && exists(path, '', false)) continue; // a top folder's path, checked as such
        if (!exists(path, under)) found.push(`${file}:${line} ${path}`);
      }
    }
    for (const m of raw.matchAll(FILE)) {
      const name = m[1]!;
      if (m.index! > 0 && raw[m.index! - 1] === '/') continue; // part of a path, checked above
      if (!BASENAMES.has(name)) found.push(`${file}:${line} ${name}`);
    }
    line += 1;
  }
  return found;
}

describe('paths named in comments and docs', () => {
  it('every repository path or source file a comment or doc names exists', { timeout: 120_000 }, () => {
    const found: string[] = [];
    for (const file of SCANNED) {
      if (!existsSync(join(ROOT, file))) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (file.endsWith('.md')) found.push(...stale(file, 1, text));
      else for (const c of comments(file, text)) found.push(...stale(file, c.line, c.text));
    }
    expect(found).toEqual([]);
  });
});
