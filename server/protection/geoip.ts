import { readFileSync } from 'node:fs';
import { Reader, type CountryResponse } from 'mmdb-lib';
import { ConfigError } from '../config';
import type { GeoIpLookup } from '../deps';

export interface GeoIpDatabase {
  lookup: GeoIpLookup;
  /** The database's own type and build date, for the start-up log line. */
  databaseType: string;
  builtAt: Date;
}

/**
 * Country lookups from a MaxMind DB file (GEOIP_DATABASE: GeoLite2-Country, GeoIP2-Country or
 * City, or any .mmdb with `country.iso_code` records), read once into memory. An address the
 * database does not cover, or that does not parse, has no country.
 */
export function openGeoIpDatabase(path: string): GeoIpDatabase {
  let reader: Reader<CountryResponse>;
  try {
    reader = new Reader<CountryResponse>(readFileSync(path));
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration:\n  GEOIP_DATABASE: ${path} cannot be read as a MaxMind database (${(err as Error).message})`,
    );
  }
  const lookup: GeoIpLookup = (ip) => {
    try {
      const found = reader.get(ip);
      return found?.country?.iso_code ?? found?.registered_country?.iso_code ?? null;
    } catch {
      return null;
    }
  };
  return { lookup, databaseType: reader.metadata.databaseType, builtAt: reader.metadata.buildEpoch };
}
