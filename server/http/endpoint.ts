import type { z } from 'zod';
import type { Deps } from '../deps';
import type { Actor } from './actor';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestInfo {
  requestId: string;
  ip: string | null;
  userAgent: string | null;
  /** The Accept-Language header, for messages sent on the request's behalf. */
  acceptLanguage: string | null;
  /** The browser origin the request names (Origin, else Referer's), or null; the caller decides whether to trust it. */
  origin?: string | null;
}

/**
 * The `:name` segments of a route path, as a union of names:
 * `PathParams<'/v1/users/:id/passkeys/:passkey_id'>` is `'id' | 'passkey_id'`.
 */
export type PathParams<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : never;

/**
 * The path parameters an endpoint reads are its fourth type argument (`endpoint<Auth, B, Q, 'id'>`):
 * its handler's `params` has exactly those, and a route table mounts it only on a path naming
 * each of them (`route()` checks the path's `:name` segments at compile time).
 */
export interface EndpointContext<Auth, B, Q, P extends string = string> {
  /** `deps.db` is a transaction when the request is audited or runs under an Idempotency-Key. */
  deps: Deps;
  auth: Auth;
  /** Who is calling, built once by the surface from its credential. */
  actor: Actor;
  body: B;
  query: Q;
  params: Record<P, string>;
  request: RequestInfo;
  /**
   * The request body exactly as received and its headers, for the few endpoints that verify
   * a signature over the bytes (processor webhooks); everything else uses `body`.
   */
  raw: { body: string; header(name: string): string | undefined };
}

/**
 * How the router audits a state change. `action` (and the target: the path parameter
 * named, else the result's `id`) is written in the transaction of the change, unless the
 * domain already wrote a more detailed entry for it. `recordedBy: 'domain'`: the domain
 * writes the entry in its own transaction (it skips a no-op such as an idempotent repeat, or
 * hashes a password before its transaction opens), so the router opens none and writes none.
 * `unaudited` names why a non-GET route changes nothing worth an entry (a read sent as POST,
 * a hot token path whose outcome is recorded on the session).
 */
type AuditSpec =
  | {
      action: string;
      target?: string;
      recordedBy?: 'domain';
      /** What the entry records of the request beyond who and what (never a secret's value). */
      details?: (body: unknown) => Record<string, unknown>;
    }
  | { unaudited: string };

/** What a route does, independent of where it is mounted: input, output and the handler. */
export interface Endpoint<Auth = unknown, B = unknown, Q = unknown, P extends string = string> {
  summary: string;
  body?: z.ZodType<B>;
  /** Also take the body as multipart/form-data (an upload: its `file` part becomes `{content_type, data}`; http/body.ts). */
  multipart?: true;
  /** Also take the body as application/x-www-form-urlencoded (a provider's callback on a JSON surface). */
  form?: true;
  query?: z.ZodType<Q>;
  /** Path parameters; every one is a string of storable text unless narrowed here. */
  params?: z.ZodType<Record<string, string>>;
  response: z.ZodType;
  /** Success status of a JSON result, 200 unless said (204 sends no body). */
  status?: 200 | 201 | 202 | 204;
  audit?: AuditSpec;
  /** A property, not a method, so an endpoint for one auth cannot be mounted where another is given. */
  handle: (ctx: EndpointContext<Auth, B, Q, P>) => Promise<unknown>;
}

/**
 * An endpoint as a route table holds it: any body and query, but the auth must be the
 * surface's (an endpoint that needs a signed-in user does not fit a route whose guard
 * resolves none), and every path parameter it reads must be among the path's (`P`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MountableEndpoint<Auth, P extends string = string> = Omit<Endpoint<Auth, any, any>, 'handle'> & {
  handle: (ctx: EndpointContext<Auth, never, never, P>) => Promise<unknown>;
};

export function endpoint<Auth, B = Record<string, never>, Q = Record<string, never>, P extends string = never>(
  def: Endpoint<Auth, B, Q, P>,
): Endpoint<Auth, B, Q, P> {
  return def;
}

/** Results other than a JSON body; a plain value is JSON with the endpoint's status. */
export type SpecialResult =
  | { kind: 'redirect'; location: string; status: 302 | 303; headers?: Record<string, string> }
  | { kind: 'text'; text: string; contentType: string; status: number; headers?: Record<string, string> }
  | { kind: 'empty'; status: 204; headers?: Record<string, string> }
  | { kind: 'json'; value: unknown; status: number; headers?: Record<string, string> }
  | { kind: 'bytes'; bytes: Uint8Array; contentType: string; status: number; headers?: Record<string, string> }
  | { kind: 'stream'; stream: ReadableStream<Uint8Array>; contentType: string; headers?: Record<string, string> };

const RESULT = Symbol('result');
type Tagged = SpecialResult & { [RESULT]: true };
const tag = (r: SpecialResult): Tagged => Object.assign(r, { [RESULT]: true as const });

export const redirect = (location: string, status: 302 | 303 = 302, headers?: Record<string, string>) =>
  tag({ kind: 'redirect', location, status, headers });
export const htmlPage = (html: string, status = 200, headers?: Record<string, string>) =>
  tag({ kind: 'text', text: html, contentType: 'text/html; charset=utf-8', status, headers });
export const textResult = (text: string, contentType: string, status = 200, headers?: Record<string, string>) =>
  tag({ kind: 'text', text, contentType, status, headers });
export const noContent = (headers?: Record<string, string>) => tag({ kind: 'empty', status: 204, headers });
export const jsonResult = (value: unknown, status: number, headers?: Record<string, string>) =>
  tag({ kind: 'json', value, status, headers });
/** A binary body (an image) with its type and headers; 304 answers carry no bytes. */
export const bytesResult = (bytes: Uint8Array, contentType: string, headers?: Record<string, string>, status = 200) =>
  tag({ kind: 'bytes', bytes, contentType, status, headers });
/** A body written as it is read (a large export): never held whole in memory. */
export const streamResult = (stream: ReadableStream<Uint8Array>, contentType: string, headers?: Record<string, string>) =>
  tag({ kind: 'stream', stream, contentType, headers });
export const isSpecialResult = (v: unknown): v is SpecialResult => typeof v === 'object' && v !== null && RESULT in v;
