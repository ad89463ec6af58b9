import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('configuration', () => {
  it('has defaults that need nothing installed', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 3000, DATA_DIR: './data', PUBLIC_URL: 'http://localhost:3000', TRUST_PROXY: false });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('derives PUBLIC_URL from PORT and trims a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).PUBLIC_URL).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://auth.example.com/' }).PUBLIC_URL).toBe('https://auth.example.com');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://x'],
    ['ENCRYPTION_KEY', 'short'],
    ['PUBLIC_URL', 'ftp://x'],
    ['TRUST_PROXY', 'maybe'],
    ['METRICS_TOKEN', 'short'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('turns private outbound targets on with ALLOW_PRIVATE_TARGETS or its former name', () => {
    expect(loadConfig({}).ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(loadConfig({ ALLOW_PRIVATE_TARGETS: '1' }).ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(loadConfig({ ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' }).ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(() => loadConfig({ ALLOW_PRIVATE_TARGETS: 'maybe' })).toThrow(/ALLOW_PRIVATE_TARGETS/);
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });
});
