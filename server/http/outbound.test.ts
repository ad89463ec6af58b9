import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedRequest, OutboundTimeout } from './outbound';
import { TargetRefused } from '../infra/ssrf';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hang') return; // never answers
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`host=${req.headers.host}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const base = { headers: {}, body: '{}', maxResponseBytes: 4096, resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] };
const allow = { allowPrivate: true, requireHttps: false };

describe('guardedRequest', () => {
  it('gives up after the timeout', async () => {
    const started = Date.now();
    await expect(guardedRequest({ ...base, url: `http://127.0.0.1:${port}/hang`, timeoutMs: 200, policy: allow })).rejects.toBeInstanceOf(
      OutboundTimeout,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('connects to the resolved address and keeps the name in Host', async () => {
    const res = await guardedRequest({ ...base, url: `http://hooks.example:${port}/`, timeoutMs: 5000, policy: allow });
    expect(res).toMatchObject({ status: 200, body: `host=hooks.example:${port}` });
  });

  it('refuses before connecting when the name resolves to a private address', async () => {
    await expect(
      guardedRequest({
        ...base,
        url: `http://hooks.example:${port}/`,
        timeoutMs: 5000,
        policy: { allowPrivate: false, requireHttps: false },
      }),
    ).rejects.toBeInstanceOf(TargetRefused);
  });
});
