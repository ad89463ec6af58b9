import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { getRequestListener } from '@hono/node-server';
import next from 'next';
import { createApiHandler } from '../api';
import { destinationOf } from '../api/surfaces';
import { CUSTOM_DOMAIN_INSTANCE_HEADER } from '../../lib/fapi/hosted-base';
import { boot } from './boot';
import { buildIsCurrent, writeStamp } from './build-stamp';
import { createHttpServer } from './http-server';

/**
 * `npm start`: API prefixes go straight to the Hono routers (~50 µs of overhead instead of
 * a Next.js route handler's ~1.4 ms); everything else to Next.js. With DATABASE_URL it runs
 * one HTTP worker per core (WEB_CONCURRENCY) on one port; this process is then their primary
 * and the workers do what follows.
 */
const booted = await boot();
if (!booted) await new Promise<never>(() => {});
const { config, runtime, serve, ordinal } = booted!;
const log = runtime.deps.logger;
const apiListener = getRequestListener(createApiHandler(runtime));

type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
let nextHandler: NextHandler | null = null;
let nextFailed = false;

async function build(): Promise<void> {
  if (buildIsCurrent()) return;
  if (ordinal !== 0) {
    // Worker 0 builds; the others wait for its stamp.
    log.info('waiting for HTTP worker 0 to build the console');
    while (!buildIsCurrent()) await new Promise((resolve) => setTimeout(resolve, 5000));
    return;
  }
  log.info('building the console (its sources changed since the last build; the API is already serving)');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve('node_modules/next/dist/bin/next'), 'build'], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build exited with ${code}`))));
  });
  writeStamp();
}

async function startConsole() {
  await build();
  const app = next({ dev: false, dir: process.cwd() });
  await app.prepare();
  const handle = app.getRequestHandler();
  nextHandler = (req, res) => handle(req, res);
  log.info('console ready');
}

startConsole().catch((err: unknown) => {
  nextFailed = true;
  log.error({ err }, 'the console could not start; the API keeps serving');
});

const server = serve(
  createHttpServer(async (req, res) => {
    const pathname = (req.url ?? '/').split('?')[0]!;
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    // Only this server names the custom-domain instance to Next.js (proxy.ts rewrites by it).
    delete req.headers[CUSTOM_DOMAIN_INSTANCE_HEADER];
    const destination = await destinationOf(runtime.deps, header, pathname).catch((err: unknown) => {
      log.error({ err }, 'custom domain lookup failed');
      return null;
    });
    if (!destination) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' });
      return void res.end('The service is not ready.\n');
    }
    if (destination.to === 'api') return void apiListener(req, res);
    if (destination.customDomainInstance) req.headers[CUSTOM_DOMAIN_INSTANCE_HEADER] = destination.customDomainInstance;
    if (nextHandler) return void nextHandler(req, res);
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '10' });
    res.end(nextFailed ? 'The console failed to start; see the server log.\n' : 'The console is starting. Refresh in a moment.\n');
  }, log),
);
server.listen(config.PORT, config.HOST, () => {
  log.info({ port: config.PORT, url: config.PUBLIC_URL, ordinal }, 'Latchkey listening');
});
