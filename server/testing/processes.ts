import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { exited } from './deployment';
import { asAdmin as asAdminOf, databaseUrl } from './postgres-admin';
import { required } from './requirements';

/**
 * Real server processes (`npm run api`, `npm run worker`) on a fresh PostgreSQL database: the
 * embedded store is single-process, so these tests always use PostgreSQL (DATABASE_URL, or the
 * local server CI and the dev machines run). `name` tells the skip notice and the database apart.
 */
export async function processDatabase(name: string) {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const dbName = `latchkey_${name.replace(/\W/g, '_')}_${randomBytes(6).toString('hex')}`;
  const asAdmin = asAdminOf.bind(null, adminUrl);
  // On a PostgreSQL run, the migrated template of the global setup: the servers find nothing to migrate.
  const template = process.env.DATABASE_URL ? inject('postgresTemplate') : null;
  const reachable = await asAdmin((admin) => admin`select 1`, 3).then(
    () => true,
    () => false,
  );
  const available = required(`PostgreSQL at ${adminUrl}`, reachable, `the ${name} tests`);
  const children: ChildProcess[] = [];
  return {
    available,
    dbUrl: databaseUrl(adminUrl, dbName),
    encryptionKey: randomBytes(32).toString('hex'),
    create: () => asAdmin((admin) => admin.unsafe(`create database ${dbName}${template ? ` template ${template}` : ''}`)),
    /** Starts `script` with node --import tsx (not the tsx CLI: it runs the script in a grandchild a kill would not reach). */
    spawn(script: string, env: Record<string, string>): ChildProcess {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      return child;
    },
    async killAll() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await Promise.all(children.map(exited));
    },
    drop: () => asAdmin((admin) => admin.unsafe(`drop database if exists ${dbName} with (force)`)),
  };
}
