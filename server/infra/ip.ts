import { isIP } from 'node:net';

/** An address as a number of its family's width; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) counts as IPv4. */
export interface ParsedIp {
  family: 4 | 6;
  value: bigint;
}

export interface Cidr {
  family: 4 | 6;
  /** The network address (host bits cleared). */
  network: bigint;
  prefix: number;
}

const bitsOf = (family: 4 | 6) => (family === 4 ? 32 : 128);

function parseV4(s: string): bigint {
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseV6(s: string): bigint {
  let text = s.split('%')[0]!;
  let tail: bigint[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const v4 = parseV4(text.slice(lastColon + 1));
    tail = [v4 >> 16n, v4 & 0xffffn];
    const before = text.slice(0, lastColon);
    text = before.endsWith(':') ? `${before}:` : before;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (g: string | undefined) =>
    g
      ? g
          .split(':')
          .filter((x) => x !== '')
          .map((x) => BigInt(parseInt(x, 16)))
      : [];
  const left = groups(head);
  const right = [...groups(rest), ...tail];
  const fill = rest === undefined ? [] : new Array<bigint>(8 - left.length - right.length).fill(0n);
  return [...left, ...fill, ...right].reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** Parses an IPv4 or IPv6 address (zone ids ignored); null when it is not one. */
export function parseIp(address: string): ParsedIp | null {
  const kind = isIP(address.split('%')[0]!);
  if (kind === 4) return { family: 4, value: parseV4(address) };
  if (kind !== 6) return null;
  const value = parseV6(address);
  if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

/** The canonical text of an address: IPv4-mapped IPv6 becomes dotted IPv4. */
export function normalizeIp(address: string): string | null {
  const ip = parseIp(address);
  if (!ip) return null;
  return formatIp(ip.family, ip.value);
}

function formatIp(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
  const groups = [...Array(8).keys()].map((i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run (≥ 2) of zero groups becomes `::`.
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len && j - i >= 2) best = { at: i, len: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.len).join(':')}`;
}

/** Parses `address/prefix` (or a bare address: one host); the host bits are cleared. Null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined || !address) return null;
  // An IPv4-mapped network is written as IPv6; keep its family as written for the prefix.
  const kind = isIP(address);
  if (kind === 0) return null;
  const family = kind as 4 | 6;
  const value = family === 4 ? parseV4(address) : parseV6(address);
  const bits = bitsOf(family);
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return null;
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  const network = value & mask;
  // An IPv4-mapped IPv6 network (::ffff:0:0/96 and narrower) matches the IPv4 addresses it maps.
  if (family === 6 && prefix >= 96 && network >> 32n === 0xffffn) return { family: 4, network: network & 0xffffffffn, prefix: prefix - 96 };
  return { family, network, prefix };
}

export const formatCidr = (c: Cidr) => `${formatIp(c.family, c.network)}/${c.prefix}`;

export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.family !== ip.family) return false;
  const shift = BigInt(bitsOf(cidr.family) - cidr.prefix);
  return ip.value >> shift === cidr.network >> shift;
}
