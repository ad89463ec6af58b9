import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What the proxy does with one request instead of passing it on. */
export type Fault =
  /** Reads the request and never answers (the client's timeout must end it). */
  | { kind: 'drop' }
  /** Closes the connection without an answer. */
  | { kind: 'close' }
  /** Answers this status itself, with these headers (429 + Retry-After, 503, …). */
  | { kind: 'status'; status: number; headers?: Record<string, string> };

export interface SeenRequest {
  method: string;
  path: string;
  /** performance.now() when the request arrived. */
  at: number;
  idempotencyKey: string | undefined;
  fault: Fault['kind'] | 'passed';
}

/**
 * An HTTP proxy on loopback in front of `upstream` (e.g. a started API), misbehaving on
 * command: each request takes the next queued fault, and passes through when none is queued.
 * `down()` closes the port itself, so connections are refused.
 */
export async function loopbackProxy(upstream: string) {
  const target = new URL(upstream);
  const faults: Fault[] = [];
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();

  const pass = (req: IncomingMessage, res: ServerResponse) => {
    const out = forward(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };

  const server = createServer((req, res) => {
    const fault = faults.shift();
    seen.push({
      method: req.method!,
      path: req.url!,
      at: performance.now(),
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      fault: fault?.kind ?? 'passed',
    });
    if (!fault) return pass(req, res);
    req.resume();
    if (fault.kind === 'drop') return;
    if (fault.kind === 'close') return void req.socket.destroy();
    res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
    res.end(JSON.stringify({ errors: [{ code: 'INJECTED_FAULT', message: `status ${fault.status} from the test proxy`, meta: {} }] }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    /** Queues faults for the next requests, in order. */
    fail(...next: Fault[]) {
      faults.push(...next);
    },
    /** Stops listening and cuts every open connection: the port refuses connections. */
    down(): Promise<void> {
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
export type LoopbackProxy = Awaited<ReturnType<typeof loopbackProxy>>;
