import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode } from '../http/errors';
import { newId } from '../db/ids';
import type { Logger } from '../infra/logger';

/** Request line plus headers, in bytes: Node's default, set here so NODE_OPTIONS can't change it unseen. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The Node HTTP server of `npm start` and `npm run api`. A request Node's parser refuses
 * before any handler sees it (request line and headers over 16 KiB, a malformed request
 * line or header) is answered with our JSON error body instead of Node's bare status line.
 */
export function createHttpServer(listener: RequestListener, logger: Logger): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, listener);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => onClientError(err, socket, logger));
  return server;
}

const CODE_OF_PARSER_ERROR: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'PAYLOAD_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

type InFlight = {
  headersSent: boolean;
  writableFinished: boolean;
  req?: { complete: boolean };
  once(event: 'finish' | 'close', fn: () => void): unknown;
};

function onClientError(err: NodeJS.ErrnoException, socket: Socket, logger: Logger): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const inFlight = (socket as Socket & { _httpMessage?: InFlight | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    if (inFlight.req?.complete === false) {
      // The error is in the body of the request being handled (a bad chunk): answer it,
      // unless its response has started, and close the socket, which also ends the
      // handler's wait for the rest of the body.
      if (inFlight.headersSent) socket.destroy();
      else refuse(err, socket, logger);
      return;
    }
    // A later, pipelined request failed while the answer to an earlier one is being
    // written: Node's own handler would write ours ahead of it if it hasn't started.
    // Wait for it, so the answers stay in order.
    let done = false;
    const after = () => {
      if (done) return;
      done = true;
      refuse(err, socket, logger);
    };
    inFlight.once('finish', after);
    inFlight.once('close', after);
    return;
  }
  refuse(err, socket, logger);
}

function refuse(err: NodeJS.ErrnoException, socket: Socket, logger: Logger): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const error = new AppError(CODE_OF_PARSER_ERROR[err.code ?? ''] ?? 'MALFORMED_REQUEST');
  const requestId = newId('req');
  const body = JSON.stringify({ errors: error.entries(), trace_id: requestId });
  logger.info({ req_id: requestId, status: error.status, reason: err.code ?? null }, 'request refused by the HTTP parser');
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      'cache-control: no-store\r\n' +
      'connection: close\r\n\r\n' +
      body,
  );
  // The rest of the request may still be arriving; don't keep the socket open for it.
  socket.setTimeout(5_000, () => socket.destroy());
}
