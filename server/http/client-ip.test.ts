import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config';
import { clientIp } from './request-context';

/** The address clientIp derives for a request from `peer` carrying `forwarded`, under `env`. */
async function derive(env: Record<string, string>, peer: string | undefined, forwarded?: string) {
  const config = loadConfig(env);
  const app = new Hono().get('/', (c) => c.text(clientIp(c, config) ?? 'unknown'));
  const headers: Record<string, string> = forwarded === undefined ? {} : { 'x-forwarded-for': forwarded };
  const res = await app.request('/', { headers }, peer ? { incoming: { socket: { remoteAddress: peer } } } : undefined);
  return res.text();
}

describe('the client address', () => {
  it('is the socket peer without TRUST_PROXY, whatever X-Forwarded-For says', async () => {
    expect(await derive({}, '203.0.113.9', '198.51.100.1')).toBe('203.0.113.9');
    expect(await derive({}, '::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(await derive({}, undefined, '198.51.100.1')).toBe('unknown');
  });

  it('under TRUST_PROXY is the rightmost hop outside the trusted proxies (default: private ranges)', async () => {
    const env = { TRUST_PROXY: '1' };
    expect(await derive(env, '10.0.0.2', '198.51.100.1')).toBe('198.51.100.1');
    expect(await derive(env, '10.0.0.2', '1.1.1.1, 198.51.100.1')).toBe('198.51.100.1');
    expect(await derive(env, '10.0.0.2', '198.51.100.1, 192.168.1.4, 10.0.0.9')).toBe('198.51.100.1');
    // A hop that is no address stops the walk: what lies left of it is the client's to write.
    expect(await derive(env, '10.0.0.2', '198.51.100.1, garbage')).toBe('10.0.0.2');
    // Every hop trusted: the leftmost.
    expect(await derive(env, '10.0.0.2', '10.1.1.1, 10.0.0.9')).toBe('10.1.1.1');
    expect(await derive(env, '10.0.0.2')).toBe('10.0.0.2');
  });

  it('TRUSTED_PROXIES replaces the default list, and a bad entry stops the start naming the variable', async () => {
    const env = { TRUST_PROXY: '1', TRUSTED_PROXIES: '203.0.113.0/24, 2001:db8::/32' };
    expect(await derive(env, '203.0.113.5', '198.51.100.1, 2001:db8::7, 203.0.113.8')).toBe('198.51.100.1');
    // 10.x is no longer trusted: it is the client.
    expect(await derive(env, '203.0.113.5', '198.51.100.1, 10.0.0.9')).toBe('10.0.0.9');
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, nonsense' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, nonsense' })).toThrow(/TRUSTED_PROXIES/);
  });
});
