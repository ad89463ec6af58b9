import type { Client, ClientSession, FapiOperations } from './generated/fapi.js';
import { withDefaults } from './options.js';

export type { Client, ClientSession, FapiOperations };
type Body<K extends keyof FapiOperations> = FapiOperations[K]['body'];
type Res<K extends keyof FapiOperations> = FapiOperations[K]['response'];

/** Where a native app keeps its client token (Keychain, SecureStore, …). */
export interface TokenStorage {
  get(): Promise<string | null> | string | null;
  set(token: string | null): Promise<void> | void;
}

/** The Web Locks subset used: one refresh at a time across the origin's tabs. */
export interface LockManagerLike {
  /** With `ifAvailable`, the callback gets null at once when another tab holds the lock. */
  request<T>(name: string, options: { ifAvailable?: boolean }, callback: (lock: object | null) => Promise<T>): Promise<T>;
}
export interface ChannelLike {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (e: { data: unknown }) => void): void;
  close(): void;
}

export interface LatchkeyOptions {
  publishableKey: string;
  /** The FAPI's URL; by default the one the publishable key names. */
  fapiUrl?: string;
  /** Native mode: no cookie; the client token lives in this storage and travels as a bearer header. */
  tokenStorage?: TokenStorage;
  /** Renew the session JWT this many seconds before it expires (default 10). */
  refreshLeewaySeconds?: number;
  /**
   * Web mode: keep the session JWT in a first-party `__session` cookie on the app's site, so
   * the app's server (the backend SDK's authenticateRequest) sees it (default true).
   */
  sessionCookie?: boolean | { name?: string; domain?: string };
  fetch?: typeof fetch;
  /** Defaults: `navigator.locks` and `BroadcastChannel` when the browser has them. */
  locks?: LockManagerLike | null;
  channel?: ChannelLike | null;
  now?: () => number;
}

export interface SessionState {
  session: ClientSession | null;
  client: Client | null;
}

export class LatchkeyFapiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: { code: string; message: string; meta?: Record<string, unknown> }[],
  ) {
    super(errors[0] ? `${errors[0].code}: ${errors[0].message}` : `HTTP ${status}`);
    this.name = 'LatchkeyFapiError';
    this.code = errors[0]?.code ?? `HTTP_${status}`;
  }
  readonly code: string;
}

/** `pk_<env>_` + base64url(`<fapi host and path>$`). */
export function fapiUrlFromPublishableKey(pk: string): string {
  const m = /^pk_(test|live)_([A-Za-z0-9_-]+)$/.exec(pk);
  const decoded = m ? atob(m[2]!.replace(/-/g, '+').replace(/_/g, '/')) : '';
  if (!decoded.endsWith('$') || decoded.length < 2) throw new Error('Not a Latchkey publishable key (pk_test_… or pk_live_…).');
  const hostAndPath = decoded.slice(0, -1);
  const host = hostAndPath.split('/')[0]!.split(':')[0]!;
  return `${host === 'localhost' || host === '127.0.0.1' ? 'http' : 'https'}://${hostAndPath}`;
}

const jwtExp = (jwt: string): number => {
  try {
    const p = jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    return (JSON.parse(atob(p)) as { exp: number }).exp;
  } catch {
    return 0;
  }
};

type Listener = (state: SessionState) => void;

/**
 * The browser client of one instance. `await latchkey.load()` boots it (GET /v1/client);
 * `getToken()` answers the session JWT for the app's own API, renewed shortly before it
 * expires, and renewed by one tab at a time for the whole origin.
 */
export class Latchkey {
  readonly fapiUrl: string;
  readonly native: boolean;
  private state: SessionState = { session: null, client: null };
  private token: { sessionId: string; jwt: string; exp: number } | null = null;
  private inflight: Promise<string | null> | null = null;
  private listeners = new Set<Listener>();
  private tokenArrived = new Set<() => void>();
  private readonly channel: ChannelLike | null;
  private readonly locks: LockManagerLike | null;
  private readonly f: typeof fetch;
  private readonly now: () => number;
  private readonly settings: { refreshLeewaySeconds: number; sessionCookie: NonNullable<LatchkeyOptions['sessionCookie']> };
  /** Requests sent to the FAPI to mint a session token (for tests and diagnostics). */
  tokenRequests = 0;

