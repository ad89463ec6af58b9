import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDnsServer } from '../../server/testing/dns-server';
import { DNS_RECORDS_FILE, E2E_BASE_URL, E2E_DNS_PORT, RUN_DIR, SCREENSHOT_DIR, STATE_FILE, serverEnv, type RunState } from './server';

const START_TIMEOUT_MS = 5 * 60_000; // npm start builds the console first when its sources changed

/**
 * Starts `npm start` on a fresh embedded store, waits until the console answers,
 * and keeps the one-time setup link it prints on first start.
 */
export default async function globalSetup() {
  mkdirSync(RUN_DIR, { recursive: true });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // TXT records the specs publish (name → values) in DNS_RECORDS_FILE, read at each question.
  writeFileSync(DNS_RECORDS_FILE, '{}');
  const dns = await startDnsServer((name) => {
    const records = existsSync(DNS_RECORDS_FILE) ? (JSON.parse(readFileSync(DNS_RECORDS_FILE, 'utf8')) as Record<string, string[][]>) : {};
    return records[name];
  }, E2E_DNS_PORT);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'latchkey-e2e-'));
  const log = createWriteStream(path.join(RUN_DIR, 'server.log'));
  const server = spawn(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), 'server/main/start.ts'], {
    env: serverEnv(dataDir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  let output = '';
  const setupUrl = new Promise<string>((resolve) => {
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      output += chunk.toString();
      const match = output.match(/https?:\/\/\S+\/setup\?token=[\w%-]+/);
      if (match) resolve(match[0]);
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
  });
  const exited = new Promise<never>((_, reject) =>
    server.on('exit', (code) => reject(new Error(`the server exited with ${code}; see ${path.join(RUN_DIR, 'server.log')}`))),
  );

  let url: string;
  try {
    url = await Promise.race([setupUrl, exited, timeout('the setup link')]);
    await Promise.race([consoleReady(), exited, timeout('the console')]);
  } catch (error) {
    server.kill('SIGTERM'); // never leave a server behind a failed start
    await dns.close();
    throw error;
  }

  const state: RunState = { baseUrl: E2E_BASE_URL, dataDir, setupUrl: url };
  writeFileSync(STATE_FILE, JSON.stringify(state));

  return async () => {
    server.kill('SIGTERM');
    await dns.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    log.end();
  };
}

async function consoleReady(): Promise<void> {
  for (;;) {
    try {
      const response = await fetch(`${E2E_BASE_URL}/sign-in`, { redirect: 'manual' });
      if (response.status !== 503) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function timeout(what: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), START_TIMEOUT_MS).unref());
}
