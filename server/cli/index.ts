import pino from 'pino';
import { ConfigError, loadConfig } from '../config';
import { DataDirInUseError, readLiveLock } from '../db/embedded-lock';
import { createRuntime } from '../runtime';
import { argvForServer, runCommand, type CliResult } from './commands';

async function throughServer(port: number, token: string, argv: string[]): Promise<CliResult | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/internal/cli`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ argv }),
    });
    if (!res.ok) return null;
    return (await res.json()) as CliResult;
  } catch {
    return null;
  }
}

async function main(argv: string[]): Promise<number> {
  let config;
  try {
    config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    throw e;
  }
  let result: CliResult | null = null;
  if (!config.DATABASE_URL) {
    // The embedded store belongs to one process: a running server does the work for us.
    const lock = readLiveLock(config.DATA_DIR);
    if (lock?.port && lock.token) {
      result = await throughServer(lock.port, lock.token, argvForServer(argv, { env: process.env, cwd: process.cwd() }));
      if (!result) {
        process.stderr.write(
          `A Latchkey server (pid ${lock.pid}) holds ${config.DATA_DIR} but did not answer on port ${lock.port}. ` +
            'Stop it and run the command again, or set DATABASE_URL to use PostgreSQL.\n',
        );
        return 1;
      }
    }
  }
  if (!result) {
    let runtime;
    try {
      runtime = await createRuntime(config, { logDestination: pino.destination(2) });
    } catch (e) {
      if (e instanceof DataDirInUseError) {
        process.stderr.write(`${e.message}\n`);
        return 1;
      }
      throw e;
    }
    try {
      result = await runCommand(runtime.deps, argv, {
        progress: (line) => process.stderr.write(`${line}\n`),
        env: process.env,
        cwd: process.cwd(),
      });
    } finally {
      await runtime.close();
    }
  }
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  return result.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
