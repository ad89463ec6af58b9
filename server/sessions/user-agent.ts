/**
 * A small User-Agent parser for the major browsers and operating systems, enough to name
 * a device ("Chrome 131 on macOS"). Order matters: many browsers also claim to be Chrome
 * and Safari, so the more specific tokens are tried first.
 */

export type DeviceType = 'desktop' | 'mobile' | 'tablet' | 'unknown';

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
