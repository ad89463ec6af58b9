import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Module boundaries of server/ (issue 13, "Clean dependencies"): no import cycle, type-only
 * imports included (they tie modules together just the same), and no domain module
 * reaching into a surface's route table under server/api/.
 */
const ROOT = resolve(__dirname);
const SPEC_RE = /(?:^|\n)\s*(?:(?:import|export)\s[^;]*?\sfrom\s+|import\s+)'(\.[^']+)'/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === '__snapshots__' ? [] : sources(path);
    return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [path] : [];
  });
}

const resolveSpec = (from: string, spec: string) =>
  [`${spec}.ts`, join(spec, 'index.ts'), spec].map((p) => resolve(dirname(from), p)).find((p) => p.endsWith('.ts') && existsSync(p));

const name = (path: string) => relative(ROOT, path);
const graph = new Map(
  sources(ROOT).map((file) => {
    const deps = [...readFileSync(file, 'utf8').matchAll(SPEC_RE)].map((m) => resolveSpec(file, m[1]!)).filter((p) => p !== undefined);
    return [name(file), [...new Set(deps.map(name))]] as const;
  }),
);

/** The cycle closed by each back edge of a depth-first walk, from its smallest member: every tangle shows at least one. */
function cycles(): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const canonical = [...cycle.slice(start), ...cycle.slice(0, start)];
        found.set(canonical.join(' → '), canonical);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return [...found.values()];
}

describe('server imports', () => {
  it('sees the modules it checks', () => {
    expect(graph.get('deps.ts')?.length).toBeGreaterThan(3);
  });

  it('form no cycle', () => {
    expect(cycles().map((c) => [...c, c[0]].join(' → '))).toEqual([]);
  });

  it('reach server/api/ only from the surfaces, the processes that serve them (main/) and tests', () => {
    const offenders = [...graph].flatMap(([file, deps]) =>
      /^(api|main|testing)\//.test(file) ? [] : deps.filter((d) => d.startsWith('api/')).map((d) => `${file} → ${d}`),
    );
    expect(offenders).toEqual([]);
  });
});
