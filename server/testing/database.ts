import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openPglite, openPostgres, type Database } from '../db/client';

/**
 * A fresh, migrated database for one test file: in-memory PGlite, or with
 * DATABASE_URL (as in CI) a new database on that server, dropped at close.
 */
export async function openTestDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openPglite(null);
    await db.migrate();
    return db;
  }
  const name = `latchkey_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  const db = openPostgres(dbUrl.toString(), { max: 5 });
  await db.migrate();
  return {
    ...db,
    async close() {
      await db.close();
      const cleanup = postgres(url, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
