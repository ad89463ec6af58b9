import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One naming rule for endpoints (docs/development.md, "House checks"): every endpoint is a member
 * of a resource's set, named by its verb (`users.create`, `signIns.attemptFirstFactor`), so a
 * route table line reads `resource.verb`. No endpoint stands alone as an exported constant, and
 * no exported constant or member is named `…Endpoint`.
 */
const ROOT = resolve(__dirname, '..');
const FILES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'server'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

describe('endpoint names', () => {
  it('every endpoint is a member of a set, named by its verb; none stands alone', () => {
    const wrong: string[] = [];
    let members = 0;
    for (const file of FILES) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        const alone = /^export const (\w+)(?:: [^=]+)? = (?:endpoint<|\{\s*$|\w+\()/.exec(line);
        if (alone && (line.includes('= endpoint<') || alone[1]!.endsWith('Endpoint'))) {
          wrong.push(`${file}:${i + 1} ${alone[1]} (an endpoint is a member of a set: resource.verb)`);
        }
        const member = /^\s+(\w+): (?:endpoint<|\w*Endpoints?\w*[<(])/.exec(line);
        if (member?.[0].endsWith('endpoint<')) members += 1;
        if (member && member[1]!.endsWith('Endpoint')) wrong.push(`${file}:${i + 1} ${member[1]} (a set's member: its verb)`);
      });
    }
    expect(wrong).toEqual([]);
    expect(members).toBeGreaterThan(300);
  });
});
