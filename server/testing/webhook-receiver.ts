import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

type Reply = (req: ReceivedWebhook, res: ServerResponse) => void;

/** A local webhook subscriber: records every request and answers with the current `reply` (200 by default). */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  reply: Reply;
  /** Resolves with the next request that arrives. */
  next(): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

export const answer =
  (status: number, body = '', headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const waiters: ((r: ReceivedWebhook) => void)[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    reply: answer(200, 'ok'),
    next: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: ReceivedWebhook = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      receiver.received.push(got);
      waiters.splice(0).forEach((w) => w(got));
      receiver.reply(got, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** Verifies a delivery with the `standardwebhooks` package (a third-party verifier); throws when it does not verify. */
export function verifyDelivery(secret: string, got: Pick<ReceivedWebhook, 'headers' | 'body'>): unknown {
  const h = got.headers;
  return new Webhook(secret).verify(got.body, {
    'webhook-id': String(h['webhook-id']),
    'webhook-timestamp': String(h['webhook-timestamp']),
    'webhook-signature': String(h['webhook-signature']),
  });
}
