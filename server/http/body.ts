import type { Context } from 'hono';
import { AppError } from './errors';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface ParsedBody {
  raw: string;
  value: unknown;
}

async function readLimited(c: Context): Promise<string> {
  const length = c.req.header('content-length');
  const declared = Number(length ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  // A declared length within the limit is enforced by Node's HTTP parser: read it whole,
  // which skips the web-stream wrapping of the socket.
  if (length !== undefined && Number.isInteger(declared)) return declared === 0 ? '' : c.req.raw.text();
  const stream = c.req.raw.body;
  if (!stream) return '';
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = () =>
  new AppError('PAYLOAD_TOO_LARGE', { message: `The request body exceeds ${MAX_BODY_BYTES} bytes.` });

export type BodyMedia = 'json' | 'form' | 'scim';

const MEDIA_TYPES: Record<BodyMedia, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  scim: 'application/scim+json',
};

/**
 * Form fields as an object. With `strict` (OAuth, LTI: RFC 6749 §3.1 says request
 * parameters must not be included more than once) a repeated field is refused;
 * otherwise the last one wins.
 */
export function formFields(raw: string, strict: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    if (strict && Object.hasOwn(out, k)) {
      throw new AppError('MALFORMED_REQUEST', { message: `The parameter ${k} is repeated.`, meta: { param: k, reason: 'repeated_parameter' } });
    }
    out[k] = v;
  }
  return out;
}

/**
 * Reads a body in one of the surface's media types (JSON also as any `+json` type). An
 * empty body is `{}` so that action routes (`POST .../ban`) need none.
 */
export async function parseBody(c: Context, media: readonly BodyMedia[], opts: { strictForm?: boolean } = {}): Promise<ParsedBody> {
  const raw = await readLimited(c);
  if (raw.trim() === '') return { raw, value: {} };
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      return { raw, value: JSON.parse(raw) };
    } catch {
      throw new AppError('MALFORMED_REQUEST', { message: 'The request body is not valid JSON.' });
    }
  }
  if (media.includes('form') && type === MEDIA_TYPES.form) return { raw, value: formFields(raw, opts.strictForm ?? false) };
  throw new AppError('UNSUPPORTED_MEDIA_TYPE', {
    message: `Send the body as ${media.map((m) => MEDIA_TYPES[m]).join(' or ')}.`,
    meta: { content_type: type || null },
  });
}
