import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { inspectRoutes } from 'hono/dev';
import { describe, expect, it } from 'vitest';
import { FAPI_BASE, SURFACES, type SurfaceBase } from './api/surfaces';
import { bapiClerkLines, bapiRoutes } from './api/bapi';
import { dashboardRoutes } from './api/dashboard';
import { fapiClerkLines, fapiRoutes } from './api/fapi';
import { ltiRoutes } from './api/lti';
import { oidcRoutes } from './api/oidc';
import { createOps } from './api/ops';
import { scimRoutes } from './api/scim';
import { ssoRoutes } from './api/sso';
import { portalRoutes } from './api/portal';
import { sharedHarness } from './testing/harness';

/**
 * The documentation (README.md and docs/*.md) as a reader follows it: every relative link and
 * `#anchor` lands on a file and a heading, and every route of every surface's table is in the
 * reference with its method.
 */
const ROOT = resolve(__dirname, '..');
const DOC_FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Routes deliberately left out of the reference, each with its reason (internal only). */
const UNDOCUMENTED: Record<string, string> = {
  'POST /internal/cli': 'the CLI’s bridge into the server that holds the embedded store (token in DATA_DIR, loopback only), not an API',
};

const h = sharedHarness();

/** The text outside fenced code blocks (fenced lines become blank, so line numbers hold). */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** GitHub's heading anchors: lower case, punctuation and symbols dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const plain = text!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*]/g, '')
      .trim();
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Relative link targets of a file (links and images), outside code. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

const METHOD = '(?:GET|POST|PUT|PATCH|DELETE|HEAD)';
/** `GET /v1/x`, `GET / PATCH /v1/x`, `POST|GET {fapi_url}/v1/x`, `PUT …/x`, `GET I/x`. */
const INLINE_RE = new RegExp(
  `\\b(${METHOD}(?:\\s*[/|,]\\s*${METHOD}\\b)*)\\s+\`?(\\{[A-Za-z_]+\\})?((?:…|I|A)?/[^\\s\`,;)"']*|[IA]\\b)`,
  'g',
);
const PATH_TOKEN_RE = /^(\{[A-Za-z_]+\})?((?:…|I|A)?\/\S*|[IA])$/;
const ROOTS = { I: '/v1/dashboard/accounts/:/instances/:', A: '/v1/dashboard/accounts/:' } as const;

interface DocRoute {
  method: string;
  /** The base the text names (`{fapi_url}`, a table's "under `{fapi_url}`"), else null. */
  base: SurfaceBase | null;
  /** The path, params as `:`; with `…`, a route path starting with head and ending with tail. */
  path: string;
}

const baseOf = (marker: string | undefined): SurfaceBase | null =>
  !marker ? null : /^\{fapi(_url)?\}$/.test(marker) ? 'fapi_url' : marker === '{PUBLIC_URL}' ? 'public_url' : null;

