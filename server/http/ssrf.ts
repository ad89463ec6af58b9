import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has (IPv4 and IPv6). Injectable so tests can point names anywhere. */
export type DnsResolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: DnsResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Addresses an outbound request must never reach: loopback, private, link-local, unique-local, metadata, reserved. */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local (fd00::/8 included)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['fd00:ec2::254', 128], // AWS metadata over IPv6 (inside fc00::/7, listed for the record)
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address carried inside an IPv4-mapped (::ffff:a.b.c.d), -compatible or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const m = /^(?:::ffff:|::|64:ff9b::)(?:0:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (m) return m[1]!;
  // The hex spelling (::ffff:7f00:1) of the same addresses.
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** True when the address is one an outbound request must not reach. Anything unparseable counts as forbidden. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4) return blocked.check(v4, 'ipv4');
    return blocked.check(bare, 'ipv6');
  }
  return true;
}

export interface TargetPolicy {
  /** Loopback/private targets allowed (test instances with ALLOW_PRIVATE_WEBHOOK_TARGETS=1). */
  allowPrivate: boolean;
  /** Only https:// (live instances). */
  requireHttps: boolean;
}

export type TargetRefusal = 'invalid_url' | 'scheme_not_allowed' | 'https_required' | 'credentials_not_allowed' | 'private_address' | 'unresolvable';

export class TargetRefused extends Error {
  constructor(readonly reason: TargetRefusal, message: string) {
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
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TargetRefused('scheme_not_allowed', 'Only http and https URLs are allowed.');
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
