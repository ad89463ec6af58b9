import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, normalize } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { listen, startApiServer, type LoopbackName } from './api-server';
import { codeSentTo } from './auth-flows';
import { createTestUser, setSettings } from './fapi-helpers';
import { TestClock, type TestHarness, type TestInstance } from './harness';
import type { InstanceSettings } from '../instances/settings';
import { FAPI_PREFIX, fapiClerkLines, fapiRoutes } from '../api/fapi';
import { meantRequest } from '../api/fapi/clerk/request';

/**
 * Clerk's own browser client against Latchkey, as a migrating customer runs it: the API on a
 * real loopback socket (PUBLIC_URL = that address), an app page on another port of the same
 * host that loads `@clerk/clerk-js`'s browser bundle from node_modules with the instance's
 * publishable key and `proxyUrl` = the instance's fapi_url, driven from Chromium. The app's
 * server side runs whatever handler a test gives it (e.g. `@clerk/backend`'s authenticateRequest).
 *
 * The app and the API share the host 127.0.0.1 (ports differ): one site, as an app at
 * app.example.com and Latchkey at auth.example.com are, so the FAPI's SameSite=Lax client
 * cookie travels with clerk-js's credentialed requests.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromiumBinary = () => existsSync(CHROMIUM);

const ROOT = join(__dirname, '../..');
const CLERK_JS_DIST = join(ROOT, 'node_modules/@clerk/clerk-js/dist');
const CLERK_UI_DIST = join(ROOT, 'node_modules/@clerk/ui/dist');

/** clerk-js (like @clerk/backend) splits a key on `_` and decodes it with atob: a key whose base64url holds `-` or `_` is refused by Clerk's parser. */
const clerkParsesKey = (pk: string) =>
  /^pk_(test|live)_[A-Za-z0-9]+$/.test(pk) && Buffer.from(pk.split('_')[2]!, 'base64').toString().includes('.');

interface FapiCall {
  method: string;
  url: URL;
  status: number;
  /** clerk-js's body (form-encoded), when it sent one. */
  body: string | null;
  response: string;
  /** A fetch or XHR of the page's script (clerk-js's), not a navigation (an IdP's redirect to the SSO callback). */
  byScript: boolean;
  /** What serves it: the Clerk dialect line (`dialect GET /v1/me/sessions/active`) or the FAPI route (`GET /v1/client`) its method and path match; null for none. */
  servedBy: string | null;
}

const pathPattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`);

/**
 * The line of the FAPI's Clerk dialect table (`fapiClerkLines`) or else the route of its route
 * table (`fapiRoutes`) that a request clerk-js made to the fapi_url is served by, as clerk-js
 * means it (a POST's `_method`, no trailing slash: `meantRequest`); null when neither has its
 * method and path.
 */
export function servedBy(method: string, url: URL, fapiUrl: string): string | null {
  const meant = meantRequest(new Request(url, { method }));
  const path = meant.url.pathname.slice(new URL(fapiUrl).pathname.length) || '/';
  const line = fapiClerkLines.find((l) => l.method === meant.method && pathPattern(l.path).test(path));
  if (line) return `dialect ${line.method} ${line.path}`;
  const route = fapiRoutes.find((r) => r.method === meant.method && pathPattern(r.path.slice(FAPI_PREFIX.length)).test(path));
  return route ? `${route.method} ${route.path.slice(FAPI_PREFIX.length)}` : null;
}

export interface ClerkBrowserHarness {
  h: TestHarness;
  inst: TestInstance;
  apiUrl: string;
  fapiUrl: string;
  appOrigin: string;
  browser: Browser;
  /**
   * Every FAPI request the browser made (newest last), for assertions and for reading what
   * clerk-js sends. `close()` fails when one clerk-js fetched matched no dialect line and no route (`servedBy`).
   */
  calls: FapiCall[];
  /** The app's own server side: answers `/app/*` paths (default 404). */
  setAppHandler(handler: (req: Request) => Promise<Response> | Response): void;
  /** A new browser context with a page on the app, clerk-js loaded (`window.Clerk`), `Clerk.load()` awaited unless `load: false`. */
  openApp(opts?: { ui?: boolean; load?: boolean; path?: string }): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

function serveFile(res: ServerResponse, root: string, rel: string) {
  const file = normalize(join(root, rel));
  if (!file.startsWith(root) || !existsSync(file)) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(file));
}

async function toFetchRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
  return new Request(`${origin}${req.url}`, { method: req.method, headers, body });
}

async function sendFetchResponse(res: ServerResponse, answer: Response) {
  const out: Record<string, string | string[]> = {};
  answer.headers.forEach((v, k) => k !== 'set-cookie' && (out[k] = v));
  const cookies = answer.headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
}

