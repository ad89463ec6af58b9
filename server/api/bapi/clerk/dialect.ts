import { AppError, isAppError, validationError } from '../../../http/errors';
import { dialectLine, isJsonObject, type Dialect, type DialectLine, type ListPage, type Translated } from '../../../http/dialect';
import type { EndpointContext } from '../../../http/endpoint';
import { instanceContext } from '../../../instances/instances';
import { verifySessionJwt } from '../../../sessions/tokens';
import type { BapiAuth } from '../authenticate';

/**
 * Clerk's backend API dialect, for `@clerk/backend` pointed at Latchkey (`apiUrl`). It is
 * switched on by the `Clerk-API-Version` header the SDK always sends, and only then: without
 * it every answer is exactly Latchkey's contract. Its table of lines is beside the BAPI's route
 * table (`bapiClerkLines`, server/api/bapi/index.ts); what applies to every request is here:
 *
 * - successful JSON answers carry `Content-Type: application/json` (the SDK parses a body
 *   as JSON only on that exact value);
 * - resources gain the fields the SDK dereferences (`linked_to`, `image_url`, `url`, …);
 * - errors gain `meta.param_name` (beside `meta.param`) and `clerk_trace_id` (beside `trace_id`);
 * - Clerk's list parameters are taken off every GET (the routes' own query schemas stay
 *   strict); a list line answers Clerk's page of the list (`offset`, `total_count`);
 * - body fields that only steer Clerk's own behaviour are taken off every JSON body.
 */
const CLERK_API_VERSION_HEADER = 'clerk-api-version';

/** Query parameters of Clerk's list mode. */
const CLERK_LIST_PARAMS = ['offset', 'paginated', 'order_by', 'requesting_user_id', 'expired_token', 'request_origin'] as const;

/**
 * Body fields the SDK sends that only steer Clerk's own behaviour; accepted and ignored:
 * Latchkey never requires a password (`skip_password_requirement`), authorizes by the
 * secret key alone (`requesting_user_id`) and sends no allowlist notification (`notify`).
 */
const IGNORED_BODY_FIELDS = ['skip_password_requirement', 'requesting_user_id', 'notify', 'skip_legal_checks'];

/** How many rows a list is walked for its `total_count` (exact up to this many, this many beyond). */
const MAX_SCAN = 10_000;

/** The BAPI dialect's reshapers need nothing beyond the answer. */
type State = Record<string, never>;
export type BapiClerkLine = DialectLine<State, BapiAuth>;
export const bapiClerkLine = dialectLine<State, BapiAuth>;

type Json = Record<string, unknown>;

/** Fields the SDK reads that Latchkey's resources name differently or not at all; never overrides a field we have. */
function shapeResource(r: Json): void {
  const add = (k: string, v: unknown) => {
    if (!(k in r)) r[k] = v;
  };
  switch (r.object) {
    case 'user':
      add('image_url', '');
      add('has_image', false);
      add('web3_wallets', []);
      add('external_accounts', []);
      add('enterprise_accounts', []);
      break;
    case 'email_address':
    case 'phone_number':
      add('linked_to', []);
      break;
    case 'session':
      add('client_id', null);
      add('actor', r.impersonated_by ? { sub: r.impersonated_by } : null);
      add('updated_at', r.last_active_at ?? r.created_at);
      break;
    case 'organization':
      add('image_url', '');
      add('has_image', false);
      break;
    case 'actor_token':
    case 'sign_in_token':
    case 'invitation':
    case 'organization_invitation':
      add('url', null);
      break;
  }
}

/** Walks an answer, shaping every resource it contains (users inside memberships, addresses inside users…). */
function shape(v: unknown, depth = 0): unknown {
  if (depth > 8) return v;
  if (Array.isArray(v)) {
    for (const x of v) shape(x, depth + 1);
    return v;
  }
  if (!isJsonObject(v)) return v;
  if (typeof v.object === 'string') shapeResource(v);
  for (const [k, x] of Object.entries(v)) {
    // Metadata is the caller's own data: never reshaped.
    if (k.endsWith('_metadata')) continue;
    if (typeof x === 'object' && x !== null) shape(x, depth + 1);
  }
  return v;
}

function shapeError(body: unknown): unknown {
  if (!isJsonObject(body)) return shape(body);
  if (Array.isArray(body.errors)) {
    for (const e of body.errors) {
      if (isJsonObject(e) && isJsonObject(e.meta) && typeof e.meta.param === 'string') e.meta.param_name ??= e.meta.param;
    }
  }
  if (typeof body.trace_id === 'string') body.clerk_trace_id = body.trace_id;
  return body;
}

