import { describe, expect, it } from 'vitest';
import { checkTargetUrl, isForbiddenAddress, parseIpBytes, resolveTarget, TargetRefused } from './ssrf';

const strict = { allowPrivate: false, requireHttps: false };

describe('parseIpBytes', () => {
  const hex = (ip: string) => Buffer.from(parseIpBytes(ip) ?? []).toString('hex');

  it('reads every spelling of the same IPv6 address to the same 16 bytes', () => {
    for (const ip of [
      '::127.0.0.1',
      '::7f00:1',
      '0:0:0:0:0:0:7f00:1',
      '0000:0000:0000:0000:0000:0000:127.0.0.1',
      '[::7F00:1]',
      '::7f00:1%eth0',
    ]) {
      expect(hex(ip), ip).toBe('0000000000000000000000007f000001');
    }
    expect(hex('2002:7f00:1::')).toBe('20027f00000100000000000000000000');
    expect(hex('1:2:3:4:5:6:7::')).toBe('00010002000300040005000600070000');
    expect(hex('::')).toBe('0'.repeat(32));
    expect(hex('10.0.0.1')).toBe('0a000001');
  });

  it.each([
    '1::2::3',
    '::ffff:256.0.0.1',
    '12345::',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::8',
    '::1:2:3:4:5:6:1.2.3.4',
    'example.com',
    '',
    '1.2.3',
    '0x7f.1',
  ])('returns null for %j', (ip) => expect(parseIpBytes(ip)).toBeNull());
});

describe('isForbiddenAddress', () => {
  it.each([
    // IPv4 special-purpose ranges
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.1',
    '203.0.113.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    // IPv6 special-purpose ranges
    '::1',
    '::',
    '0::0:1',
    '[::1]',
    'fd00::1',
    'fc00::1',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    'fd00:ec2::254',
    '100::1',
    '2001:db8::1',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
    '3fff::1',
    '5f00::1',
    '4000::1',
    'not-an-ip',
    // IPv4-mapped ::ffff:0:0/96
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:10.1.2.3',
    '::ffff:a9fe:a9fe',
    // IPv4-compatible ::/96, whatever it carries
    '::127.0.0.1',
    '::7f00:1',
    '::a00:1',
    '::169.254.169.254',
    '::8.8.8.8',
    // IPv4-translated (SIIT) ::ffff:0:0:0/96, whatever it carries
    '::ffff:0:7f00:1',
    '::ffff:0:10.0.0.1',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:8.8.8.8',
    // NAT64 well-known prefix 64:ff9b::/96
    '64:ff9b::7f00:1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a00:1',
    '64:ff9b::a9fe:a9fe',
    // NAT64 local-use prefix 64:ff9b:1::/48 (RFC 8215), whatever it carries and where
    '64:ff9b:1::7f00:1',
    '64:ff9b:1::10.0.0.1',
    '64:ff9b:1:a9fe:a9:fe00::',
    '64:ff9b:1::8.8.8.8',
    // 6to4 2002::/16, whatever it carries
    '2002:7f00:1::',
    '2002:a00:1::1',
    '2002:a9fe:a9fe::',
    '2002:808:808::1',
    // Teredo 2001::/32: client 127.0.0.1, 10.0.0.1, 169.254.169.254 (XOR-ed), server 127.0.0.1, and all-public
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:0:4136:e378:8000:63bf:f5ff:fffe',
    '2001:0:4136:e378:8000:63bf:5601:5601',
    '2001:0:7f00:1::f7f7:f7f7',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('refuses %s', (ip) => expect(isForbiddenAddress(ip)).toBe(true));

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '198.20.0.1',
    '2606:4700:4700::1111',
    '[2606:4700:4700::1111]',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    // the IPv4-mapped and NAT64 well-known forms of a public address reach that address
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::808:808',
  ])('allows %s', (ip) => expect(isForbiddenAddress(ip)).toBe(false));
});

describe('checkTargetUrl / resolveTarget', () => {
  it('refuses any private address a name resolves to, even beside a public one', async () => {
    const url = checkTargetUrl('https://mixed.test/hook', strict);
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 as const },
      { address: '10.0.0.5', family: 4 as const },
    ];
    await expect(resolveTarget(url, strict, resolve)).rejects.toMatchObject({ reason: 'private_address' });
  });

  it('refuses a name resolving to an IPv6 address that carries a private IPv4 address', async () => {
    const url = checkTargetUrl('https://v6.test/hook', strict);
    for (const address of [
      '::ffff:7f00:1',
      '::7f00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::7f00:1',
      '2002:7f00:1::',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
    ]) {
      await expect(
        resolveTarget(url, strict, async () => [{ address, family: 6 }]),
        address,
      ).rejects.toMatchObject({ reason: 'private_address' });
    }
  });

  it("refuses the issue's literal URLs before resolving anything", () => {
    for (const raw of [
      'https://[::127.0.0.1]/',
      'https://[64:ff9b:1::7f00:1]/',
      'https://[::ffff:0:7f00:1]/',
      'https://[2002:7f00:1::]/',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    ]) {
      expect(() => checkTargetUrl(raw, strict), raw).toThrow(expect.objectContaining({ reason: 'private_address' }));
    }
  });

  it('returns the checked address to connect to', async () => {
    const url = checkTargetUrl('https://ok.test/hook', strict);
    expect(await resolveTarget(url, strict, async () => [{ address: '93.184.216.34', family: 4 }])).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('lets private addresses through only with allowPrivate', async () => {
    const url = checkTargetUrl('http://127.0.0.1:9/x', { allowPrivate: true, requireHttps: false });
    expect(await resolveTarget(url, { allowPrivate: true, requireHttps: false }, async () => [])).toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    expect(() => checkTargetUrl('http://127.0.0.1:9/x', strict)).toThrow(TargetRefused);
  });

  it('an unresolvable name is refused at delivery', async () => {
    await expect(resolveTarget(new URL('https://nowhere.test/'), strict, async () => [])).rejects.toMatchObject({ reason: 'unresolvable' });
  });
});
