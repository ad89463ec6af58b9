import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { openPglite, openPostgres, type Database } from '../db/client';
import { asAdmin, databaseUrl } from './postgres-admin';

let pgliteDump: Blob | undefined;

/**
 * A fresh, migrated database for one test file: in-memory PGlite, or with DATABASE_URL
 * (as in CI) a new database on that server, dropped at close. Both are copies of the
 * template the global setup migrated once per run (server/testing/global-setup.ts).
 */
export async function openTestDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const dumpFile = inject('pgliteDump');
    if (!dumpFile) return migrated(await openPglite(null));
    pgliteDump ??= new Blob([readFileSync(dumpFile)]);
    return openPglite(null, { loadDataDir: pgliteDump });
  }
  const name = `latchkey_test_${randomBytes(6).toString('hex')}`;
  const template = inject('postgresTemplate');
  await asAdmin(url, (admin) => admin.unsafe(`create database ${name}${template ? ` template ${template}` : ''}`));
  const db = openPostgres(databaseUrl(url, name), { max: 5 });
  if (!template) await db.migrate();
  return {
    ...db,
    async close() {
      await db.close();
      await asAdmin(url, (admin) => admin.unsafe(`drop database if exists ${name} with (force)`));
    },
  };
}

async function migrated(db: Database): Promise<Database> {
  await db.migrate();
  return db;
}
