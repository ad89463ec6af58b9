import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { buildCountryMmdb } from '../testing/mmdb';
import { openGeoIpDatabase } from './geoip';

/** GEOIP_DATABASE: a MaxMind DB file read by mmdb-lib, here a small one written for the test. */
const dir = mkdtempSync(path.join(tmpdir(), 'latchkey-geoip-'));
const file = path.join(dir, 'country.mmdb');
writeFileSync(file, buildCountryMmdb({ '203.0.113.0/24': 'FR', '198.51.100.0/24': 'DE', '2001:db8::/32': 'JP' }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openGeoIpDatabase', () => {
  it('answers the country of IPv4 and IPv6 addresses, null for the rest', () => {
    const db = openGeoIpDatabase(file);
    expect(db.databaseType).toBe('Latchkey-Test-Country');
    expect(['203.0.113.9', '198.51.100.200', '2001:db8::1', '8.8.8.8', '2606:4700::1', 'not-an-ip'].map(db.lookup)).toEqual([
      'FR',
      'DE',
      'JP',
      null,
      null,
      null,
    ]);
  });

  it('refuses a file that is not a MaxMind database, naming the variable', () => {
    const bad = path.join(dir, 'bad.mmdb');
    writeFileSync(bad, 'not a database');
    expect(() => openGeoIpDatabase(bad)).toThrow(/GEOIP_DATABASE: .*bad\.mmdb cannot be read as a MaxMind database/);
    expect(() => openGeoIpDatabase(path.join(dir, 'missing.mmdb'))).toThrow(/GEOIP_DATABASE/);
  });
});

describe('GEOIP_DATABASE', () => {
  const h = sharedHarness({ env: { GEOIP_DATABASE: file } });
  const i = sharedInstance(h);

  it('turns on country lookups for risk-based MFA', async () => {
    expect((await h.call('GET', '/v1/risk_based_mfa', { key: i.secret })).body).toMatchObject({ geoip_enabled: true });
    expect(h.runtime.deps.geoip?.('203.0.113.1')).toBe('FR');
  });
});
