import { systemContext } from '../http/actor';
import { randomBytes } from 'node:crypto';
import type { DestinationStream } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createApiHandler } from '../api';
import { loadConfig, type Config } from '../config';
import type { Clock } from '../deps';
import { desc, eq } from 'drizzle-orm';
import { emails, smsMessages } from '../db/schema';
import { emailView, smsView, type EmailView, type SmsView } from '../email/messages';
import type { Mailer } from '../infra/mail-transport';
import type { DnsResolver } from '../infra/ssrf';
import { createInstance, defaultAccount, type Environment } from '../instances/instances';
import { createSecretKey } from '../keys/secret-keys';
import { createRuntime, type Runtime } from '../runtime';
import { openTestDatabase } from './database';
import type { Database } from '../db/client';

export class TestClock implements Clock {
  private offset = 0;
  /** Frozen at `frozenAt` (by default the moment it is made); `null`: runs with the real clock. */
  constructor(private frozenAt: number | null = Date.now()) {}
  /**
   * A clock that runs with real time (`advance` still moves it on): for a server whose tokens are
   * checked by code we do not run on this clock (a browser's clerk-js, @clerk/backend in an app),
   * where a frozen clock makes a token minted a minute into the file look expired.
   */
  static running() {
    return new TestClock(null);
  }
  now = () => (this.frozenAt ?? Date.now()) + this.offset;
  advance(ms: number) {
    this.offset += ms;
  }
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** The socket peer's address, as @hono/node-server hands it to the routers. */
  remoteAddress?: string;
}

export interface TestInstance {
  instanceId: string;
  secret: string;
  keyId: string;
  publishableKey: string;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  logDestination?: DestinationStream;
  /** Email transport; default from SMTP_URL, else the dev outbox. */
  mailer?: Mailer | null;
  /** Host name resolution for outbound requests (webhooks); default the system resolver. */
  dns?: DnsResolver;
  /** Share another harness's database: a second node of the same deployment (its close leaves the database open). */
  database?: Database;
  /** Default: a clock frozen when the harness starts (see `TestClock.running()`). */
  clock?: TestClock;
}

export interface TestHarness {
  runtime: Runtime;
  clock: TestClock;
  request(method: string, path: string, opts?: RequestOptions): Promise<Response>;
  /** Sends and returns status, headers and parsed JSON body. */
  call<T = any>(method: string, path: string, opts?: RequestOptions): Promise<{ status: number; headers: Headers; body: T }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  createInstance(opts?: { environment?: Environment; scopes?: string }): Promise<TestInstance>;
  createKey(instanceId: string, scopes: string): Promise<{ id: string; secret: string }>;
  /** Emails sent to an address (any instance), newest first: read codes with `(await h.outbox(to))[0].data.code`. */
  outbox(to: string): Promise<EmailView[]>;
  /** SMS sent to a number (any instance), newest first, as stored: the text included, for the code. */
  smsOutbox(to: string): Promise<(SmsView & { body: string })[]>;
  close(): Promise<void>;
}

/** The API in-process over a fresh database, called with `app.request`-style Requests. */
export async function createHarness(opts: HarnessOptions = {}): Promise<TestHarness> {
  const clock = opts.clock ?? new TestClock();
  const database = opts.database ? { ...opts.database, close: async () => {} } : await openTestDatabase();
  const config: Config = loadConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PUBLIC_URL: 'http://localhost:3000',
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ...opts.env,
  });
  const runtime = await createRuntime(config, { database, clock, logDestination: opts.logDestination, mailer: opts.mailer, dns: opts.dns });
  const handler = createApiHandler(runtime);

  const request = async (method: string, path: string, o: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined = o.raw as string | Uint8Array<ArrayBuffer> | undefined;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const env = o.remoteAddress ? { incoming: { socket: { remoteAddress: o.remoteAddress } } } : undefined;
    return handler(new Request(`http://localhost:3000${path}`, { method, headers, body }), env);
  };

  const harness: TestHarness = {
    runtime,
    clock,
    request,
    async call(method, path, o) {
      const res = await request(method, path, o);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
    async createInstance({ environment = 'test', scopes = '*' } = {}) {
      const deps = runtime.deps;
      const account = await defaultAccount(deps);
      const instance = await createInstance(deps, { accountId: account.id, name: 'Test', environment });
      const key = await createSecretKey(deps, { instanceId: instance.id, scopes }, systemContext('test'));
      return { instanceId: instance.id, secret: key.secret, keyId: key.id, publishableKey: instance.publishableKey };
    },
    async createKey(instanceId, scopes) {
      const key = await createSecretKey(runtime.deps, { instanceId, scopes }, systemContext('test'));
      return { id: key.id, secret: key.secret };
    },
    async outbox(to) {
      const rows = await runtime.deps.db.select().from(emails).where(eq(emails.to, to)).orderBy(desc(emails.id));
      return rows.map(emailView);
    },
    async smsOutbox(to) {
      const rows = await runtime.deps.db.select().from(smsMessages).where(eq(smsMessages.to, to)).orderBy(desc(smsMessages.id));
      return rows.map((r) => ({ ...smsView(r), body: r.body }));
    },
    close: () => runtime.close(),
  };
  return harness;
}

export const notOpenYet = (): never => {
  throw new Error('shared harnesses and instances open in beforeAll: use them inside hooks and tests');
};

/** A harness that is `get()` at each use: one opened in a beforeAll, named before it opens. */
export function deferredHarness(get: () => TestHarness): TestHarness {
  return {
    get runtime() {
      return get().runtime;
    },
    get clock() {
      return get().clock;
    },
    request: (method, path, o) => get().request(method, path, o),
    call: (method, path, o) => get().call(method, path, o),
    createInstance: (o) => get().createInstance(o),
    createKey: (instanceId, scopes) => get().createKey(instanceId, scopes),
    outbox: (to) => get().outbox(to),
    smsOutbox: (to) => get().smsOutbox(to),
    close: () => get().close(),
  };
}

/**
 * The harness of the tests in the enclosing file or describe block: opened in its beforeAll,
 * closed in its afterAll, so a test file says `const h = sharedHarness()` once.
 */
export function sharedHarness(opts?: HarnessOptions): TestHarness {
  let opened: TestHarness | undefined;
  beforeAll(async () => {
    opened = await createHarness(opts);
  });
  afterAll(() => opened?.close());
  return deferredHarness(() => opened ?? notOpenYet());
}

/** A fresh instance of `h` (and its secret key), created in beforeAll once the harness is open. */
export function sharedInstance(h: TestHarness, opts?: Parameters<TestHarness['createInstance']>[0]): TestInstance {
  let created: TestInstance | undefined;
  beforeAll(async () => {
    created = await h.createInstance(opts);
  });
  const i = () => created ?? notOpenYet();
  return {
    get instanceId() {
      return i().instanceId;
    },
    get secret() {
      return i().secret;
    },
    get keyId() {
      return i().keyId;
    },
    get publishableKey() {
      return i().publishableKey;
    },
  };
}
