import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './http/errors';
import { ALL_REASONS, REASONS_BY_DOMAIN } from './reasons';

/**
 * Stable reasons (issue 13): `AppError` and `validationError` type their reason, so the
 * literals checked here are the ones the compiler cannot see: zod rules' `params: { reason }`
 * above all. Each must be registered by its own domain (the directory under server/) or by
 * `http` (a surface's adapters under api/ answer the reasons of the domains they serve), and the "Stable reasons" tables of docs/conventions.md list exactly the registry.
 */
const ROOT = resolve(__dirname);
const LITERAL_RES = [/\b(?:meta|params)\s*:\s*\{[^}]*?\breason\s*:\s*'([^']*)'/g, /\bvalidationError\(\s*[^,]*,\s*'([^']*)'/g];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const literals = sources(ROOT).flatMap((path) => {
  const file = relative(ROOT, path);
  const text = readFileSync(path, 'utf8');
  return LITERAL_RES.flatMap((re) => [...text.matchAll(re)].map((m) => ({ file, reason: m[1]! })));
});

const values = (r: object) => Object.values(r) as string[];

describe('stable reasons', () => {
  it('registers every reason literal of server/ in its domain (or http)', () => {
    expect(literals.length).toBeGreaterThan(80);
    const unregistered = literals.filter(({ file, reason }) => {
      if (file.startsWith('api/')) return !ALL_REASONS.has(reason as never);
      const own = REASONS_BY_DOMAIN[file.split('/')[0] as keyof typeof REASONS_BY_DOMAIN];
      return !values(REASONS_BY_DOMAIN.http).includes(reason) && !(own && values(own).includes(reason));
    });
    expect(unregistered.map(({ file, reason }) => `${file}: ${reason}`)).toEqual([]);
  });

  it('names each reason by itself in its registry', () => {
    for (const list of Object.values(REASONS_BY_DOMAIN)) for (const [key, value] of Object.entries(list)) expect(value).toBe(key);
    expect(ALL_REASONS.size).toBeGreaterThan(100);
  });

  it('lists exactly the registry in docs/conventions.md, one table per domain, with real error codes', () => {
    const doc = readFileSync(resolve(ROOT, '../docs/conventions.md'), 'utf8');
    const section = doc.split('\n## Stable reasons\n')[1]!.split(/\n#{1,2} /)[0]!;
    const tables = Object.fromEntries(
      section
        .split('\n### ')
        .slice(1)
        .map((part) => {
          const domain = /^`(\w+)`/.exec(part)![1]!;
          const rows = [...part.matchAll(/^\| `(\w+)` +\| (.+?) +\|/gm)].map((m) => ({
            reason: m[1]!,
            codes: [...m[2]!.matchAll(/`(\w+)`/g)].map((c) => c[1]!),
          }));
          return [domain, rows] as const;
        }),
    );
    expect(Object.keys(tables).sort()).toEqual(Object.keys(REASONS_BY_DOMAIN).sort());
    for (const [domain, list] of Object.entries(REASONS_BY_DOMAIN)) {
      expect(tables[domain]!.map((r) => r.reason).sort(), domain).toEqual(values(list).sort());
    }
    const codes = Object.values(tables).flatMap((rows) => rows.flatMap((r) => r.codes));
    expect(codes.filter((c) => !(c in ERROR_CODES))).toEqual([]);
  });
});
