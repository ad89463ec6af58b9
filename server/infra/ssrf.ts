import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Resolves a host name to every address it has (IPv4 and IPv6). Injectable so tests can point names anywhere. */
export type DnsResolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: DnsResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * An IP address as its bytes: 4 for IPv4, 16 for IPv6 (any spelling: `::` compression, a
 * dotted-quad tail, brackets, a zone). Null when the text is not an IP address.
 */
export function parseIpBytes(address: string): Uint8Array | null {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return Uint8Array.from(bare.split('.'), Number);
  if (family !== 6) return null;
  // isIP has checked the syntax: hex groups of 1–4 digits, at most one `::`, a dotted quad only last.
  const groups = (part: string): number[] =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? pairs(Uint8Array.from(g.split('.'), Number)) : [parseInt(g, 16)]));
  const [head = '', tail] = bare.split('::');
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  if (tail === undefined ? h.length !== 8 : h.length + t.length > 7) return null;
  const all = tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  return Uint8Array.from(all.flatMap((g) => [g >> 8, g & 255]));
}

const pairs = (b: Uint8Array) => [(b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!];

interface Range {
  bytes: Uint8Array;
  bits: number;
}

const range = (cidr: string): Range => {
  const [net, bits] = cidr.split('/');
  return { bytes: parseIpBytes(net!)!, bits: Number(bits) };
};

function within(address: Uint8Array, r: Range): boolean {
  if (address.length !== r.bytes.length) return false;
  for (let i = 0; i * 8 < r.bits; i++) {
    const mask = (0xff << (8 - Math.min(8, r.bits - i * 8))) & 0xff;
    if ((address[i]! & mask) !== (r.bytes[i]! & mask)) return false;
  }
  return true;
}

/**
 * IPv4 ranges that are not globally routable (IANA IPv4 special-purpose registry, plus
 * multicast and the reserved 240/4). A few globally reachable anycast services inside
 * 192.0.0.0/24 are refused with it: no webhook receiver lives there.
 */
const IPV4_NOT_GLOBAL = [
  '0.0.0.0/8', // "this" network
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, incl. 169.254.169.254 metadata
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, incl. 255.255.255.255 broadcast
].map(range);

/** IANA hands out global unicast IPv6 from 2000::/3 only; everything outside it is refused. */
const IPV6_GLOBAL_UNICAST = range('2000::/3');

/**
 * IPv6 forms that carry an IPv4 address in their last 32 bits and reach exactly that IPv4
 * address: they are judged by the address they carry, by the IPv4 rules.
 */
const IPV6_CARRYING_IPV4 = [
  '::ffff:0:0/96', // IPv4-mapped
  '64:ff9b::/96', // NAT64 well-known prefix: what a DNS64 resolver answers for IPv4-only names (RFC 6052 forbids it for non-global IPv4)
].map(range);

/**
 * IPv6 ranges that are refused whatever they carry. The forms that embed an IPv4 address
 * behind a translator or tunnel (IPv4-compatible, SIIT, local-use NAT64, 6to4, Teredo with its
 * server and XOR-ed client address) reach places the IPv4 rules cannot vouch for, and no
 * webhook receiver needs them. Most of these lie outside 2000::/3 and are refused by that
 * rule already; they are listed for the record.
 */
const IPV6_NOT_GLOBAL = [
  '::/128', // unspecified
  '::1/128', // loopback
  '::/96', // IPv4-compatible (deprecated)
  '::ffff:0:0:0/96', // IPv4-translated (SIIT)
  '64:ff9b:1::/48', // NAT64 local-use prefix (RFC 8215)
  '100::/64', // discard-only
  '2001::/23', // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID(v2), …
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  '3fff::/20', // documentation (RFC 9637)
  '5f00::/16', // segment-routing SIDs (RFC 9602)
  'fc00::/7', // unique-local, incl. fd00:ec2::254 (AWS metadata over IPv6)
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated)
  'ff00::/8', // multicast
].map(range);

function isGlobal(address: Uint8Array): boolean {
  if (address.length === 4) return !IPV4_NOT_GLOBAL.some((r) => within(address, r));
  if (IPV6_CARRYING_IPV4.some((r) => within(address, r))) return isGlobal(address.subarray(12));
  return within(address, IPV6_GLOBAL_UNICAST) && !IPV6_NOT_GLOBAL.some((r) => within(address, r));
}

/**
 * True when the address is one an outbound request must not reach: anything not globally
 * routable, judged on the IPv4 address an IPv4-mapped or NAT64 address carries. Anything
 * unparseable counts as forbidden.
 */
export function isForbiddenAddress(address: string): boolean {
  const bytes = parseIpBytes(address);
  return bytes === null || !isGlobal(bytes);
}

export interface TargetPolicy {
  /** Loopback/private targets allowed (test instances with ALLOW_PRIVATE_TARGETS=1). */
  allowPrivate: boolean;
  /** Only https:// (live instances). */
  requireHttps: boolean;
}

export type TargetRefusal =
  'invalid_url' | 'scheme_not_allowed' | 'https_required' | 'credentials_not_allowed' | 'private_address' | 'unresolvable';

export class TargetRefused extends Error {
  constructor(
    readonly reason: TargetRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'TargetRefused';
  }
}

const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, '');

/** Checks the shape of a target URL (scheme, credentials, literal and local names) without resolving it. */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TargetRefused('invalid_url', 'The URL is not valid.');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TargetRefused('scheme_not_allowed', 'Only http and https URLs are allowed.');
  if (policy.requireHttps && u.protocol !== 'https:') throw new TargetRefused('https_required', 'Live instances need an https URL.');
  if (u.username || u.password) throw new TargetRefused('credentials_not_allowed', 'The URL must not carry credentials.');
  if (policy.allowPrivate) return u;
  const host = hostOf(u).toLowerCase().replace(/\.$/, '');
  if (isIP(host) ? isForbiddenAddress(host) : host === 'localhost' || host.endsWith('.localhost')) {
    throw new TargetRefused('private_address', 'The URL points to a private, loopback or link-local address.');
  }
  return u;
}

/**
 * Resolves the URL's host and checks every address it has; returns the one to connect to,
 * so the connection goes to an address that was checked (no DNS rebinding in between).
 */
export async function resolveTarget(u: URL, policy: TargetPolicy, resolve: DnsResolver): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(u);
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal as 4 | 6 }] : await resolve(host).catch(() => []);
  if (addresses.length === 0) throw new TargetRefused('unresolvable', `The host ${host} could not be resolved.`);
  if (!policy.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
    throw new TargetRefused('private_address', `The host ${host} resolves to a private, loopback or link-local address.`);
  }
  return addresses[0]!;
}
