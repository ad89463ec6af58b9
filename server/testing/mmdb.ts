import { isIPv4 } from 'node:net';
import { parseIpBytes } from '../infra/ssrf';

/**
 * A tiny MaxMind DB (the .mmdb format of GeoLite2-Country and GeoIP2-Country) written for
 * tests: an IPv6 search tree with IPv4 networks under ::/96 as MaxMind lays them out, 24-bit
 * records, and `{country: {iso_code}}` records, so the real reader (mmdb-lib) reads it as it
 * reads MaxMind's files.
 */

type Value = string | number | bigint | Value[] | { [key: string]: Value };

/** A control byte (and its extensions) for `type` with a payload or element count of `size`. */
function control(type: number, size: number): Buffer {
  const typeBits = type <= 7 ? type << 5 : 0;
  const ext = type > 7 ? [type - 7] : [];
  if (size < 29) return Buffer.from([typeBits | size, ...ext]);
  if (size < 285) return Buffer.from([typeBits | 29, ...ext, size - 29]);
  return Buffer.from([typeBits | 30, ...ext, (size - 285) >> 8, (size - 285) & 255]);
}

function uint(type: number, n: bigint): Buffer {
  const bytes: number[] = [];
  for (let v = n; v > 0n; v >>= 8n) bytes.unshift(Number(v & 255n));
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encode(v: Value): Buffer {
  if (typeof v === 'string') {
    const s = Buffer.from(v, 'utf8');
    return Buffer.concat([control(2, s.length), s]);
  }
  if (typeof v === 'bigint') return uint(9, v);
  if (typeof v === 'number') return uint(v < 65536 ? 5 : 6, BigInt(v));
  if (Array.isArray(v)) return Buffer.concat([control(11, v.length), ...v.map(encode)]);
  const entries = Object.entries(v);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, x]) => [encode(k), encode(x)])]);
}

type Record24 = { node: number } | { data: number } | null;

/** `networks`: CIDR blocks (IPv4 or IPv6) → ISO 3166-1 alpha-2 country codes. */
export function buildCountryMmdb(networks: Record<string, string>): Buffer {
  const nodes: [Record24, Record24][] = [[null, null]];
  const chunks: Buffer[] = [];
  const offsets = new Map<string, number>();
  let dataSize = 0;
  for (const [cidr, iso] of Object.entries(networks)) {
    const [net, len] = cidr.split('/');
    const v4 = isIPv4(net!);
    const bytes = parseIpBytes(net!)!;
    const bits = [
      ...(v4 ? new Array<number>(96).fill(0) : []),
      ...[...bytes].flatMap((b) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (b >> i) & 1)),
    ];
    const prefix = (v4 ? 96 : 0) + Number(len);
    if (!offsets.has(iso)) {
      const encoded = encode({ country: { iso_code: iso } });
      offsets.set(iso, dataSize);
      chunks.push(encoded);
      dataSize += encoded.length;
    }
    let at = 0;
    for (let depth = 0; depth < prefix - 1; depth++) {
      const side = bits[depth]!;
      const next = nodes[at]![side];
      if (next && 'node' in next) at = next.node;
      else {
        nodes.push([null, null]);
        nodes[at]![side] = { node: nodes.length - 1 };
        at = nodes.length - 1;
      }
    }
    nodes[at]![bits[prefix - 1]!] = { data: offsets.get(iso)! };
  }
  const count = nodes.length;
  const value = (r: Record24) => (r === null ? count : 'node' in r ? r.node : count + 16 + r.data);
  const tree = Buffer.alloc(count * 6);
  nodes.forEach(([l, r], i) => {
    tree.writeUIntBE(value(l), i * 6, 3);
    tree.writeUIntBE(value(r), i * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: count,
    record_size: 24,
    ip_version: 6,
    database_type: 'Latchkey-Test-Country',
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: BigInt(Math.floor(Date.now() / 1000)),
    description: { en: 'Latchkey test country database' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...chunks, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), metadata]);
}
