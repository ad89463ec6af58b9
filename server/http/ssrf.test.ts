import { describe, expect, it } from 'vitest';
import { checkTargetUrl, isForbiddenAddress, resolveTarget, TargetRefused } from './ssrf';

const strict = { allowPrivate: false, requireHttps: false };

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '::1', '::', 'fd00::1', 'fc00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
    '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::127.0.0.1', 'fd00:ec2::254', 'ff02::1', 'not-an-ip',
  ])('refuses %s', (ip) => expect(isForbiddenAddress(ip)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1', '100.128.0.1'])('allows %s', (ip) =>
    expect(isForbiddenAddress(ip)).toBe(false),
  );
});

describe('checkTargetUrl / resolveTarget', () => {
  it('refuses any private address a name resolves to, even beside a public one', async () => {
    const url = checkTargetUrl('https://mixed.test/hook', strict);
    const resolve = async () => [{ address: '93.184.216.34', family: 4 as const }, { address: '10.0.0.5', family: 4 as const }];
    await expect(resolveTarget(url, strict, resolve)).rejects.toMatchObject({ reason: 'private_address' });
  });

  it('returns the checked address to connect to', async () => {
    const url = checkTargetUrl('https://ok.test/hook', strict);
    expect(await resolveTarget(url, strict, async () => [{ address: '93.184.216.34', family: 4 }])).toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('lets private addresses through only with allowPrivate', async () => {
    const url = checkTargetUrl('http://127.0.0.1:9/x', { allowPrivate: true, requireHttps: false });
    expect(await resolveTarget(url, { allowPrivate: true, requireHttps: false }, async () => [])).toEqual({ address: '127.0.0.1', family: 4 });
    expect(() => checkTargetUrl('http://127.0.0.1:9/x', strict)).toThrow(TargetRefused);
  });

  it('an unresolvable name is refused at delivery', async () => {
    await expect(resolveTarget(new URL('https://nowhere.test/'), strict, async () => [])).rejects.toMatchObject({ reason: 'unresolvable' });
  });
});