/** A written path as the route tables spell it: params `:`, no query, the console's `A`/`I` shorthands expanded; `[/x]` gives both. */
function normalise(written: string, prefix = ''): string[] {
  let path = written
    .replace(/[?#].*$/, '')
    .replace(/(?<!\/)[.:]$/, '')
    .replace(/…$/, '');
  const root = /^([IA])(?=\/|$)/.exec(path)?.[1] as keyof typeof ROOTS | undefined;
  if (root) path = ROOTS[root] + path.slice(1);
  else if (prefix && path.startsWith('/') && !path.startsWith(prefix)) path = prefix + path;
  path = path
    .replace(/:[A-Za-z_]+/g, ':')
    .replace(/\{[A-Za-z_]+\}/g, ':')
    .replace(/<[A-Za-z_ ]+>/g, ':');
  const optional = /\[([^\]]*)\]/.exec(path);
  if (optional) return [...normalise(path.replace(optional[0], '')), ...normalise(path.replace(optional[0], optional[1]!))];
  return [path.length > 1 ? path.replace(/\/$/, '') : path];
}

/** A table's base and path prefix, from a header cell such as "Path (under `{fapi_url}`)" or "Path (under `/scim/v2`)". */
function tableBase(header: string): { base: SurfaceBase | null; prefix: string } {
  const under = /under `([^`]+)`/.exec(header)?.[1];
  if (!under) return { base: null, prefix: '' };
  const marker = /^\{[A-Za-z_]+\}/.exec(under)?.[0];
  return { base: baseOf(marker), prefix: marker ? under.slice(marker.length) : under };
}

const cellsOf = (row: string) =>
  row
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** Every method and path the reference names: in prose and table cells (`GET /x`), and in tables by a Method column × a Path column. */
function documentedRoutes(markdown: string): DocRoute[] {
  const out: DocRoute[] = [];
  const add = (methods: string, base: SurfaceBase | null, paths: string[]) => {
    for (const method of methods.match(new RegExp(`\\b${METHOD}\\b`, 'g')) ?? [])
      for (const path of paths) out.push({ method, base, path });
  };
  const text = prose(markdown);
  const lines = text.split('\n');
  const inline = (chunk: string, base: SurfaceBase | null = null) => {
    for (const m of chunk.matchAll(INLINE_RE)) add(m[1]!, baseOf(m[2]) ?? base, normalise(m[3]!));
  };
  // Prose: each paragraph as one line, so a route broken over two lines still reads.
  inline(
    lines
      .map((l) => (l.startsWith('|') ? '\n' : l))
      .join('\n')
      .replace(/\n[ \t]*(?=\S)/g, ' '),
  );
  let header: ReturnType<typeof tableBase> | null = null;
  for (const line of lines) {
    if (!line.startsWith('|')) {
      header = null;
      continue;
    }
    if (!header) {
      header = tableBase(line);
      continue;
    }
    inline(line, header.base);
    const cells = cellsOf(line);
    const methodCell = cells.findIndex((c) => new RegExp(`^${METHOD}\\b`).test(c));
    if (methodCell < 0) continue;
    const tokens = cells
      .filter((_, i) => i !== methodCell)
      .map((c) => [...c.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.split(' ')[0]!).filter((t) => PATH_TOKEN_RE.test(t)))
      .find((t) => t.length > 0);
    if (!tokens) continue;
    // A cell lists a path, then relatives of it: `…/:id/revoke` or `/unban` (a child or a sibling).
    let previous = '';
    let rowBase = header.base;
    const paths = tokens.flatMap((token, i) => {
      const [, marker, written] = PATH_TOKEN_RE.exec(token)!;
      rowBase ??= baseOf(marker);
      const absolute = written!.startsWith('…') ? [] : normalise(written!, header!.prefix);
      const relatives = i === 0 ? [] : ancestorsOf(previous).flatMap((a) => normalise(written!.replace(/^…/, '')).map((p) => a + p));
      if (i === 0 && written!.startsWith('…')) absolute.push(...normalise(written!));
      previous = absolute[0] ?? relatives[relatives.length - 1] ?? previous;
      return [...absolute, ...relatives];
    });
    add(cells[methodCell]!, rowBase, paths);
  }
  return out;
}

const ancestorsOf = (path: string) => path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));

interface TableRoute {
  surface: string;
  base: SurfaceBase;
  method: string;
  path: string;
  summary: string;
}

function tableRoutes(): TableRoute[] {
  const tables: Record<string, { method: string; path: string; endpoint?: { summary?: string } }[]> = {
    bapi: bapiRoutes,
    fapi: fapiRoutes,
    dashboard: dashboardRoutes,
    oidc: oidcRoutes,
    lti: ltiRoutes,
    sso: ssoRoutes,
    portal: portalRoutes,
    scim: scimRoutes,
    ops: inspectRoutes(createOps(h.runtime.deps, h.runtime.database, null)).filter((r) => !r.isMiddleware),
  };
  expect(Object.keys(tables).sort(), 'every surface of the registry has its table here').toEqual(SURFACES.map((s) => s.name).sort());
  const routes = SURFACES.flatMap((s) =>
    tables[s.name]!.map((r) => ({
      surface: s.name,
      base: s.base,
      method: r.method,
      path: (s.base === 'fapi_url' ? r.path.slice(FAPI_BASE.length) || '/' : r.path).replace(/:[A-Za-z_]+/g, ':'),
      summary: r.endpoint?.summary ?? '',
    })),
  );
  // Every line of a surface's dialect table is a path its clients call: named with its method too.
  const dialects = { bapi: bapiClerkLines, fapi: fapiClerkLines };
  const lines = Object.entries(dialects).flatMap(([name, table]) =>
    table.map((l) => ({
      surface: `${name} (Clerk dialect)`,
      base: SURFACES.find((s) => s.name === name)!.base,
      method: l.method,
      path: l.path.replace(/:[A-Za-z_]+/g, ':'),
      summary: l.to ? `Clerk's name of ${l.to.method} ${l.to.path}` : 'answered in Clerk’s shape',
    })),
  );
  return [...routes, ...lines];
}

describe('docs', () => {
  it('keeps README short: what it is, the commands, the configuration, where to read on', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('has no dead relative link or anchor in README.md and docs/', () => {
    const dead: string[] = [];
    for (const file of DOC_FILES) {
      for (const target of linksOf(read(file))) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const dest = path ? relative(ROOT, resolve(dirname(join(ROOT, file)), decodeURIComponent(path))) : file;
        if (!existsSync(join(ROOT, dest))) dead.push(`${file}: ${target} (no ${dest})`);
        else if (
          anchor !== undefined &&
          !(statSync(join(ROOT, dest)).isFile() && dest.endsWith('.md') && anchorsOf(read(dest)).has(anchor))
        )
          dead.push(`${file}: ${target} (no heading #${anchor} in ${dest})`);
      }
    }
    expect(dead).toEqual([]);
  });

  it('names every route of every surface, with its method, in the reference', () => {
    const routes = tableRoutes();
    expect(routes.length).toBeGreaterThan(400);
    const documented = DOC_FILES.flatMap((f) => documentedRoutes(read(f)));
    // A path both bases serve (BAPI and FAPI organizations) counts for the FAPI only where the text says `{fapi_url}`.
    const servedOn = (method: string, path: string, base: SurfaceBase) =>
      routes.some((r) => r.method === method && r.path === path && r.base === base);
    const names = (r: TableRoute) => (d: DocRoute) => {
      if (d.method !== r.method) return false;
      const other: SurfaceBase = r.base === 'fapi_url' ? 'public_url' : 'fapi_url';
      if (d.base ? d.base !== r.base : servedOn(r.method, r.path, other) && r.base === 'fapi_url') return false;
      if (!d.path.includes('…')) return d.path === r.path;
      const [head, tail] = [d.path.slice(0, d.path.lastIndexOf('…')), d.path.slice(d.path.lastIndexOf('…') + 1)];
      return /\/[^/:]/.test(tail) && r.path.startsWith(head.replace(/\/$/, '')) && r.path.endsWith(tail);
    };
    const missing = routes
      .filter((r) => !(`${r.method} ${r.path}` in UNDOCUMENTED) && !documented.some(names(r)))
      .map((r) => `${r.surface} ${r.method} ${r.path} — ${r.summary}`);
    expect(missing).toEqual([]);
    for (const name of Object.keys(UNDOCUMENTED))
      expect(
        routes.map((r) => `${r.method} ${r.path}`),
        `${name} is still a route`,
      ).toContain(name);
  });
});
