import type { Context } from 'hono';
import { httpUrl } from './url';

/** Methods that change nothing, so carry no CSRF risk. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The http(s) origin of a URL, or null. */
export function originOf(value: string | undefined): string | null {
  if (!value || value === 'null') return null;
  return httpUrl(value)?.origin ?? null;
}

/** The origin a browser named for this request: `Origin`, or `Referer` when there is no Origin header. */
export const requestOrigin = (c: Context): string | null =>
  c.req.header('origin') !== undefined ? originOf(c.req.header('origin')) : originOf(c.req.header('referer'));
