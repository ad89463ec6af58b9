/**
 * `npm run bench:clerk-import`: 10,000 users of a Clerk export (server/testing/clerk-export.ts:
 * shared bcrypt digests, every tenth user with a TOTP secret, several addresses per cell) imported
 * by the CLI in a child process, as an operator runs it, on a fresh embedded store (DATA_DIR) and,
 * when DATABASE_URL is set, on a fresh PostgreSQL database of that server. The bar: under a
 * minute. Reported per store: the whole command (process start, migrations check, reading the file)
 * and the import alone (from the last progress line), then a second run (everything unchanged).
 * BENCH_CLERK_USERS changes the size. Prints a table and one JSON line; writes
 * bench/results/clerk-import.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliProcess, generateClerkCsv } from '../server/testing/clerk-export';
import { asAdmin, databaseUrl } from '../server/testing/postgres-admin';

const size = Number(process.env.BENCH_CLERK_USERS ?? 10_000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'latchkey-bench-clerk-'));
const file = path.join(dir, 'users.csv');
const generated = generateClerkCsv(size);
writeFileSync(file, generated.csv);

interface Result {
  store: string;
  users: number;
  command_s: number;
  import_s: number;
  rerun_s: number;
  created: number;
  skipped: number;
}

async function measure(store: string, env: Record<string, string>): Promise<Result> {
  const cli = cliProcess({ ...env, ENCRYPTION_KEY: randomBytes(32).toString('hex') });
  try {
    const created = await cli.run(['instance', 'create', '--name', 'Bench', '--json']);
    if (created.code !== 0) throw new Error(created.stderr);
    const instanceId = JSON.parse(created.stdout).instance_id as string;
    const timed = async () => {
      const started = performance.now();
      const run = await cli.run(['import', 'clerk', file, '--instance', instanceId, '--json']);
      if (run.code !== 0) throw new Error(run.stderr);
      const importSeconds = Number(/ ([\d.]+) s$/m.exec(run.stderr.trim().split('\n').at(-1) ?? '')?.[1]);
      return { seconds: (performance.now() - started) / 1000, importSeconds, report: JSON.parse(run.stdout) };
    };
    const first = await timed();
    const second = await timed();
    if (second.report.users.unchanged !== first.report.users.created)
      throw new Error(`the second run changed something: ${JSON.stringify(second.report.users)}`);
    return {
      store,
      users: size,
      command_s: Number(first.seconds.toFixed(1)),
      import_s: first.importSeconds,
      rerun_s: Number(second.seconds.toFixed(1)),
      created: first.report.users.created,
      skipped: first.report.users.skipped,
    };
  } finally {
    cli.killAll();
  }
}

const results: Result[] = [];
try {
  results.push(await measure('pglite', { DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '' }));
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const name = `latchkey_bench_clerk_${randomBytes(6).toString('hex')}`;
    await asAdmin(adminUrl, (admin) => admin.unsafe(`create database ${name}`));
    try {
      results.push(await measure('postgres', { DATABASE_URL: databaseUrl(adminUrl, name) }));
    } finally {
      await asAdmin(adminUrl, (admin) => admin.unsafe(`drop database if exists ${name} with (force)`));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const columns = ['store', 'users', 'command_s', 'import_s', 'rerun_s', 'created', 'skipped'] as const;
process.stdout.write(`${columns.join('\t')}\n${results.map((r) => columns.map((c) => r[c]).join('\t')).join('\n')}\n`);
process.stdout.write(`${JSON.stringify({ benchmark: 'clerk-import', cpus: os.availableParallelism(), results })}\n`);
const out = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'clerk-import.json'), `${JSON.stringify({ cpus: os.availableParallelism(), results }, null, 2)}\n`);
