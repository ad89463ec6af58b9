import type { Context } from 'hono';
import { AppError, isAppError } from './errors';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface ParsedBody {
  raw: string;
  value: unknown;
}

/** The body's bytes, refusing more than MAX_BODY_BYTES (413). */
async function readLimited(c: Context): Promise<Uint8Array> {
  const body = await bodyWithinLimit(c.req.raw);
  if (!body) throw tooLarge();
  return body;
}

/** The body's bytes, or null when it is more than MAX_BODY_BYTES. */
export async function bodyWithinLimit(req: Request): Promise<Uint8Array<ArrayBuffer> | null> {
  const length = req.headers.get('content-length');
  const declared = Number(length ?? '0');
  if (declared > MAX_BODY_BYTES) return null;
  // A declared length within the limit is enforced by Node's HTTP parser: read it whole,
  // which skips the web-stream wrapping of the socket.
  if (length !== null && Number.isInteger(declared)) return declared === 0 ? new Uint8Array() : new Uint8Array(await req.arrayBuffer());
  const stream = req.body;
  if (!stream) return new Uint8Array();
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', { message: `The request body exceeds ${MAX_BODY_BYTES} bytes.` });

export type BodyMedia = 'json' | 'form' | 'scim' | 'multipart';

const MEDIA_TYPES: Record<BodyMedia, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  scim: 'application/scim+json',
  multipart: 'multipart/form-data',
};

const unreadable = (cause?: unknown) =>
  new AppError('MALFORMED_REQUEST', { message: 'The request body could not be read.', meta: { reason: 'body_unreadable' }, cause });

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a JSON or form body. Invalid UTF-8 is refused (400 MALFORMED_REQUEST,
 * meta.reason `invalid_utf8`) rather than stored as U+FFFD. A leading byte order mark
 * is dropped, as RFC 8259 allows and `Response.json()` does.
 */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalidUtf8();
  }
}

const invalidUtf8 = () =>
  new AppError('MALFORMED_REQUEST', { message: 'The request body is not valid UTF-8.', meta: { reason: 'invalid_utf8' } });

/**
 * application/x-www-form-urlencoded as URLSearchParams reads it (`+` is a space),
 * except that percent-escapes which do not decode to UTF-8 are refused instead of
 * becoming U+FFFD. With `strict` (OAuth, LTI: RFC 6749 §3.1 says request parameters
 * must not be included more than once) a repeated field is refused; otherwise the last
 * one wins.
 */
export function formFields(raw: string, strict: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = percentDecode(eq === -1 ? pair : pair.slice(0, eq));
    const value = percentDecode(eq === -1 ? '' : pair.slice(eq + 1));
    if (strict && Object.hasOwn(out, name)) {
      throw new AppError('MALFORMED_REQUEST', {
        message: `The parameter ${name} is repeated.`,
        meta: { param: name, reason: 'repeated_parameter' },
      });
    }
    out[name] = value;
  }
  return out;
}

function percentDecode(text: string): string {
  if (!text.includes('%')) return text.replaceAll('+', ' ');
  const input = Buffer.from(text.replaceAll('+', ' '), 'utf8');
  const bytes = new Uint8Array(input.length);
  let n = 0;
  for (let i = 0; i < input.length; i++) {
    const hex = input[i] === 0x25 && i + 2 < input.length ? input.toString('latin1', i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes[n++] = parseInt(hex, 16);
      i += 2;
    } else {
      bytes[n++] = input[i]!;
    }
  }
  return decodeUtf8(bytes.subarray(0, n));
}

/**
 * A multipart/form-data upload (already bounded by MAX_BODY_BYTES) as the JSON an upload
 * endpoint takes: text parts as strings, the `file` part as `{content_type, data}` (base64;
 * the type left out when the client sent none, so that the bytes say what they are).
 */
async function multipartFields(bytes: Uint8Array, contentType: string): Promise<Record<string, unknown>> {
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData();
  } catch (err) {
    throw unreadable(err);
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') out[name] = value;
    else if (name === 'file') {
      const type = value.type.split(';')[0]!.trim().toLowerCase();
      Object.assign(out, {
        data: Buffer.from(await value.arrayBuffer()).toString('base64'),
        ...(type && type !== 'application/octet-stream' ? { content_type: type } : {}),
      });
    } else out[name] = null;
  }
  return out;
}

/**
 * Reads a body in one of the surface's media types (JSON also as any `+json` type). An
 * empty body is `{}` so that action routes (`POST .../ban`) need none.
 */
export async function parseBody(c: Context, media: readonly BodyMedia[], opts: { strictForm?: boolean } = {}): Promise<ParsedBody> {
  const bytes = await readLimited(c).catch((err: unknown) => {
    if (isAppError(err)) throw err;
    // A malformed chunk or a client gone mid-body: bad input (the log says 400, not a 500).
    throw unreadable(err);
  });
  // Node's message, when served by Node: a body cut short can also read as a shorter one
  // (an aborted request's stream may just end), which must not be acted on.
  const incoming = (c.env as { incoming?: { complete?: boolean } } | undefined)?.incoming;
  if (incoming && incoming.complete === false) throw unreadable();
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (media.includes('multipart') && type === MEDIA_TYPES.multipart)
    return { raw: '', value: await multipartFields(bytes, c.req.header('content-type')!) };
  const json = type === 'application/json' || type.endsWith('+json');
  const form = media.includes('form') && type === MEDIA_TYPES.form;
  // Another media type is refused below, unless the body is blank: decode that leniently.
  const raw = json || form ? decodeUtf8(bytes) : new TextDecoder().decode(bytes);
  if (raw.trim() === '') return { raw, value: {} };
  if (json) {
    try {
      return { raw, value: JSON.parse(raw) };
    } catch {
      throw new AppError('MALFORMED_REQUEST', { message: 'The request body is not valid JSON.' });
    }
  }
  if (form) return { raw, value: formFields(raw, opts.strictForm ?? false) };
  throw new AppError('UNSUPPORTED_MEDIA_TYPE', {
    message: `Send the body as ${media.map((m) => MEDIA_TYPES[m]).join(' or ')}.`,
    meta: { content_type: type || null },
  });
}
