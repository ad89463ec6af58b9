import type { z } from 'zod';
import type { Deps } from '../deps';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestInfo {
  requestId: string;
  ip: string | null;
  userAgent: string | null;
  /** The Accept-Language header, for messages sent on the request's behalf. */
  acceptLanguage: string | null;
}

export interface EndpointContext<Auth, B, Q> {
  /** `deps.db` is a transaction when the request runs under an Idempotency-Key. */
  deps: Deps;
  auth: Auth;
  body: B;
  query: Q;
  params: Record<string, string>;
  request: RequestInfo;
}

/** What a route does, independent of where it is mounted: input, output and the handler. */
export interface Endpoint<Auth = unknown, B = unknown, Q = unknown> {
  summary: string;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  response: z.ZodType;
  /** Success status, 200 unless said. */
  status?: 200 | 201 | 202;
  handle(ctx: EndpointContext<Auth, B, Q>): Promise<unknown>;
}

export function endpoint<Auth, B = Record<string, never>, Q = Record<string, never>>(
  def: Endpoint<Auth, B, Q>,
): Endpoint<Auth, B, Q> {
  return def;
}
