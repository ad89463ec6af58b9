import type { TestHarness } from './harness';

export interface FapiCallOptions {
  body?: unknown;
  /** Sent form-encoded (application/x-www-form-urlencoded). */
  form?: Record<string, string>;
  /** Sent as is, as application/json unless `headers` name another type (for bodies a test cannot build as a value). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Leave out the publishable key this time. */
  noKey?: boolean;
  /** The page's origin a browser sends as `Origin` (web mode); null sends none. Default: the client's `origin`. */
  origin?: string | null;
  /** The caller's IP address (the socket's). */
  remoteAddress?: string;
}

export interface FapiResult {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  setCookie: string | null;
}

/**
 * A browser (or, with `native`, an app) talking to one instance's FAPI: it sends the
 * publishable key, keeps the `__client` cookie as a browser would (or the bearer token
 * a native app stores), and exposes both for tests to inspect or tamper with.
 */
export function fapiClient(
  h: TestHarness,
  instanceId: string,
  /**
   * `origin`: the page a browser runs on, sent as `Origin` (default the FAPI's own,
   * PUBLIC_URL's origin). `host`: call the instance on its custom domain (that `Host`,
   * paths at the root, default origin `https://<host>`).
   */
  opts: { publishableKey?: string; native?: boolean; origin?: string; host?: string } = {},
) {
  const state = { token: null as string | null };
  const native = opts.native ?? false;
  /** The other cookies a browser keeps from the FAPI's answers (a flow's binding cookie), by name; paths are not told apart. */
  const jar = new Map<string, string>();
  const cookieHeader = () => {
    const pairs = [...(state.token !== null ? [['__client', state.token]] : []), ...jar].map(([k, v]) => `${k}=${v}`);
    return pairs.length > 0 ? pairs.join('; ') : undefined;
  };

  async function call(method: string, path: string, o: FapiCallOptions = {}): Promise<FapiResult> {
    const headers: Record<string, string> = { ...o.headers };
    if (opts.host) headers.host ??= opts.host;
    if (opts.publishableKey && !o.noKey) headers['x-publishable-key'] ??= opts.publishableKey;
    // Browsers send Origin on every state change (fetch, XHR, form POST); apps do not.
    const ownOrigin = opts.host ? `https://${opts.host}` : new URL(h.runtime.deps.config.PUBLIC_URL).origin;
    const origin = o.origin === undefined ? (opts.origin ?? ownOrigin) : o.origin;
    if (!native && method !== 'GET' && origin !== null) headers.origin ??= origin;
    if (native && state.token !== null) headers.authorization ??= `Bearer ${state.token}`;
    const cookie = native ? undefined : cookieHeader();
    if (cookie) headers.cookie ??= cookie;
    let raw: string | Uint8Array | undefined = o.raw;
    if (o.raw !== undefined) headers['content-type'] ??= 'application/json';
    if (o.form) {
      raw = new URLSearchParams(o.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const sep = path.includes('?') ? '&' : '?';
    const url = `${opts.host ? '' : `/fapi/${instanceId}`}${path}${native && state.token === null ? `${sep}_is_native=1` : ''}`;
    const res = await h.request(method, url, {
      headers,
      body: o.body,
      raw,
      ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
    });
    const setCookie = res.headers.get('set-cookie');
    if (!native) keepCookies(res.headers);
    const issued = res.headers.get('authorization');
    if (native && issued) state.token = issued.replace(/^Bearer /, '');
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, setCookie };
  }

  function keepCookies(h: Headers) {
    for (const c of h.getSetCookie()) {
      const m = /^([^=;]+)=([^;]*)/.exec(c);
      if (!m) continue;
      const gone = /Max-Age=0(;|$)/.test(c);
      if (m[1] === '__client') state.token = gone ? null : m[2]!;
      else if (gone) jar.delete(m[1]!);
      else jar.set(m[1]!, m[2]!);
    }
  }

  return {
    call,
    /** The Cookie header this browser sends to the FAPI (undefined when it holds none): for requests made by hand, such as a provider's redirect back. */
    cookieHeader,
    /** Keeps the cookies of an answer to a request made by hand. */
    keepCookies,
    /** The other cookies held (not `__client`), by name. */
    cookies: jar,
    get token() {
      return state.token;
    },
    set token(t: string | null) {
      state.token = t;
    },
    /** Redeems a ticket: POST /v1/client/sign_ins {strategy: 'ticket'}. */
    signInWithTicket: (ticket: string, o: FapiCallOptions = {}) =>
      call('POST', '/v1/client/sign_ins', { body: { strategy: 'ticket', ticket }, ...o }),
  };
}
export type FapiTestClient = ReturnType<typeof fapiClient>;
