import { withDefaults } from './options.js';
import { LatchkeyApiError, LatchkeyNetworkError, type ApiErrorEntry } from './errors.js';
import type {
  ApiKey,
  BapiOperations,
  BapiPath,
  Organization,
  OrganizationInvitation,
  OrganizationMembership,
  Permission,
  Role,
  Session,
  User,
  WebhookEndpoint,
} from './generated/bapi.js';

/** Request body and response of an operation, by `'METHOD /v1/path/{param}'`. */
export type BapiBody<K extends keyof BapiOperations> = BapiOperations[K]['body'];
export type BapiResponse<K extends keyof BapiOperations> = BapiOperations[K]['response'];

export interface BapiClientOptions {
  /** `sk_test_…` / `sk_live_…`: server side only, never logged by the SDK. */
  secretKey: string;
  /** The API's base URL (the deployment's PUBLIC_URL), e.g. https://auth.example.com. */
  apiUrl: string;
  fetch?: typeof fetch;
  /** Retries after the first attempt for 429, 5xx and network errors (default 3). */
  maxRetries?: number;
  /** Backoff base and cap in ms (default 500 and 20 000). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Time limit of one attempt (default 30 s). */
  timeoutMs?: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** POST only: given or generated once per call, so every retry is the same request. */
  idempotencyKey?: string;
}

/** A page of the cursor envelope. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}

const RETRYABLE = (status: number) => status === 429 || status >= 500;

/**
 * Delay before retry `attempt` (0-based): full jitter, `random() * min(cap, base * 2^attempt)`,
 * and never sooner than the server's Retry-After.
 */
export function backoffDelay(attempt: number, o: { baseDelayMs: number; maxDelayMs: number; random: () => number }, retryAfterMs?: number) {
  const jitter = o.random() * Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** attempt);
  return retryAfterMs !== undefined ? Math.min(o.maxDelayMs, retryAfterMs + jitter * 0.1) : jitter;
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const newIdempotencyKey = () => crypto.randomUUID();

/** A list the caller can page through or iterate item by item (`for await`). */
export class CursorList<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}
  /** The first page only. */
  firstPage(): Promise<Page<T>> {
    return this.fetchPage(undefined);
  }
  async *pages(): AsyncGenerator<Page<T>> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data;
  }
  /** Every item, up to `max` (default 10 000) so a runaway list cannot exhaust memory. */
  async toArray(max = 10_000): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) {
      if (out.length >= max) break;
      out.push(item);
    }
    return out;
  }
}

