// Prints the folder-level import graph of server/ against its layers (server/imports.test.ts's LAYERS):
// folders, arrows, folder cycles (strongly connected sets), pairs of folders importing each other,
// and the file imports that run upward. `node scripts/layers.mjs` from the repository root.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve('server');
const SPEC_RE = /(?:^|\n)\s*(?:(?:import|export)\s[^;]*?\sfrom\s+|import\s+)'(\.[^']+)'/g;

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === '__snapshots__' || (dir === ROOT && e.name === 'testing') ? [] : sources(path);
    return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [path] : [];
  });
const resolveSpec = (from, spec) =>
  [`${spec}.ts`, join(spec, 'index.ts'), spec].map((p) => resolve(dirname(from), p)).find((p) => p.endsWith('.ts') && existsSync(p));
const folderOf = (file) => {
  const parts = file.split('/');
  if (parts.length === 1) return file;
  if (parts[0] === 'api') return parts.length > 2 ? `api/${parts[1]}` : file;
  return parts[0];
};

const layersText = readFileSync(join(ROOT, 'imports.test.ts'), 'utf8').match(/export const LAYERS = \[([\s\S]*?)\] as const/)[1];
const LAYERS = [...layersText.replace(/\/\/.*$/gm, '').matchAll(/'([^']+)'/g)].map((m) => m[1]);
const rank = new Map(LAYERS.map((f, i) => [f, i]));

const arrows = new Map();
const upward = [];
for (const path of sources(ROOT)) {
  const file = relative(ROOT, path);
  for (const m of readFileSync(path, 'utf8').matchAll(SPEC_RE)) {
    const target = resolveSpec(path, m[1]);
    if (!target || !target.startsWith(`${ROOT}/`)) continue;
    const dep = relative(ROOT, target);
    const [from, to] = [folderOf(file), folderOf(dep)];
    if (from === to) continue;
    if (!arrows.has(from)) arrows.set(from, new Set());
    arrows.get(from).add(to);
    if ((rank.get(to) ?? Infinity) >= (rank.get(from) ?? -1)) upward.push(`${file} -> ${dep}`);
  }
}

const folders = [...new Set([...arrows.keys(), ...[...arrows.values()].flatMap((s) => [...s])])].sort();
// Tarjan's strongly connected sets.
let index = 0;
const idx = new Map(),
  low = new Map(),
  onStack = new Set(),
  stack = [],
  sets = [];
const visit = (v) => {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of arrows.get(v) ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const set = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      set.push(w);
    } while (w !== v);
    if (set.length > 1) sets.push(set.sort());
  }
};
for (const f of folders) if (!idx.has(f)) visit(f);
const mutual = [];
for (const [a, to] of arrows) for (const b of to) if (a < b && arrows.get(b)?.has(a)) mutual.push(`${a} <-> ${b}`);

console.log(`folders ${folders.length}, arrows ${[...arrows.values()].reduce((n, s) => n + s.size, 0)}`);
console.log(`folder cycles: ${sets.length ? sets.map((s) => `${s.length} (${s.join(' ')})`).join('; ') : 'none'}`);
console.log(`pairs importing each other: ${mutual.length}${mutual.length ? `\n  ${mutual.join('\n  ')}` : ''}`);
console.log(`unplaced folders: ${folders.filter((f) => !rank.has(f)).join(' ') || 'none'}`);
console.log(`imports running upward: ${upward.length}${upward.length ? `\n  ${upward.join('\n  ')}` : ''}`);