const page = (pk: string, fapiUrl: string, ui: boolean) => `<!doctype html>
<html><head><title>Clerk app</title></head><body>
<div id="app"></div>
${ui ? '<script src="/clerk-ui/ui.browser.js"></script>' : ''}
<script src="/clerk-js/clerk.browser.js" data-clerk-publishable-key="${pk}" data-clerk-proxy-url="${fapiUrl}"></script>
</body></html>`;

export async function startClerkBrowserHarness(
  o: { settings?: Partial<InstanceSettings>; env?: Record<string, string>; host?: LoopbackName } = {},
): Promise<ClerkBrowserHarness> {
  // Each browser context is its own visitor: its own address (per-IP limits), told by its user agent's tag.
  const api = await startApiServer({
    clock: TestClock.running(),
    env: o.env,
    host: o.host,
    beforeRequest: (req: IncomingMessage) => {
      const n = /LatchkeyVisitor\/(\d+)/.exec(req.headers['user-agent'] ?? '')?.[1];
      if (n)
        Object.defineProperty(req.socket, 'remoteAddress', {
          value: `10.77.${Math.floor(Number(n) / 250)}.${(Number(n) % 250) + 1}`,
          configurable: true,
        });
    },
  });
  const { h, apiUrl } = api;

  const inst = await h.createInstance();
  if (!clerkParsesKey(inst.publishableKey)) throw new Error(`clerk-js cannot parse ${inst.publishableKey}`);
  const fapiUrl = `${apiUrl}/fapi/${inst.instanceId}`;

  let appHandler: (req: Request) => Promise<Response> | Response = () => new Response('not found', { status: 404 });
  const calls: FapiCall[] = [];
  let appOrigin = '';
  const app = await listen((req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/clerk-js/')) return serveFile(res, CLERK_JS_DIST, url.slice('/clerk-js/'.length).split('?')[0]!);
    if (url.startsWith('/clerk-ui/')) return serveFile(res, CLERK_UI_DIST, url.slice('/clerk-ui/'.length).split('?')[0]!);
    if (url.startsWith('/app/')) {
      void toFetchRequest(req, appOrigin)
        .then((r) => appHandler(r))
        .then((answer) => sendFetchResponse(res, answer))
        .catch((e: unknown) => res.writeHead(500).end(String(e)));
      return;
    }
    const ui = url.includes('ui=1');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(inst.publishableKey, fapiUrl, ui));
  }, o.host);
  appOrigin = app.url;
  await setSettings(h, inst.instanceId, { allowed_origins: [appOrigin], ...o.settings });

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-blink-features=AutomationControlled'],
  });

  const defaultUserAgent = await browser.newPage().then(async (p) => {
    const ua = await p.evaluate(() => navigator.userAgent);
    await p.close();
    return ua.replace('HeadlessChrome', 'Chrome');
  });
  let visitors = 0;
  const openApp: ClerkBrowserHarness['openApp'] = async ({ ui = false, load = true, path = '/' } = {}) => {
    const userAgent = `${defaultUserAgent} LatchkeyVisitor/${++visitors}`;
    const context = await browser.newContext({ userAgent });
    const p = await context.newPage();
    const pending = new Map<string, { method: string; url: URL; body: string | null; byScript: boolean }>();
    p.on('request', (r) => {
      if (!r.url().startsWith(fapiUrl)) return;
      const byScript = r.resourceType() === 'fetch' || r.resourceType() === 'xhr';
      pending.set(r.url() + r.method(), { method: r.method(), url: new URL(r.url()), body: r.postData(), byScript });
    });
    p.on('response', (r) => {
      const req = r.request();
      const seen = pending.get(req.url() + req.method());
      if (!seen) return;
      const served = servedBy(seen.method, seen.url, fapiUrl);
      void r.text().then(
        (response) => calls.push({ ...seen, status: r.status(), response, servedBy: served }),
        () => calls.push({ ...seen, status: r.status(), response: '', servedBy: served }),
      );
    });
    if (process.env.CLERK_JS_LOG) {
      p.on('console', (m) => process.stderr.write(`[page ${m.type()}] ${m.text()}\n`));
      p.on(
        'response',
        (r) =>
          r.url().startsWith(fapiUrl) &&
          process.stderr.write(`[fapi] ${r.request().method()} ${r.url().slice(fapiUrl.length)} → ${r.status()}\n`),
      );
    }
    await p.goto(`${appOrigin}${path}${ui ? (path.includes('?') ? '&' : '?') + 'ui=1' : ''}`);
    await p.waitForFunction(() => 'Clerk' in window);
    if (load) {
      await p.evaluate(async (withUi) => {
        const w = window as unknown as { Clerk: { load(o?: object): Promise<void> }; __internal_ClerkUICtor?: unknown };
        await w.Clerk.load({ telemetry: false, ...(withUi ? { ui: { ClerkUI: w.__internal_ClerkUICtor } } : {}) });
      }, ui);
    }
    return { context, page: p };
  };

  return {
    h,
    inst,
    apiUrl,
    fapiUrl,
    appOrigin,
    browser,
    calls,
    setAppHandler: (handler) => void (appHandler = handler),
    openApp,
    async close() {
      await browser.close();
      await app.close();
      await api.close();
      // Every path clerk-js fetched is in the FAPI's tables: a route, or a line of the Clerk dialect
      // (a navigation, such as an IdP's redirect to the SSO callback under the fapi_url, is not clerk-js's).
      const unserved = [
        ...new Set(
          calls
            .filter((c) => c.byScript && c.servedBy === null)
            .map((c) => `${c.method} ${c.url.pathname.slice(new URL(fapiUrl).pathname.length)}${c.url.search}`),
        ),
      ];
      if (unserved.length > 0) {
        throw new Error(
          `clerk-js called paths that no FAPI route and no Clerk dialect line serve (server/api/fapi/index.ts):\n${unserved.join('\n')}`,
        );
      }
    },
  };
}

