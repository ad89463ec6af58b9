import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../api';
import { sharedHarness } from '../testing/harness';
import { logSink } from '../testing/log-sink';
import { createHttpServer } from './http-server';

const { lines, sink } = logSink();

const h = sharedHarness({ env: { LOG_LEVEL: 'info' }, logDestination: sink });
let server: Server;
let port: number;
beforeAll(async () => {
  server = createHttpServer(getRequestListener(createApiHandler(h.runtime)), h.runtime.deps.logger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent before it closed the connection. */
  raw: string;
}

/** Sends bytes as they are and reads until the server closes the connection. */
function send(request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    // The server may close before it has read all of an oversized request.
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? undefined : reject(e)));
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), raw });
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.write(request);
  });
}

function expectJsonError(res: RawResponse, status: number, code: string) {
  expect(res.status, res.raw.slice(0, 300)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers.connection).toBe('close');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  const body = JSON.parse(res.body) as { errors: { code: string; message: string; meta: object }[]; trace_id: string };
  expect(Object.keys(body).sort()).toEqual(['errors', 'trace_id']);
  expect(body.errors[0]).toMatchObject({ code, message: expect.any(String), meta: {} });
  expect(body.trace_id).toMatch(/^req_/);
  expect(res.headers['x-request-id']).toBe(body.trace_id);
  return body;
}

describe('requests refused by the HTTP parser', () => {
  it('a request line over 16 KiB: 431 with the JSON error body', async () => {
    lines.length = 0;
    const res = await send(`GET /v1/users?query=${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    const body = expectJsonError(res, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
    expect(res.raw.startsWith('HTTP/1.1 431 Request Header Fields Too Large\r\n')).toBe(true);
    // Logged with the same id, and nothing of the request.
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.req_id === body.trace_id);
    expect(entry).toMatchObject({ status: 431, reason: 'HPE_HEADER_OVERFLOW' });
  });

  it('headers over 16 KiB (a huge cookie): 431 too', async () => {
    const res = await send(`GET /v1/users HTTP/1.1\r\nHost: localhost\r\nCookie: a=${'b'.repeat(20 * 1024)}\r\n\r\n`);
    expectJsonError(res, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
  });

  it('a malformed request line or header: 400 MALFORMED_REQUEST', async () => {
    for (const request of [
      'NOT AN HTTP REQUEST\r\n\r\n',
      'GET /v1/users HTTP/9.9\r\nHost: localhost\r\n\r\n',
      'GET /v1/users HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n',
      'POST /v1/users HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}',
    ]) {
      expectJsonError(await send(request), 400, 'MALFORMED_REQUEST');
    }
  });

  it('a malformed chunk in the body of a request being handled: 400 MALFORMED_REQUEST, nothing stored', async () => {
    const { secret } = await h.createInstance();
    lines.length = 0;
    const res = await send(
      `POST /v1/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\n` +
        'Transfer-Encoding: chunked\r\n\r\n5\r\n{"use\r\nZZ\r\n',
    );
    expectJsonError(res, 400, 'MALFORMED_REQUEST');
    const list = await h.call('GET', '/v1/users', { key: secret });
    expect(list.body.data).toEqual([]);
    // The handler, left waiting for the rest of the body, ends as a 400 too, not a 500.
    await expect
      .poll(() => lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.method === 'POST'), { timeout: 5_000 })
      .toMatchObject({ status: 400 });
    expect(lines.join('\n')).not.toContain('unhandled error');
  });

  it('an ordinary request still reaches the router, and the server keeps serving after refusals', async () => {
    const aborted = connect(port, '127.0.0.1');
    // A client that sends an oversized request and disappears must not break anything.
    await new Promise<void>((resolve) => aborted.write(`GET /${'x'.repeat(40 * 1024)}`, () => resolve()));
    aborted.destroy();
    const res = await send('GET /v1/users HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).errors[0].code).toBe('UNAUTHENTICATED');
  });

  it('pipelined after a good request, the refusal comes after the answer to it', async () => {
    const res = await send(
      'GET /v1/users HTTP/1.1\r\nHost: localhost\r\n\r\n' +
        `GET /v1/users?query=${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    expect(res.status).toBe(401);
    const second = res.raw.indexOf('HTTP/1.1 431 ');
    expect(second).toBeGreaterThan(0);
    expect(res.raw.slice(second)).toContain('"code":"REQUEST_HEADER_FIELDS_TOO_LARGE"');
  });
});
