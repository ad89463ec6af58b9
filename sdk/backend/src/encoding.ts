/** Runtime-neutral helpers (no Buffer, no node: imports): base64url and JSON of JWT segments. */
const decoder = new TextDecoder();
export const encoder = new TextEncoder();

type BufferLike = { from(s: string, enc: 'base64url'): Uint8Array<ArrayBuffer>; byteLength(s: string, enc: 'base64url'): number };
/** Node and Bun's Buffer when present (faster), without importing it. */
const NativeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function base64UrlToBytes(s: string): Uint8Array<ArrayBuffer> {
  if (!BASE64URL.test(s)) throw new Error('not base64url');
  if (NativeBuffer) return NativeBuffer.from(s, 'base64url');
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export const base64UrlJson = (s: string): unknown => JSON.parse(decoder.decode(base64UrlToBytes(s)));

export function base64UrlDecodeString(s: string): string {
  return decoder.decode(base64UrlToBytes(s));
}

/** `pk_<env>_` + base64url(`<fapi host and path>$`): the FAPI URL a publishable key names. */
export function fapiUrlFromPublishableKey(publishableKey: string): string {
  const m = /^pk_(test|live)_([A-Za-z0-9_-]+)$/.exec(publishableKey);
  const decoded = m ? base64UrlDecodeString(m[2]!) : '';
  if (!decoded.endsWith('$') || decoded.length < 2) throw new Error('Not a Latchkey publishable key (pk_test_… or pk_live_…).');
  const hostAndPath = decoded.slice(0, -1);
  const host = hostAndPath.split('/')[0]!.split(':')[0]!;
  const local = host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost');
  return `${local ? 'http' : 'https'}://${hostAndPath}`;
}
