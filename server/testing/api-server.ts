import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll } from 'vitest';
import { createApiHandler } from '../api';
import { createHarness, deferredHarness, notOpenYet, type HarnessOptions, type TestHarness } from './harness';

/**
 * A request listener on a real loopback socket (127.0.0.1, a free port). `host` names it in
 * its URL: `latchkey.localhost` where a browser needs a domain name with a dot (WebAuthn
 * refuses an IP address as its relying party id, Clerk's key parser a host without a dot);
 * browsers resolve every `*.localhost` to the loopback and count it a secure context.
 */
export async function listen(
  handler: RequestListener,
  host: LoopbackName = '127.0.0.1',
): Promise<{ server: Server; port: number; url: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://${host}:${port}`,
    // Clients keep connections alive (fetch's pool): close them, or the server never ends.
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

export type LoopbackName = '127.0.0.1' | 'latchkey.localhost';

export interface ApiServer {
  h: TestHarness;
  /** The API's address, http://127.0.0.1:<port>: PUBLIC_URL, so fapi_urls, publishable keys and token issuers name it. */
  apiUrl: string;
  close(): Promise<void>;
}

/**
 * The API surfaces over a real socket, as `npm run api` serves them (@hono/node-server's
 * listener in front of the same handler), for clients under test with their default options:
 * an SDK's own fetch, a browser. The harness's in-process calls (`h.call`) still work beside it.
 * `beforeRequest` sees each request first (e.g. to give each browser context its own address).
 */
export async function startApiServer(
  o: HarnessOptions & { beforeRequest?: (req: IncomingMessage) => void; host?: LoopbackName } = {},
): Promise<ApiServer> {
  // The address is PUBLIC_URL, known once listening: requests wait for the harness behind it.
  let api: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = await listen((req, res) => {
    o.beforeRequest?.(req);
    api(req, res);
  }, o.host);
  const h = await createHarness({ ...o, env: { PUBLIC_URL: server.url, ...o.env } });
  api = getRequestListener(createApiHandler(h.runtime));
  return {
    h,
    apiUrl: server.url,
    async close() {
      await server.close();
      await h.close();
    },
  };
}

/** The API server of the tests in the enclosing file or describe block, started in its beforeAll and closed in its afterAll. */
export function sharedApiServer(o?: Parameters<typeof startApiServer>[0]): { h: TestHarness; readonly apiUrl: string } {
  let started: ApiServer | undefined;
  beforeAll(async () => {
    started = await startApiServer(o);
  });
  afterAll(() => started?.close());
  const s = () => started ?? notOpenYet();
  return {
    h: deferredHarness(() => s().h),
    get apiUrl() {
      return s().apiUrl;
    },
  };
}