  constructor(private readonly o: LatchkeyOptions) {
    this.settings = withDefaults({ refreshLeewaySeconds: 10, sessionCookie: true }, o);
    this.fapiUrl = (o.fapiUrl ?? fapiUrlFromPublishableKey(o.publishableKey)).replace(/\/$/, '');
    this.native = !!o.tokenStorage;
    const g = globalThis as { navigator?: { locks?: LockManagerLike }; BroadcastChannel?: new (name: string) => ChannelLike };
    // null turns locks and channel off; only a left-out (undefined) option takes the default.
    const d = withDefaults(
      {
        fetch: (...a: Parameters<typeof fetch>) => globalThis.fetch(...a),
        now: Date.now,
        locks: g.navigator?.locks ?? null,
        channel: o.channel === undefined && g.BroadcastChannel ? new g.BroadcastChannel(`latchkey:${this.fapiUrl}`) : null,
      },
      o,
    );
    this.f = d.fetch;
    this.now = d.now;
    this.locks = d.locks;
    this.channel = d.channel;
    this.channel?.addEventListener('message', (e) => this.onMessage(e.data));
  }

  get session() {
    return this.state.session;
  }
  get client() {
    return this.state.client;
  }
  get isSignedIn() {
    return this.state.session?.status === 'active';
  }