/** `window.Clerk` as the page's code sees it: clerk-js's browser bundle, untyped here. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PageClerk = any;

/** Runs `fn` (its source, so it may use only its arguments) in the page with `window.Clerk`. */
export async function inPage<T, A>(page: Page, fn: (clerk: PageClerk, arg: A) => Promise<T>, arg: A): Promise<T> {
  const source = fn.toString();
  return page.evaluate(
    async ({ source, arg }) => {
      const f = new Function(`return (${source})`)() as (c: unknown, a: unknown) => Promise<unknown>;
      return f((window as unknown as { Clerk: unknown }).Clerk, arg);
    },
    { source, arg },
  ) as Promise<T>;
}

/** What a ClerkAPIResponseError carries, as Clerk's UI reads it. */
export const apiError = async <A>(page: Page, fn: (clerk: PageClerk, arg: A) => Promise<unknown>, arg: A) =>
  inPage(
    page,
    async (clerk, { source, arg }) => {
      try {
        await (new Function(`return (${source})`)() as (c: unknown, a: unknown) => Promise<unknown>)(clerk, arg);
        return null;
      } catch (e) {
        const err = e as { status?: number; errors?: { code: string; longMessage?: string; meta?: { paramName?: string } }[] };
        return {
          status: err.status,
          codes: err.errors?.map((x) => x.code),
          params: err.errors?.map((x) => x.meta?.paramName),
          long: err.errors?.[0]?.longMessage,
        };
      }
    },
    { source: fn.toString(), arg },
  );

/** Waits for clerk-js on a (re)loaded page and loads it. */
export async function loadClerk(page: Page) {
  await page.waitForFunction(() => 'Clerk' in window);
  await inPage(
    page,
    async (clerk) =>
      clerk.load({ telemetry: false, ui: { ClerkUI: (window as unknown as { __internal_ClerkUICtor?: unknown }).__internal_ClerkUICtor } }),
    null,
  );
}

/** Who clerk-js says is signed in on the page. */
export const clerkState = (page: Page) =>
  inPage(
    page,
    async (clerk) => ({
      loaded: clerk.loaded as boolean,
      userId: (clerk.user?.id as string | undefined) ?? null,
      email: (clerk.user?.primaryEmailAddress?.emailAddress as string | undefined) ?? null,
      sessionId: (clerk.session?.id as string | undefined) ?? null,
      sessions: (clerk.client?.sessions ?? []).map((s: { id: string }) => s.id) as string[],
    }),
    null,
  );

/** The code emailed to an address, once its mail is written (the answer may come first). */
export async function codeEmailedTo(x: ClerkBrowserHarness, address: string): Promise<string> {
  await expect.poll(async () => (await x.h.outbox(address)).length, { timeout: 10_000 }).toBeGreaterThan(0);
  return codeSentTo(x.h, address);
}

/** Signs in on the page with clerk-js (identifier and password) and makes the new session active. */
export async function signIn(page: Page, identifier: string, password: string) {
  await inPage(
    page,
    async (clerk, { identifier, password }) => {
      const si = await clerk.client.signIn.create({ identifier, password });
      await clerk.setActive({ session: si.createdSessionId });
    },
    { identifier, password },
  );
}

/** A new user (`address`, `password`) signed in through clerk-js in a browser of their own. */
export async function signedInClerkUser(x: ClerkBrowserHarness, address: string, password: string) {
  const userId = await createTestUser(x.h, x.inst, { email_address: [address], password });
  const { context, page } = await x.openApp();
  await signIn(page, address, password);
  return { userId, address, context, page };
}

/** An organization created through clerk-js and made active. */
export const createActiveOrganization = (page: Page, name: string) =>
  inPage(
    page,
    async (clerk, name) => {
      const org = await clerk.createOrganization({ name });
      await clerk.setActive({ organization: org.id });
      return org.id as string;
    },
    name,
  );
