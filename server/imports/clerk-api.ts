/**
 * Reads organizations and their memberships from Clerk's Backend API, as documented:
 * `GET /v1/organizations` and `GET /v1/organizations/{id}/memberships`, paged with `limit` and
 * `offset`, each answering `{ data, total_count }`. The secret key goes only into the
 * Authorization header: never into a message, a URL or a log line.
 *
 * The API URL is the operator's own command-line choice, not a customer's input, so no SSRF
 * guard applies: a loopback address (a test double, a proxy) is allowed.
 */

export interface ClerkOrganization {
  id: string;
  name: string;
  slug: string;
  public_metadata?: Record<string, unknown>;
  private_metadata?: Record<string, unknown>;
  max_allowed_memberships?: number;
  created_by?: string | null;
  created_at?: number;
}

export interface ClerkMembership {
  id?: string;
  role: string;
  role_name?: string;
  permissions?: string[];
  public_metadata?: Record<string, unknown>;
  private_metadata?: Record<string, unknown>;
  created_at?: number;
  public_user_data?: { user_id?: string };
}

export class ClerkApiError extends Error {}

const PAGE = 100;
const TIMEOUT_MS = 30_000;
const RETRIES = 5;

export interface ClerkApi {
  organizations(): AsyncGenerator<ClerkOrganization>;
  memberships(organizationId: string): AsyncGenerator<ClerkMembership>;
}

export function clerkApi(baseUrl: string, secretKey: string, fetchImpl: typeof fetch = fetch): ClerkApi {
  let base: URL;
  try {
    base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  } catch {
    throw new ClerkApiError(`--clerk-api-url is not a URL: ${baseUrl}`);
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new ClerkApiError('--clerk-api-url must be an http(s) URL.');

  async function get(path: string, offset: number): Promise<unknown[]> {
    const url = new URL(path.replace(/^\//, ''), base);
    url.searchParams.set('limit', String(PAGE));
    url.searchParams.set('offset', String(offset));
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetchImpl(url, {
          headers: { authorization: `Bearer ${secretKey}`, accept: 'application/json' },
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (e) {
        if (attempt < RETRIES) continue;
        throw new ClerkApiError(`Clerk's API could not be reached at ${url.origin}: ${(e as Error).message}`);
      }
      if ((res.status === 429 || res.status >= 500) && attempt < RETRIES) {
        await res.body?.cancel();
        const wait = Math.min(Number(res.headers.get('retry-after')) || 2 ** attempt, 10);
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
      if (res.status === 401 || res.status === 403)
        throw new ClerkApiError(`Clerk's API refused the secret key (${res.status} on GET ${url.pathname}).`);
      if (!res.ok) throw new ClerkApiError(`Clerk's API answered ${res.status} to GET ${url.pathname}.`);
      const body: unknown = await res.json().catch(() => null);
      const data = Array.isArray(body)
        ? body
        : body && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)
          ? (body as { data: unknown[] }).data
          : null;
      if (!data) throw new ClerkApiError(`Clerk's API answered GET ${url.pathname} with something other than a list.`);
      return data;
    }
  }

  async function* pages<T>(path: string): AsyncGenerator<T> {
    for (let offset = 0; ; offset += PAGE) {
      const data = await get(path, offset);
      for (const item of data) if (item && typeof item === 'object') yield item as T;
      if (data.length < PAGE) return;
    }
  }

  return {
    organizations: () => pages<ClerkOrganization>('v1/organizations'),
    memberships: (organizationId) => pages<ClerkMembership>(`v1/organizations/${encodeURIComponent(organizationId)}/memberships`),
  };
}
