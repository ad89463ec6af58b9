import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

/**
 * A tiny authoritative DNS server over UDP (RFC 1035) for tests: it answers TXT questions
 * from `records` (name → TXT values, each a string of at most 255 bytes per chunk) and
 * NXDOMAIN for any other name. The server under test reaches it through DNS_RESOLVER (or a
 * node:dns Resolver pointed at it), so domain verification makes a real lookup.
 */
export interface DnsServer {
  port: number;
  /** `127.0.0.1:<port>`, as DNS_RESOLVER takes it. */
  address: string;
  close(): Promise<void>;
}

const TYPE_TXT = 16;

function readName(msg: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let at = offset;
  for (;;) {
    const len = msg[at];
    if (len === undefined) throw new Error('truncated');
    if (len === 0) return { name: labels.join('.').toLowerCase(), next: at + 1 };
    if (len >= 0xc0) throw new Error('compressed question names are not expected');
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
}

function txtRdata(values: string[]): Buffer {
  const parts = values.flatMap((v) => {
    const bytes = Buffer.from(v, 'utf8');
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length || i === 0; i += 255) chunks.push(bytes.subarray(i, i + 255));
    return chunks.map((c) => Buffer.concat([Buffer.from([c.length]), c]));
  });
  return Buffer.concat(parts);
}

/** The answer to one query message. */
function dnsAnswer(query: Buffer, records: (name: string) => string[][] | undefined): Buffer {
  const id = query.readUInt16BE(0);
  const { name, next } = readName(query, 12);
  const qtype = query.readUInt16BE(next);
  const question = query.subarray(12, next + 4);
  const found = records(name);
  const answers = qtype === TYPE_TXT && found ? found : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  // QR, opcode 0, AA, RD copied; RA; RCODE 3 (NXDOMAIN) when the name has no records.
  const rd = query[2]! & 0x01;
  header[2] = 0x84 | rd;
  header[3] = 0x80 | (found ? 0 : 3);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  const rrs = answers.map((values) => {
    const rdata = txtRdata(values);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the question's name
    rr.writeUInt16BE(TYPE_TXT, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(5, 6); // TTL
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, question, ...rrs]);
}

/** Starts the server on 127.0.0.1 (`port` 0: any free port). */
export async function startDnsServer(records: (name: string) => string[][] | undefined, port = 0): Promise<DnsServer> {
  const socket: Socket = createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    try {
      socket.send(dnsAnswer(msg, records), rinfo.port, rinfo.address);
    } catch {
      // A message we cannot read gets no answer, as a real server would drop it.
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () => resolve());
  });
  const bound = (socket.address() as AddressInfo).port;
  return {
    port: bound,
    address: `127.0.0.1:${bound}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
