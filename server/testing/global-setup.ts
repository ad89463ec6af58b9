import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../db/client';
import { asAdmin, databaseUrl } from './postgres-admin';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite data directory as a tarball on disk (runs on PGlite). */
    pgliteDump: string | null;
    /** The migrated template database on DATABASE_URL's server (runs on PostgreSQL). */
    postgresTemplate: string | null;
  }
}

/**
 * Vitest globalSetup: the migrations run once per `vitest run`, into a template every test
 * database is copied from (server/testing/database.ts), instead of once per test file.
 */
export async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const dir = mkdtempSync(path.join(tmpdir(), 'latchkey-test-'));
    const file = path.join(dir, 'pgdata.tar');
    const db = await openPglite(null);
    try {
      await db.migrate();
      const dump = await db.dumpDataDir!();
      writeFileSync(file, new Uint8Array(await dump.arrayBuffer()));
    } finally {
      await db.close();
    }
    project.provide('pgliteDump', file);
    project.provide('postgresTemplate', null);
    return () => rmSync(dir, { recursive: true, force: true });
  }

  const name = `latchkey_template_${randomBytes(6).toString('hex')}`;
  await asAdmin(url, (admin) => admin.unsafe(`create database ${name}`));
  const db = openPostgres(databaseUrl(url, name), { max: 1 });
  try {
    await db.migrate();
  } finally {
    await db.close();
  }
  project.provide('pgliteDump', null);
  project.provide('postgresTemplate', name);
  return () => asAdmin(url, (admin) => admin.unsafe(`drop database if exists ${name} with (force)`));
}