function offsetOf(raw: string | null): number | AppError {
  if (raw === null) return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > MAX_SCAN)
    return validationError('offset', 'invalid', `offset must be an integer from 0 to ${MAX_SCAN}.`);
  return n;
}

/** Clerk's page of a list line (`bare`: a plain array unless `paginated` is asked, as Clerk's GET /v1/users). */
function listPage(line: BapiClerkLine | null, params: URLSearchParams): Pick<Translated<State>, 'list' | 'refusal'> {
  if (!line?.list) return {};
  const offset = offsetOf(params.get('offset'));
  if (offset instanceof AppError) return { refusal: offset };
  const orderBy = params.get('order_by') ?? undefined;
  return {
    list: {
      offset,
      limit: null,
      paginated: params.get('paginated') === 'true' || !line.list.bare,
      max: MAX_SCAN,
      ...(orderBy ? { orderBy } : {}),
    } satisfies ListPage,
  };
}

/** A JSON body without IGNORED_BODY_FIELDS and the line's `takes` (returned as `taken`); any other body as it came. */
function withoutClerkFields(text: string, takes: readonly string[]): { text: string; taken: Json } {
  const fields = [...IGNORED_BODY_FIELDS, ...takes];
  if (!fields.some((f) => text.includes(`"${f}"`))) return { text, taken: {} };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { text, taken: {} };
  }
  if (!isJsonObject(body)) return { text, taken: {} };
  const taken: Json = {};
  for (const f of takes) if (f in body) taken[f] = body[f];
  for (const f of fields) delete body[f];
  return { text: JSON.stringify(body), taken };
}

export const bapiClerkDialect = (
  lines: readonly BapiClerkLine[],
  routes: Dialect<State, BapiAuth>['routes'],
): Dialect<State, BapiAuth> => ({
  lines,
  routes,
  selects: (req) => req.headers.has(CLERK_API_VERSION_HEADER),
  async translate(req, { url, line, body }) {
    const headers = new Headers(req.headers);
    if (req.method === 'GET') {
      const params = new URLSearchParams();
      for (const p of CLERK_LIST_PARAMS) {
        const v = url.searchParams.get(p);
        if (v !== null) params.set(p, v.slice(0, 2048));
        url.searchParams.delete(p);
      }
      return { request: new Request(url, { method: 'GET', headers }), state: {}, ...listPage(line, params) };
    }
    if (!(req.headers.get('content-type') ?? '').startsWith('application/json'))
      return { request: new Request(url, { method: req.method, headers, body }), state: {} };
    const { text, taken } = withoutClerkFields(Buffer.from(body).toString('utf8'), line?.takes ?? []);
    headers.delete('content-length');
    return { request: new Request(url, { method: req.method, headers, body: text }), state: {}, taken };
  },
  reshape: (answer) => shape(answer),
  reshapeError: shapeError,
});

/**
 * `sessions.refreshSession`: Latchkey's refresh (the refresh token rotates: the answer carries
 * the next one beside `jwt`), and when the SDK sends the session token it holds
 * (`expired_token`), that token must be one this instance signed for this session — expired is
 * fine, forged or another session's is not.
 */
export const REFRESH_FIELDS = ['expired_token', 'request_origin', 'request_originating_ip', 'request_headers', 'format'] as const;

export async function checkExpiredToken(
  ctx: EndpointContext<BapiAuth, unknown, unknown>,
  taken: Json,
  handle: () => Promise<unknown>,
): Promise<unknown> {
  const expired = taken.expired_token;
  if (expired !== undefined) {
    if (typeof expired !== 'string' || expired.length > 8192) throw new AppError('TOKEN_INVALID');
    const instance = await instanceContext(ctx.deps, ctx.auth.instance.id);
    await verifySessionJwt(ctx.deps, instance, expired).catch((e: unknown) => {
      if (!(isAppError(e) && e.code === 'TOKEN_EXPIRED')) throw e;
    });
    // Authentic (signature and issuer checked above): its session must be this one.
    const claims: unknown = JSON.parse(Buffer.from(expired.split('.')[1] ?? '', 'base64url').toString('utf8'));
    if (!isJsonObject(claims) || claims.sid !== ctx.params.id)
      throw new AppError('TOKEN_INVALID', { message: 'expired_token is not a token of this session.' });
  }
  return handle();
}
