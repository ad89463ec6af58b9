import type { Deps } from '../deps';
import { parseIpBytes } from '../infra/ssrf';

/**
 * A small User-Agent parser for the major browsers and operating systems, enough to name
 * a device ("Chrome 131 on macOS"). Order matters: many browsers also claim to be Chrome
 * and Safari, so the more specific tokens are tried first.
 */

type DeviceType = 'desktop' | 'mobile' | 'tablet' | 'unknown';

export interface ParsedUserAgent {
  browserName: string | null;
  browserVersion: string | null;
  osName: string | null;
  deviceType: DeviceType;
  isMobile: boolean;
}

/** [browser name, pattern capturing its major version]: first match wins. */
const BROWSERS: [string, RegExp][] = [
  ['Edge', /\b(?:Edg|EdgA|EdgiOS|Edge)\/(\d+)/],
  ['Opera', /\b(?:OPR|OPT|OPiOS)\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /\b(?:Chrome|CriOS)\/(\d+)/],
  ['Safari', /\bVersion\/(\d+)(?:\.\d+)*(?: Mobile\/\w+)? Safari\//],
];

/** [os name, pattern]: first match wins. */
const OSES: [string, RegExp][] = [
  ['iPadOS', /\biPad\b/],
  ['iOS', /\b(?:iPhone|iPod)\b/],
  ['Android', /\bAndroid\b/],
  ['ChromeOS', /\bCrOS\b/],
  ['Windows', /\bWindows\b/],
  ['macOS', /\bMac OS X\b|\bMacintosh\b/],
  ['Linux', /\bLinux\b/],
];

export function parseUserAgent(ua: string | null | undefined): ParsedUserAgent {
  const none: ParsedUserAgent = { browserName: null, browserVersion: null, osName: null, deviceType: 'unknown', isMobile: false };
  if (!ua) return none;
  let browserName: string | null = null;
  let browserVersion: string | null = null;
  for (const [name, re] of BROWSERS) {
    const m = re.exec(ua);
    if (m) {
      browserName = name;
      browserVersion = m[1] ?? null;
      break;
    }
  }
  const osName = OSES.find(([, re]) => re.test(ua))?.[0] ?? null;
  const deviceType = deviceTypeOf(ua, osName);
  return { browserName, browserVersion, osName, deviceType, isMobile: deviceType === 'mobile' };
}

function deviceTypeOf(ua: string, osName: string | null): DeviceType {
  if (osName === 'iPadOS' || /\bTablet\b/.test(ua)) return 'tablet';
  if (osName === 'iOS') return 'mobile';
  // Android phones say "Mobile"; Android tablets do not.
  if (osName === 'Android') return /\bMobile\b/.test(ua) ? 'mobile' : 'tablet';
  if (/\bMobi/.test(ua)) return 'mobile';
  if (osName) return 'desktop';
  return 'unknown';
}

/** "Firefox on macOS", for a person reading an email: the browser and system, or what is known of them. */
export function describeDevice(userAgent: string | null | undefined): string {
  const ua = parseUserAgent(userAgent);
  return ua.browserName ? `${ua.browserName}${ua.osName ? ` on ${ua.osName}` : ''}` : (ua.osName ?? 'An unknown device');
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** The /24 of an IPv4 address or the /48 of an IPv6 one (IPv4-mapped IPv6 counts as IPv4); null when not an address. */
export function networkOf(ip: string): string | null {
  let bytes = parseIpBytes(ip);
  if (!bytes) return null;
  const mapped = bytes.length === 16 && bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) bytes = bytes.subarray(12);
  return bytes.length === 4 ? `${bytes.subarray(0, 3).join('.')}.0/24` : `${hex(bytes.subarray(0, 6)).replace(/(.{4})(?!$)/g, '$1:')}::/48`;
}

/**
 * When, from where and on what a request was made, for an email to tell its reader (a
 * sign-in link: "requested … from … on …"): the time in UTC, the network (/24, /48) and —
 * with a GeoIP lookup — its country, and the device its User-Agent names.
 */
export function describeRequest(deps: Pick<Deps, 'clock' | 'geoip'>, origin: { ip?: string | null; userAgent?: string | null }) {
  const network = origin.ip ? networkOf(origin.ip) : null;
  const country = origin.ip && deps.geoip ? deps.geoip(origin.ip) : null;
  const location = `${network ?? 'unknown'}${country ? ` (${country.toUpperCase()})` : ''}`;
  return { time: new Date(deps.clock.now()).toUTCString(), location, device: describeDevice(origin.userAgent) };
}
