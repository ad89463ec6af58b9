import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Module boundaries of server/: no import cycle between files, type-only imports included
 * (they tie modules together just the same), and the folders in layers (LAYERS below).
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

/**
 * The layers of server/, bottom first: each folder (a top-level file counts as one; each
 * surface under api/ as one; testing/ and tests aside) imports only folders listed before
 * it. This list is the rule (README, "Layout"); a new folder fails until it is placed here.
 */
export const LAYERS = [
  // Plumbing: the database, process services, configuration, secrets, the dependency bag, the router.
  'db',
  'infra',
  'config.ts',
  'crypto',
  'deps.ts',
  'http',
  // Records every domain writes: the audit log, events (and their webhook fan-out), keys, limits.
  'audit',
  'events',
  'keys',
  'signing',
  'analytics',
  'limits',
  // Domains, each on those it needs.
  'instances',
  'localization',
  'email',
  'sms',
  'verification',
  'billing',
  'apikeys',
  'sessions',
  'organizations',
  'users',
  'passkeys',
  'invitations',
  'protection',
  'waitlist',
  'auth',
  'social',
  'sso',
  'webhooks',
  'allowlist',
  'people',
  'operators',
  'scim',
  'oauth',
  'lti',
  // The admin portal: an organization's IT admin configures its SSO, directory and domains.
  'portal',
  // Moving another system's users and organizations in (Clerk's exports and Backend API).
  'imports',
  // Clerk's browser bundles, served by the FAPI.
  'clerk-bundles',
  'reasons.ts',
  // Assembly: the runtime (deps built from configuration), the CLI's commands.
  'runtime.ts',
  'cli',
  // Surfaces: each one's authentication, route table and adapters; then their registry.
  'api/router-guards.ts',
  'api/fapi',
  'api/bapi',
  'api/dashboard',
  'api/oidc',
  'api/lti',
  'api/sso',
  'api/portal',
  'api/scim',
  'api/ops',
  'api/surfaces.ts',
  'api/index.ts',
  'api/next.ts',
  // The processes.
  'main',
] as const;

/** The layer a server file belongs to: its top folder, a surface under api/, or a top-level file. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return file;
  if (parts[0] === 'api') return parts.length > 2 ? `api/${parts[1]}` : file;
  return parts[0]!;
}

const folderImports = [...graph].flatMap(([file, deps]) =>
  deps
    .filter((d) => !d.startsWith('..') && folderOf(d) !== folderOf(file))
    .map((d) => ({ file, dep: d, from: folderOf(file), to: folderOf(d) })),
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

/**
 * The names a file declares and exports: exported declarations, and `export { a as b }` of its
 * own bindings. A re-export (`export … from`, or `export { x }` of an imported x) hands on a
 * binding declared elsewhere, so it is not counted again; nor is `export default`.
 */
function declaredExports(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const imported = new Set<string>();
  const names: string[] = [];
  const bindingNames = (n: ts.BindingName): string[] =>
    ts.isIdentifier(n) ? [n.text] : n.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      if (clause?.name) imported.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) imported.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) imported.add(el.name.text);
      continue;
    }
    if (ts.isExportDeclaration(st)) {
      if (st.moduleSpecifier || !st.exportClause || !ts.isNamedExports(st.exportClause)) continue;
      for (const el of st.exportClause.elements)
        if (!imported.has((el.propertyName ?? el.name).getText(sf))) names.push(el.name.getText(sf));
      continue;
    }
    const modifiers = ts.canHaveModifiers(st) ? ts.getModifiers(st) : undefined;
    if (!modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) || modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword))
      continue;
    if (ts.isVariableStatement(st)) names.push(...st.declarationList.declarations.flatMap((d) => bindingNames(d.name)));
    else if (
      (ts.isFunctionDeclaration(st) ||
        ts.isClassDeclaration(st) ||
        ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) ||
        ts.isEnumDeclaration(st) ||
        ts.isModuleDeclaration(st)) &&
      st.name
    )
      names.push(st.name.text);
  }
  return [...new Set(names)];
}

/** Names several files of server/ may each export by design: every domain's registry of its reasons. */
const SHARED_NAMES = new Set(['REASONS']);

describe('server exports', () => {
  const exporters = new Map<string, string[]>();
  for (const file of sources(ROOT)) for (const n of declaredExports(file)) exporters.set(n, [...(exporters.get(n) ?? []), name(file)]);

  it('sees the names it checks', () => {
    expect(exporters.get('LAYERS')).toBeUndefined(); // test files are not sources
    expect(exporters.get('createApiHandler')).toEqual(['api/surfaces.ts']); // api/index.ts only re-exports it
    expect(exporters.get('REASONS')?.length).toBeGreaterThan(1);
  });

  it('declare each exported name in one file (an import says which thing it means)', () => {
    const twice = [...exporters]
      .filter(([n, files]) => files.length > 1 && !SHARED_NAMES.has(n))
      .map(([n, files]) => `${n}: ${files.sort().join(', ')}`);
    expect(twice.sort()).toEqual([]);
  });
});

describe('server imports', () => {
  it('sees the modules it checks', () => {
    expect(graph.get('deps.ts')?.length).toBeGreaterThan(3);
  });

  it('form no cycle', () => {
    expect(cycles().map((c) => [...c, c[0]].join(' → '))).toEqual([]);
  });

  it('place every folder of server/ in a layer', () => {
    const listed = new Set<string>(LAYERS);
    const folders = new Set([...graph.keys()].filter((f) => !f.startsWith('testing/')).map(folderOf));
    expect([...folders].filter((f) => !listed.has(f)).sort()).toEqual([]);
    expect(LAYERS.filter((f) => !folders.has(f))).toEqual([]);
  });

  it('import only from the layers below theirs (so no folder cycle either)', () => {
    const rank = new Map<string, number>(LAYERS.map((f, i) => [f, i]));
    const upward = folderImports
      .filter(({ file, from, to }) => !file.startsWith('testing/') && (rank.get(to) ?? Infinity) >= (rank.get(from) ?? -1))
      .map(({ file, dep }) => `${file} → ${dep}`);
    expect(upward).toEqual([]);
  });
});
