import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** What the first start printed, and where the API listens. */
export interface StartedApi {
  /** http://localhost:<port>: the PUBLIC_URL, and the backend API's base URL. */
  url: string;
  port: number;
  instanceId: string;
  publishableKey: string;
  fapiUrl: string;
  secretKey: string;
  /** Everything the process wrote so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

const field = (out: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(out)?.[1];

/**
 * The API as a customer starts it (`npm run api`): a child process on a free port, the
 * embedded store in a fresh data directory. Answers the instance and keys of its first-start
 * banner once it prints them (the HTTP server listens by then).
 * `script` may name `server/main/start.ts` (the console too; needs a build).
 */
export async function startApi(o: { script?: string; env?: Record<string, string> } = {}): Promise<StartedApi> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'latchkey-sdk-'));
  const url = `http://localhost:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...o.env,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  // node --import tsx, not the tsx CLI: a kill must reach the server itself.
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', o.script ?? 'server/main/api.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const banner = new Promise<StartedApi>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const [instanceId, publishableKey, fapiUrl, secretKey] = ['Instance', 'Publishable key', 'FAPI URL', 'Secret key'].map((l) =>
        field(out, l),
      );
      if (instanceId && publishableKey && fapiUrl && secretKey && out.includes('Console:')) {
        resolve({ url, port, instanceId, publishableKey, fapiUrl, secretKey, output: () => out, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`the API exited before it was ready:\n${out}`)));
    setTimeout(() => reject(new Error(`the API printed no first-start banner within 90 s:\n${out}`)), 90_000).unref();
  });
  try {
    const started = await banner;
    await untilAnswering(`${url}/v1/users`);
    return started;
  } catch (e) {
    await stop();
    throw e;
  }
}

async function untilAnswering(url: string) {
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}
