import type { Context } from 'hono';

/**
 * The headers a request's answer gets besides the ones its result renders: the request id, the
 * rate-limit headers, `cache-control`, cookies, CORS. The request context, the guards and a
 * surface's authenticate set them here, before the answer exists, instead of with Hono's
 * `c.header` (lint refuses that): they are kept in a plain object, and the router hands them,
 * the security headers and the rendered answer's own to one `new Response(body, { headers })`,
 * which @hono/node-server writes with one `writeHead`, no Headers object built on the way.
 * An answer the router did not render (an error, a 404, a middleware's own) gets them added
 * afterwards where it has none of that name (`completeAnswer`).
 */
interface Answer {
  /** Lower-case names; every value of `set-cookie` kept apart. */
  headers: Record<string, string>;
  cookies: string[];
  /** The response the router built with every header above in it. */
  rendered: Response | null;
}

const answers = new WeakMap<Context, Answer>();

function answerOf(c: Context): Answer {
  let a = answers.get(c);
  if (!a) answers.set(c, (a = { headers: {}, cookies: [], rendered: null }));
  return a;
}

/**
 * Sets a header of the answer, replacing an earlier one of that name; `append` adds a value to
 * it instead (a second cookie; `vary`).
 */
export function setAnswerHeader(c: Context, name: string, value: string, opts?: { append?: boolean }): void {
  const a = answerOf(c);
  const key = name.toLowerCase();
  if (key === 'set-cookie') {
    if (opts?.append) a.cookies.push(value);
    else a.cookies = [value];
    return;
  }
  const prior = a.headers[key];
  a.headers[key] = opts?.append && prior !== undefined ? `${prior}, ${value}` : value;
}

type Body = string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;

/**
 * The router's answer: `defaults` (the security headers), then the headers set on the answer,
 * then the result's own (`rendered`, which win, a `set-cookie` among them replacing the cookies
 * set before), all in one plain object. Only an answer with more than one cookie needs a Headers
 * object (a plain object's value is one string).
 */
export function renderAnswer(
  c: Context,
  status: number,
  body: Body,
  rendered: Record<string, string> | undefined,
  defaults: Readonly<Record<string, string>>,
): Response {
  const a = answerOf(c);
  const headers: Record<string, string> = { ...defaults, ...a.headers };
  let cookies = a.cookies;
  if (rendered) {
    for (const name in rendered) {
      const key = name.toLowerCase();
      if (key === 'set-cookie') cookies = [rendered[name]!];
      else headers[key] = rendered[name]!;
    }
  }
  let init: HeadersInit = headers;
  if (cookies.length === 1) headers['set-cookie'] = cookies[0]!;
  else if (cookies.length > 1) {
    const all = new Headers(headers);
    for (const cookie of cookies) all.append('set-cookie', cookie);
    init = all;
  }
  const res = new Response(body, { status, headers: init });
  a.rendered = res;
  return res;
}

/**
 * Adds the answer's headers, then `defaults`, to a response the router did not render with them
 * (an error's, a 404, a middleware's own), each only where the response has none of that name.
 */
export function completeAnswer(c: Context, res: Response, defaults: Readonly<Record<string, string>> = {}): void {
  const a = answers.get(c);
  if (a?.rendered === res) return;
  const headers = res.headers;
  if (a) {
    for (const name in a.headers) if (!headers.has(name)) headers.set(name, a.headers[name]!);
    if (a.cookies.length > 0 && !headers.has('set-cookie')) for (const cookie of a.cookies) headers.append('set-cookie', cookie);
  }
  for (const name in defaults) if (!headers.has(name)) headers.set(name, defaults[name]!);
}
