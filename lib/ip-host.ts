/** The host of a URL when it is an IP address (IPv4 or a bracketed IPv6), else null: browsers refuse WebAuthn there. */
export function ipHostOf(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  if (host.startsWith('[') && host.endsWith(']')) return host;
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? host : null;
}
