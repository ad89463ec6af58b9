import type { Error as ApiErrorBody } from '@/lib/generated/dashboard';

/** An error answer of any Latchkey surface: `{errors:[{code,message,meta}], trace_id}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly meta: Record<string, unknown> = {},
    readonly traceId?: string,
    /** Every entry of the answer's `errors` after the first (a 422 names each invalid field). */
    readonly others: ApiError[] = [],
  ) {
    super(message);
  }

  /** This error and the others the answer held, each its own ApiError. */
  get all(): ApiError[] {
    return [this, ...this.others];
  }

  /** The request parameter the error is about, when the server named one. */
  get param(): string | undefined {
    return typeof this.meta.param === 'string' ? this.meta.param : undefined;
  }

  get retryAfter(): number | undefined {
    return typeof this.meta.retry_after === 'number' ? this.meta.retry_after : undefined;
  }
}

/** Thrown when the server could not be reached at all. */
export class NetworkError extends Error {}

/** The error body every surface answers with (the `Error` schema); read defensively, as a proxy may answer instead. */
type ErrorBody = Partial<ApiErrorBody>;

/**
 * fetch() for our JSON APIs from the browser: sends cookies of the same site, turns
 * an error body into an ApiError and a dropped connection into a NetworkError.
 */
export async function requestJson<T>(url: string, init: RequestInit & { json?: unknown } = {}): Promise<{ body: T; response: Response }> {
  const { json, headers, ...rest } = init;
  let response: Response;
  try {
    response = await fetch(url, {
      credentials: 'include',
      ...rest,
      headers: { accept: 'application/json', ...(json !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  } catch (cause) {
    throw new NetworkError('network', { cause });
  }
  const text = await response.text();
  const body = text ? (JSON.parse(text) as unknown) : null;
  if (!response.ok) {
    const [first, ...rest] = (body as ErrorBody | null)?.errors ?? [];
    const traceId = (body as ErrorBody | null)?.trace_id;
    const others = rest.map((e) => new ApiError(response.status, e.code ?? 'INTERNAL_ERROR', e.message ?? '', e.meta ?? {}, traceId));
    throw new ApiError(
      response.status,
      first?.code ?? 'INTERNAL_ERROR',
      first?.message ?? response.statusText,
      first?.meta ?? {},
      traceId,
      others,
    );
  }
  return { body: body as T, response };
}
