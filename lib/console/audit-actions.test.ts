import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitAction } from './audit-actions';

/** Every audit action the server writes (`action: 'x.y'` in its sources, tests aside). */
function serverActions(): string[] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !full.includes(`${path.sep}testing${path.sep}`)) {
        for (const m of readFileSync(full, 'utf8').matchAll(/action: '([a-z_]+\.[a-z_.]+)'/g)) found.add(m[1]!);
      }
    }
  };
  walk(path.resolve('server'));
  return [...found].sort();
}

describe('audit action labels', () => {
  const actions = serverActions();

  it('finds the actions the server writes', () => {
    expect(actions).toContain('user.banned');
    expect(actions.length).toBeGreaterThan(100);
  });

  for (const locale of ['en', 'fr', 'de']) {
    it(`names the resource and the verb of every action in ${locale}`, () => {
      const audit = (
        JSON.parse(readFileSync(path.resolve(`messages/${locale}/console.json`), 'utf8')) as {
          audit: { resources: Record<string, string>; verbs: Record<string, string> };
        }
      ).audit;
      const missing = actions.flatMap((a) => {
        const { resource, verb } = splitAction(a);
        return [
          ...(audit.resources[resource] ? [] : [`resource ${resource}`]),
          ...(!verb || audit.verbs[verb] ? [] : [`verb ${verb} (${a})`]),
        ];
      });
      expect([...new Set(missing)]).toEqual([]);
    });
  }
});