export function createBapiClient(opts: BapiClientOptions) {
  const o = withDefaults(
    {
      fetch: (...a: Parameters<typeof fetch>) => globalThis.fetch(...a),
      maxRetries: 3,
      baseDelayMs: 500,
      maxDelayMs: 20_000,
      timeoutMs: 30_000,
      random: Math.random,
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    },
    opts,
  );
  if (!/^sk_(test|live)_/.test(opts.secretKey)) throw new Error('secretKey must be a Latchkey secret key (sk_test_… or sk_live_…).');
  const base = opts.apiUrl.replace(/\/$/, '');

  async function request<T>(method: string, path: BapiPath | string, r: RequestOptions = {}): Promise<T> {
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(r.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { authorization: `Bearer ${opts.secretKey}`, accept: 'application/json' };
    if (r.body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = r.idempotencyKey ?? newIdempotencyKey();
    const body = r.body === undefined ? undefined : JSON.stringify(r.body);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await o.fetch(url, { method, headers, body, signal: AbortSignal.timeout(o.timeoutMs) });
      } catch (e) {
        if (attempt >= o.maxRetries) throw new LatchkeyNetworkError(e);
        await o.sleep(backoffDelay(attempt, o));
        continue;
      }
      if (res.ok) return (res.status === 204 ? undefined : await res.json()) as T;
      const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      // A Retry-After beyond the cap is not worth waiting for here: the caller decides.
      if (RETRYABLE(res.status) && attempt < o.maxRetries && (retryAfter === undefined || retryAfter <= o.maxDelayMs)) {
        await res.body?.cancel();
        await o.sleep(backoffDelay(attempt, o, retryAfter));
        continue;
      }
      const parsed = (await res.json().catch(() => null)) as { errors?: ApiErrorEntry[]; trace_id?: string } | null;
      throw new LatchkeyApiError(
        res.status,
        Array.isArray(parsed?.errors) ? parsed.errors : [],
        parsed?.trace_id ?? res.headers.get('x-request-id') ?? undefined,
        retryAfter === undefined ? undefined : retryAfter / 1000,
      );
    }
  }

  const enc = encodeURIComponent;
  const list = <T>(path: string, query: Query = {}) =>
    new CursorList<T>((cursor) => request<Page<T>>('GET', path, { query: { ...query, starting_after: cursor } }));

  /** The usual five operations of a resource under `path`. */
  function crud<T, C = Record<string, unknown>, U = Partial<C>>(path: string) {
    return {
      list: (query?: Query) => list<T>(path, query),
      get: (id: string) => request<T>('GET', `${path}/${enc(id)}`),
      create: (body: C, r?: { idempotencyKey?: string }) => request<T>('POST', path, { body, ...r }),
      update: (id: string, body: U) => request<T>('PATCH', `${path}/${enc(id)}`, { body }),
      delete: (id: string) => request<unknown>('DELETE', `${path}/${enc(id)}`),
    };
  }

  return {
    request,
    users: {
      ...crud<User, BapiBody<'POST /v1/users'>, BapiBody<'PATCH /v1/users/{id}'>>('/v1/users'),
      sessions: (userId: string) => request<Page<Session>>('GET', `/v1/users/${enc(userId)}/sessions`),
      revokeSessions: (userId: string) => request<unknown>('POST', `/v1/users/${enc(userId)}/sessions/revoke`),
    },
    sessions: {
      /** Mints a session for a user: `{ jwt, refresh_token, expires_in }` in the answer. */
      create: (body: BapiBody<'POST /v1/sessions'>) => request<BapiResponse<'POST /v1/sessions'>>('POST', '/v1/sessions', { body }),
      list: (query?: Query) => list<Session>('/v1/sessions', query),
      get: (id: string) => request<Session>('GET', `/v1/sessions/${enc(id)}`),
      revoke: (id: string) => request<Session>('POST', `/v1/sessions/${enc(id)}/revoke`),
      /** Authoritative check of a session token, revocation included (one API call). */
      verify: (body: BapiBody<'POST /v1/sessions/verify'>) =>
        request<BapiResponse<'POST /v1/sessions/verify'>>('POST', '/v1/sessions/verify', { body }),
    },
    organizations: {
      ...crud<Organization, BapiBody<'POST /v1/organizations'>, BapiBody<'PATCH /v1/organizations/{id}'>>('/v1/organizations'),
      memberships: (orgId: string) => request<Page<OrganizationMembership>>('GET', `/v1/organizations/${enc(orgId)}/memberships`),
      addMember: (orgId: string, body: { user_id: string; role?: string }) =>
        request<unknown>('POST', `/v1/organizations/${enc(orgId)}/memberships`, { body }),
      invitations: (orgId: string) => request<Page<OrganizationInvitation>>('GET', `/v1/organizations/${enc(orgId)}/invitations`),
      invite: (orgId: string, body: Record<string, unknown>) =>
        request<unknown>('POST', `/v1/organizations/${enc(orgId)}/invitations`, { body }),
    },
    roles: crud<Role, BapiBody<'POST /v1/roles'>, BapiBody<'PATCH /v1/roles/{id}'>>('/v1/roles'),
    permissions: crud<Permission, BapiBody<'POST /v1/permissions'>, BapiBody<'PATCH /v1/permissions/{id}'>>('/v1/permissions'),
    webhookEndpoints: {
      ...crud<WebhookEndpoint, BapiBody<'POST /v1/webhook_endpoints'>, BapiBody<'PATCH /v1/webhook_endpoints/{id}'>>(
        '/v1/webhook_endpoints',
      ),
      /** Creates an endpoint; the answer carries its signing `secret` (whsec_…), shown this once. */
      create: (body: BapiBody<'POST /v1/webhook_endpoints'>, r?: { idempotencyKey?: string }) =>
        request<BapiResponse<'POST /v1/webhook_endpoints'>>('POST', '/v1/webhook_endpoints', { body, ...r }),
      test: (id: string) => request<unknown>('POST', `/v1/webhook_endpoints/${enc(id)}/test`),
    },
    apiKeys: {
      list: (query?: Query) => list<ApiKey>('/v1/api_keys', query),
      get: (id: string) => request<ApiKey>('GET', `/v1/api_keys/${enc(id)}`),
      create: (body: BapiBody<'POST /v1/api_keys'>) => request<BapiResponse<'POST /v1/api_keys'>>('POST', '/v1/api_keys', { body }),
      revoke: (id: string) => request<ApiKey>('POST', `/v1/api_keys/${enc(id)}/revoke`),
      verify: (body: BapiBody<'POST /v1/api_keys/verify'>) =>
        request<BapiResponse<'POST /v1/api_keys/verify'>>('POST', '/v1/api_keys/verify', { body }),
    },
    actorTokens: { create: (body: Record<string, unknown>) => request<unknown>('POST', '/v1/actor_tokens', { body }) },
    signInTokens: { create: (body: Record<string, unknown>) => request<unknown>('POST', '/v1/sign_in_tokens', { body }) },
    events: { list: () => request<BapiResponse<'GET /v1/events'>>('GET', '/v1/events') },
    jwks: {
      get: () => request<{ keys: unknown[] }>('GET', '/v1/jwks'),
      rotate: () => request<unknown>('POST', '/v1/jwks/rotate'),
    },
    rateLimitPolicy: {
      get: () => request<BapiResponse<'GET /v1/rate_limit_policy'>>('GET', '/v1/rate_limit_policy'),
      update: (body: Record<string, unknown>) => request<unknown>('PATCH', '/v1/rate_limit_policy', { body }),
    },
  };
}

export type BapiClient = ReturnType<typeof createBapiClient>;
