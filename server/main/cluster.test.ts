import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config';
import { drainServer, httpWorkerCount } from './cluster';

describe('HTTP workers per node', () => {
  it('one per core on PostgreSQL unless WEB_CONCURRENCY says otherwise; one on the embedded store', () => {
    const pg = 'postgres://x@localhost/db';
    expect(httpWorkerCount({ DATABASE_URL: pg, WEB_CONCURRENCY: undefined }, 8)).toBe(8);
    expect(httpWorkerCount({ DATABASE_URL: pg, WEB_CONCURRENCY: 3 }, 8)).toBe(3);
    expect(httpWorkerCount({ DATABASE_URL: undefined, WEB_CONCURRENCY: undefined }, 8)).toBe(1);
    expect(httpWorkerCount({ DATABASE_URL: undefined, WEB_CONCURRENCY: 1 }, 8)).toBe(1);
  });

  it('refuses several workers on the embedded store, naming the variable and the way out', () => {
    const run = () => httpWorkerCount({ DATABASE_URL: undefined, WEB_CONCURRENCY: 4 }, 8);
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(/WEB_CONCURRENCY.*single-process.*DATABASE_URL/s);
  });
});

async function listening(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('draining on shutdown', () => {
  it('finishes a request in flight, refuses new connections, and resolves true', async () => {
    const { server, url } = await listening((_req, res) => setTimeout(() => res.end('done'), 300));
    const inFlight = fetch(url).then(async (r) => ({ status: r.status, body: await r.text() }));
    await new Promise((r) => setTimeout(r, 50));
    const drained = drainServer(server, 5000);
    await new Promise((r) => setTimeout(r, 20));
    await expect(fetch(url)).rejects.toThrow();
    expect(await inFlight).toEqual({ status: 200, body: 'done' });
    expect(await drained).toBe(true);
  });

  it('cuts a request that outlives the bound and resolves false', async () => {
    const { server, url } = await listening(() => {
      // Never answers.
    });
    const inFlight = fetch(url).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    expect(await drainServer(server, 200)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await inFlight).toBe('cut');
  });
});
