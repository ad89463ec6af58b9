import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../api';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { completeAnswer, renderAnswer, setAnswerHeader } from './answer-headers';

/**
 * The answer's headers travel as a plain object to one `new Response` (answer-headers.ts): over a
 * real socket, as `npm run api` serves them, every header must still be there, each once, cookies
 * as separate Set-Cookie lines; and the request's own headers must be read from Node's request.
 */
const h = sharedHarness();
const i = sharedInstance(h);

interface RawResponse {
  status: number;
  /** Every header line, in order, names lower-cased. */
  lines: [string, string][];
  headers: Record<string, string>;
  body: string;
}

/** One request written as bytes on a fresh connection (`Connection: close`); the answer as sent. */
function send(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const lines = headerLines.map((l): [string, string] => [
        l.slice(0, l.indexOf(':')).toLowerCase(),
        l.slice(l.indexOf(':') + 1).trim(),
      ]);
      resolve({ status: Number(statusLine.split(' ')[1]), lines, headers: Object.fromEntries(lines), body: rest.join('\r\n\r\n') });
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.write(request);
  });
}

async function listen(listener: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const SECURITY = ['x-content-type-options', 'referrer-policy', 'x-frame-options', 'content-security-policy'];

function expectOnce(res: RawResponse, names: string[]) {
  for (const name of names) expect(res.lines.filter(([n]) => n === name).length, name).toBe(1);
}

describe('the API over a socket: headers read from Node, answers written from a plain object', () => {
  let api: { server: Server; port: number };
  beforeAll(async () => {
    api = await listen(getRequestListener(createApiHandler(h.runtime)));
  });
  afterAll(() => new Promise<void>((resolve) => api.server.close(() => resolve())));

  it('a BAPI 200 carries its request id, every security header and the rate-limit headers, each once', async () => {
    const created = await h.call('POST', '/v1/users', { key: i.secret, body: { email_address: ['lean@example.com'] } });
    expect(created.status).toBe(200);
    const userId = (created.body as { id: string }).id;
    // Header names in any case, as a client may send them; the request id given is kept.
    const res = await send(
      api.port,
      `GET /v1/users/${userId} HTTP/1.1\r\nHost: localhost:3000\r\nAUTHORIZATION: Bearer ${i.secret}\r\nX-Request-Id: req_given_12345\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ id: userId });
    expect(res.headers['x-request-id']).toBe('req_given_12345');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['ratelimit-limit']).toMatch(/^\d+$/);
    expectOnce(res, ['x-request-id', 'content-type', 'content-length', 'ratelimit-limit', ...SECURITY]);
  });

  it('a BAPI error carries them too, in the surface protocol', async () => {
    const res = await send(api.port, `GET /v1/users/user_nobody HTTP/1.1\r\nHost: localhost:3000\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(401);
    const body = JSON.parse(res.body) as { errors: { code: string }[]; trace_id: string };
    expect(body.errors[0]!.code).toBe('UNAUTHENTICATED');
    expect(res.headers['x-request-id']).toBe(body.trace_id);
    expectOnce(res, ['x-request-id', 'content-type', ...SECURITY]);
  });

  it('a FAPI answer to an allowed origin carries CORS, vary and cache-control beside the rest', async () => {
    const res = await send(
      api.port,
      `GET /fapi/${i.instanceId}/v1/environment HTTP/1.1\r\nHost: localhost:3000\r\nOrigin: http://localhost:3000\r\n` +
        `X-Publishable-Key: ${i.publishableKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers.vary).toBe('Origin');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expectOnce(res, ['access-control-allow-origin', 'vary', 'cache-control', 'x-request-id', ...SECURITY]);
  });

  it('a FAPI 404 (no route) still gets CORS and the security headers', async () => {
    const res = await send(
      api.port,
      `GET /fapi/${i.instanceId}/v1/no-such-thing HTTP/1.1\r\nHost: localhost:3000\r\nOrigin: http://localhost:3000\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(res.headers.vary).toBe('Origin');
    expectOnce(res, ['x-request-id', ...SECURITY]);
  });
});

describe('renderAnswer and completeAnswer', () => {
  let app: { server: Server; port: number };
  beforeAll(async () => {
    const hono = new Hono();
    hono.use('*', async (c, next) => {
      setAnswerHeader(c, 'X-Set-Early', 'early');
      setAnswerHeader(c, 'set-cookie', 'a=1; Path=/');
      setAnswerHeader(c, 'set-cookie', 'b=2; Path=/', { append: true });
      setAnswerHeader(c, 'vary', 'Origin', { append: true });
      setAnswerHeader(c, 'vary', 'Accept', { append: true });
      await next();
      completeAnswer(c, c.res, { 'x-default': 'd', 'x-overridden': 'default' });
    });
    hono.get('/rendered', (c) =>
      renderAnswer(c, 201, 'hi', { 'Content-Type': 'text/plain', 'X-Overridden': 'mine' }, { 'x-default': 'd', 'x-overridden': 'default' }),
    );
    hono.get('/one-cookie', (c) => {
      setAnswerHeader(c, 'set-cookie', 'only=1');
      return renderAnswer(c, 200, null, undefined, {});
    });
    hono.get('/own', (c) => c.json({ own: true }, 418, { 'x-overridden': 'own' }));
    app = await listen(getRequestListener(hono.fetch));
  });
  afterAll(() => new Promise<void>((resolve) => app.server.close(() => resolve())));

  const get = (path: string) => send(app.port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);

  it('a rendered answer: defaults, then the headers set on the answer, then its own; every cookie on a line of its own', async () => {
    const res = await get('/rendered');
    expect(res.status).toBe(201);
    expect(res.body).toBe('hi');
    expect(res.headers['x-set-early']).toBe('early');
    expect(res.headers['x-default']).toBe('d');
    expect(res.headers['x-overridden']).toBe('mine');
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.headers.vary).toBe('Origin, Accept');
    expect(res.lines.filter(([n]) => n === 'set-cookie').map(([, v]) => v)).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expectOnce(res, ['x-overridden', 'content-type', 'x-default', 'x-set-early']);
  });

  it('a set-cookie without append replaces the cookies before it', async () => {
    const res = await get('/one-cookie');
    expect(res.lines.filter(([n]) => n === 'set-cookie').map(([, v]) => v)).toEqual(['only=1']);
  });

  it('an answer made elsewhere gets the headers set on the answer and the defaults where it has none of that name', async () => {
    const res = await get('/own');
    expect(res.status).toBe(418);
    expect(JSON.parse(res.body)).toEqual({ own: true });
    expect(res.headers['x-overridden']).toBe('own');
    expect(res.headers['x-default']).toBe('d');
    expect(res.headers['x-set-early']).toBe('early');
    expect(res.lines.filter(([n]) => n === 'set-cookie').map(([, v]) => v)).toEqual(['a=1; Path=/', 'b=2; Path=/']);
  });
});
