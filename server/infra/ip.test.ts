import { describe, expect, it } from 'vitest';
import { cidrContains, formatCidr, normalizeIp, parseCidr, parseIp } from './ip';

const within = (cidr: string, ip: string) => cidrContains(parseCidr(cidr)!, parseIp(ip)!);

describe('addresses and CIDR blocks', () => {
  it('normalizes IPv4, IPv6 and IPv4-mapped IPv6', () => {
    expect(normalizeIp('203.0.113.9')).toBe('203.0.113.9');
    expect(normalizeIp('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(normalizeIp('::1')).toBe('::1');
    expect(normalizeIp('fe80::1%eth0')).toBe('fe80::1');
    expect(normalizeIp('not an ip')).toBeNull();
    expect(normalizeIp('1.2.3')).toBeNull();
  });

  it('parses blocks, clearing host bits, and refuses malformed ones', () => {
    expect(formatCidr(parseCidr('10.1.2.3/8')!)).toBe('10.0.0.0/8');
    expect(formatCidr(parseCidr('2001:db8:abcd::1/48')!)).toBe('2001:db8:abcd::/48');
    expect(formatCidr(parseCidr('198.51.100.7')!)).toBe('198.51.100.7/32');
    expect(formatCidr(parseCidr('::ffff:10.0.0.0/104')!)).toBe('10.0.0.0/8');
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', '10.0.0.0/8/8', 'host/8', '10.0.0.0/-1', '']) {
      expect(parseCidr(bad), bad).toBeNull();
    }
  });

  it('matches addresses of the block and family only', () => {
    expect(within('10.0.0.0/8', '10.200.3.4')).toBe(true);
    expect(within('10.0.0.0/8', '11.0.0.1')).toBe(false);
    expect(within('10.0.0.0/8', '::ffff:10.9.9.9')).toBe(true);
    expect(within('2001:db8::/32', '2001:db8:ffff::42')).toBe(true);
    expect(within('2001:db8::/32', '2001:db9::1')).toBe(false);
    expect(within('2001:db8::/32', '10.0.0.1')).toBe(false);
    expect(within('0.0.0.0/0', '8.8.8.8')).toBe(true);
    expect(within('::/0', '2606:4700::1111')).toBe(true);
    expect(within('::/0', '8.8.8.8')).toBe(false);
  });
});
