import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, setGlobalDispatcher } from 'undici';

// The spec's own fetches open a connection each. With keep-alive, a request sent just as the
// server closes an idle connection (its keep-alive timeout) fails with "other side closed": the
// client's idle timer is coarse and fires late when the runner is busy (twice in one CI run).
setGlobalDispatcher(new Agent({ pipelining: 0 }));

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3210);
export const E2E_BASE_URL = `http://localhost:${E2E_PORT}`;
/** One per port: runs on different E2E_PORTs (several people share a tree) keep their own state, log and traces. */
export const RUN_DIR = path.resolve('e2e/.run', String(E2E_PORT));
export const STATE_FILE = path.join(RUN_DIR, 'state.json');
export const SCREENSHOT_DIR = path.resolve('e2e/screenshots');
/** The loopback DNS server global setup starts (TXT records for domain verification), and the file of its records. */
export const E2E_DNS_PORT = E2E_PORT + 1;
export const DNS_RECORDS_FILE = path.join(RUN_DIR, 'dns.json');

/** What global setup learnt from the server it started. */
export type RunState = { baseUrl: string; dataDir: string; setupUrl: string };

export function runState(): RunState {
  return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as RunState;
}

/** The environment the server runs with, which the CLI needs too. */
export function serverEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(E2E_PORT),
    HOST: '127.0.0.1',
    PUBLIC_URL: E2E_BASE_URL,
    DATA_DIR: dataDir,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    // Test instances may deliver webhooks to a receiver the spec starts on 127.0.0.1.
    ALLOW_PRIVATE_WEBHOOK_TARGETS: '1',
    // Domain verification asks the specs' DNS server (e2e/support/global-setup.ts).
    DNS_RESOLVER: `127.0.0.1:${E2E_DNS_PORT}`,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return env;
}
