import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One naming rule for endpoints (docs/development.md, "House checks"): an endpoint of a set is
 * named by its verb (`users.create`, a member of `userEndpointsFor(…)`'s object); one standing
 * alone is `<verb><Noun>Endpoint` (`createSignInTokenEndpoint`), so a route table line says which
 * it mounts.
 */
const ROOT = resolve(__dirname, '..');
const FILES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'server'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

describe('endpoint names', () => {
  it('a standalone endpoint ends in Endpoint; a member of a set is its verb, without the suffix', () => {
    const wrong: string[] = [];
    let standalone = 0;
    let members = 0;
    for (const file of FILES) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        const alone = /^export const (\w+)(?:: [^=]+)? = endpoint</.exec(line);
        if (alone) {
          standalone += 1;
          if (!alone[1]!.endsWith('Endpoint')) wrong.push(`${file}:${i + 1} ${alone[1]} (standalone: <verb><Noun>Endpoint)`);
        }
        const member = /^\s+(\w+): endpoint</.exec(line);
        if (member) {
          members += 1;
          if (member[1]!.endsWith('Endpoint')) wrong.push(`${file}:${i + 1} ${member[1]} (a set's member: its verb)`);
        }
      });
    }
    expect(wrong).toEqual([]);
    expect(standalone).toBeGreaterThanOrEqual(0);
    expect(members).toBeGreaterThan(100);
  });
});