  /** Calls `listener` on every session change (sign-in, sign-out, switch, another tab's change); answers the unsubscribe. */
  addListener(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Boots from the publishable key: this device's client and active session (null when signed out). */
  async load(): Promise<SessionState> {
    const client = await this.call<Res<'GET /v1/client'>>('GET', '/v1/client');
    // Booting changes nothing for the other tabs: only sign-in, sign-up and sign-out are broadcast.
    this.setClient(client, false);
    return this.state;
  }

  // ---- sign-in and sign-up over the FAPI -------------------------------------------------

  readonly signIn = {
    create: (body: Body<'POST /v1/client/sign_ins'>) => this.step<Res<'POST /v1/client/sign_ins'>>('POST', '/v1/client/sign_ins', body),
    /** Identifier + password in one call; a second factor, when required, follows with attemptSecondFactor. */
    password: (identifier: string, password: string) => this.signIn.create({ strategy: 'password', identifier, password }),
    prepareFirstFactor: (id: string, body: Body<'POST /v1/client/sign_ins/{id}/prepare_first_factor'>) =>
      this.step<Res<'POST /v1/client/sign_ins/{id}/prepare_first_factor'>>(
        'POST',
        `/v1/client/sign_ins/${encodeURIComponent(id)}/prepare_first_factor`,
        body,
      ),
    attemptFirstFactor: (id: string, body: Body<'POST /v1/client/sign_ins/{id}/attempt_first_factor'>) =>
      this.step<Res<'POST /v1/client/sign_ins/{id}/attempt_first_factor'>>(
        'POST',
        `/v1/client/sign_ins/${encodeURIComponent(id)}/attempt_first_factor`,
        body,
      ),
    attemptSecondFactor: (id: string, body: Body<'POST /v1/client/sign_ins/{id}/attempt_second_factor'>) =>
      this.step<Res<'POST /v1/client/sign_ins/{id}/attempt_second_factor'>>(
        'POST',
        `/v1/client/sign_ins/${encodeURIComponent(id)}/attempt_second_factor`,
        body,
      ),
  };

  readonly signUp = {
    create: (body: Body<'POST /v1/client/sign_ups'>) => this.step<Res<'POST /v1/client/sign_ups'>>('POST', '/v1/client/sign_ups', body),
    prepareVerification: (id: string, body: Body<'POST /v1/client/sign_ups/{id}/prepare_verification'>) =>
      this.step<Res<'POST /v1/client/sign_ups/{id}/prepare_verification'>>(
        'POST',
        `/v1/client/sign_ups/${encodeURIComponent(id)}/prepare_verification`,
        body,
      ),
    attemptVerification: (id: string, body: Body<'POST /v1/client/sign_ups/{id}/attempt_verification'>) =>
      this.step<Res<'POST /v1/client/sign_ups/{id}/attempt_verification'>>(
        'POST',
        `/v1/client/sign_ups/${encodeURIComponent(id)}/attempt_verification`,
        body,
      ),
  };

  /** Signs this device out (every session of the client). */
  async signOut(): Promise<void> {
    const client = await this.call<Res<'DELETE /v1/client'>>('DELETE', '/v1/client');
    if (this.native) await this.o.tokenStorage!.set(null);
    this.setClient(client);
  }

  /** The signed-in user (GET /v1/me), or null when signed out. */
  async getUser(): Promise<Res<'GET /v1/me'> | null> {
    if (!this.isSignedIn) return null;
    return this.call<Res<'GET /v1/me'>>('GET', '/v1/me');
  }

  // ---- session tokens ------------------------------------------------------------------------

  /**
   * The active session's JWT for the app's own API: the cached one while it has more than
   * `refreshLeewaySeconds` left, else a new one, minted by one tab at a time for the whole
   * origin and shared with the others. Null when signed out.
   */
  async getToken(o: { skipCache?: boolean } = {}): Promise<string | null> {
    const session = this.state.session;
    if (!session || session.status !== 'active') return null;
    if (!o.skipCache) {
      const cached = this.fresh(session.id);
      if (cached) return cached;
    }
    this.inflight ??= this.refreshAcrossTabs(session.id, !!o.skipCache).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private fresh(sessionId: string): string | null {
    const t = this.token;
    const leeway = this.settings.refreshLeewaySeconds;
    return t && t.sessionId === sessionId && t.exp - leeway > this.now() / 1000 ? t.jwt : null;
  }

  private async refreshAcrossTabs(sessionId: string, force: boolean): Promise<string | null> {
    const mint = async (anotherTabWasMinting: boolean) => {
      if (!force) {
        // The tab that held the lock broadcast its token before letting go; the message may
        // still be on its way (delivery is not ordered with the lock's hand-over).
        if (anotherTabWasMinting && !this.fresh(sessionId)) await this.tokenFromAnotherTab(1000);
        const shared = this.fresh(sessionId);
        if (shared) return shared;
      }
      this.tokenRequests++;
      const { jwt } = await this.call<Res<'POST /v1/client/sessions/{id}/tokens'>>(
        'POST',
        `/v1/client/sessions/${encodeURIComponent(sessionId)}/tokens`,
      );
      this.storeToken(sessionId, jwt);
      this.channel?.postMessage({ type: 'token', sessionId, jwt });
      return jwt;
    };
    const locks = this.locks;
    if (!locks) return mint(false);
    const name = `latchkey:token:${this.fapiUrl}`;
    return locks.request(name, { ifAvailable: true }, (lock) => (lock ? mint(false) : locks.request(name, {}, () => mint(true))));
  }

  /** Resolves when another tab's token arrives, or after `ms`. */
  private tokenFromAnotherTab(ms: number) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.tokenArrived.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.tokenArrived.add(done);
    });
  }

  private storeToken(sessionId: string, jwt: string) {
    const exp = jwtExp(jwt);
    this.token = { sessionId, jwt, exp };
    this.writeSessionCookie(jwt, exp);
  }

  private onMessage(data: unknown) {
    const m = data as { type?: string; sessionId?: string; jwt?: string; client?: Client };
    if (m.type === 'token' && typeof m.jwt === 'string' && m.sessionId && m.sessionId === this.state.session?.id) {
      this.storeToken(m.sessionId, m.jwt);
      for (const arrived of [...this.tokenArrived]) arrived();
    }
    if (m.type === 'client' && m.client) this.setClient(m.client, false);
  }

  // ---- hosted pages ----------------------------------------------------------------------------

  /** The hosted sign-in page, coming back to `redirectUrl` (default: this page). */
  buildSignInUrl(o: { redirectUrl?: string } = {}) {
    return this.hostedUrl('sign-in', o.redirectUrl);
  }
  buildSignUpUrl(o: { redirectUrl?: string } = {}) {
    return this.hostedUrl('sign-up', o.redirectUrl);
  }
  buildProfileUrl(o: { redirectUrl?: string } = {}) {
    return this.hostedUrl('profile', o.redirectUrl);
  }
  redirectToSignIn(o: { redirectUrl?: string } = {}) {
    globalThis.location.assign(this.buildSignInUrl(o));
  }
  redirectToSignUp(o: { redirectUrl?: string } = {}) {
    globalThis.location.assign(this.buildSignUpUrl(o));
  }

  private hostedUrl(page: string, redirectUrl?: string) {
    const u = new URL(`${this.fapiUrl}/${page}`);
    const back = redirectUrl ?? (globalThis as { location?: Location }).location?.href;
    if (back) u.searchParams.set('redirect_url', back);
    return u.toString();
  }

  /** Stops listening to other tabs. */
  destroy() {
    this.channel?.close();
    this.listeners.clear();
  }

  // ---- plumbing --------------------------------------------------------------------------------

  private async step<T extends { client?: Client }>(method: string, path: string, body: unknown): Promise<T> {
    const res = await this.call<T>(method, path, body);
    if (res.client) this.setClient(res.client);
    return res;
  }

  private setClient(client: Client, broadcast = true) {
    const before = this.state.session;
    this.state = { client, session: client.session };
    const after = client.session;
    if (before?.id !== after?.id || before?.status !== after?.status) {
      if (!after) {
        this.token = null;
        this.writeSessionCookie(null, 0);
      }
      if (broadcast) this.channel?.postMessage({ type: 'client', client });
      for (const l of this.listeners) l(this.state);
    }
  }

  private writeSessionCookie(jwt: string | null, exp: number) {
    const opt = this.settings.sessionCookie;
    const doc = (globalThis as { document?: { cookie: string } }).document;
    if (this.native || !opt || !doc) return;
    const name = (typeof opt === 'object' && opt.name) || '__session';
    const domain = typeof opt === 'object' && opt.domain ? `; Domain=${opt.domain}` : '';
    const secure = (globalThis as { location?: Location }).location?.protocol === 'https:' ? '; Secure' : '';
    const maxAge = jwt ? Math.max(0, Math.floor(exp - this.now() / 1000)) : 0;
    doc.cookie = `${name}=${jwt ?? ''}; Path=/; SameSite=Lax; Max-Age=${maxAge}${domain}${secure}`;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'x-publishable-key': this.o.publishableKey, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let url = `${this.fapiUrl}${path}`;
    if (this.native) {
      const stored = await this.o.tokenStorage!.get();
      if (stored) headers.authorization = `Bearer ${stored}`;
      else url += `${url.includes('?') ? '&' : '?'}_is_native=1`;
    }
    const res = await this.f(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'include' });
    if (this.native) {
      const renewed = /^Bearer\s+(\S+)$/i.exec(res.headers.get('authorization') ?? '')?.[1];
      if (renewed) await this.o.tokenStorage!.set(renewed);
    }
    const parsed = (await res.json().catch(() => null)) as (T & { errors?: LatchkeyFapiError['errors'] }) | null;
    if (!res.ok) throw new LatchkeyFapiError(res.status, parsed?.errors ?? []);
    return parsed as T;
  }
}

/** `createLatchkey({ publishableKey })`, the same as `new Latchkey(…)`. */
export const createLatchkey = (o: LatchkeyOptions) => new Latchkey(o);
