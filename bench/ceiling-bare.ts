import { createServer } from 'node:http';

/**
 * Ceiling 1: a bare node:http server answering a fixed JSON body, no routing, no
 * auth, no database. Nothing built on node:http can answer faster on this machine.
 */
const body = JSON.stringify({ object: 'user', id: 'user_fixed', first_name: 'Fixed', email_addresses: [] });
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) };

createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(process.env.PORT ?? 4700), '127.0.0.1');
