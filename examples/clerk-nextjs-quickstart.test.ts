import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromiumBinary } from '../server/testing/clerk-browser';
import { cliProcess, generateClerkCsv } from '../server/testing/clerk-export';
import { required } from '../server/testing/requirements';
import { createTestCa } from '../server/testing/tls';

/**
 * Clerk's Next.js quickstart (examples/clerk-nextjs-quickstart/: `@clerk/nextjs` 7.9, Next 16,
 * no Latchkey code) against a fresh Latchkey, set up as docs/clerk.md#nextjs says, step by step:
 * `npm run api` on a new embedded store behind a TLS proxy (as production puts one in front),
 * an instance, its keys, the app's origin allowed and a Clerk export imported with the CLI and
 * curl; the app built and started with the four variables and nothing else of Clerk's; then a
 * visitor in Chromium: the middleware's redirect, sign-in with the password the user had at
 * Clerk, `auth()` and `currentUser()` in a page and a route handler, token renewal in the page
 * and through the handshake, sign-out from `<UserButton />`.
 *
 * The app is served over HTTPS too, by a TLS proxy in front of `next start`: @clerk/nextjs loads
 * clerk-js from `https://` + the proxy URL's host, so Latchkey is on HTTPS, and Chromium counts
 * http and https pages of one host as different sites, so an http app would never get the
 * FAPI's client cookie (the docs say so).
 */

const ROOT = path.resolve(__dirname, '..');
const APP_DIR = path.join(ROOT, 'examples/clerk-nextjs-quickstart');
const NEXT_BIN = path.join(ROOT, 'node_modules/next/dist/bin/next');
const BASE_PORT = Number(process.env.CLERK_NEXTJS_PORT_BASE ?? 4150);
const PORTS = { latchkey: BASE_PORT, latchkeyTls: BASE_PORT + 1, app: BASE_PORT + 2, appTls: BASE_PORT + 3 };
const PUBLIC_URL = `https://127.0.0.1:${PORTS.latchkeyTls}`;
const APP_ORIGIN = `https://127.0.0.1:${PORTS.appTls}`;

const available = required('Chromium', hasChromiumBinary(), 'the Clerk Next.js quickstart test');

/** The environment without any Clerk or Next.js public variable of the caller's: the app gets only what the test gives it. */
const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLERK_|NEXT_PUBLIC_)/.test(k))) as NodeJS.ProcessEnv;

const children: ChildProcess[] = [];
function spawnNode(args: string[], env: Record<string, string>, cwd: string, name: string): ChildProcess {
  const child = spawn(process.execPath, args, { cwd, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d}`));
  children.push(child);
  return child;
}

const finished = (child: ChildProcess) =>
  new Promise<void>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exited with ${code}`)))));

async function answers(url: string, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status > 0 && status < 500) return;
    if (Date.now() > end) throw new Error(`${url} did not answer in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A TLS-terminating reverse proxy, as Caddy, nginx or a load balancer is in production. */
function tlsProxy(cert: { certPem: string; keyPem: string }, port: number, upstreamPort: number) {
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const headers = { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': req.socket.remoteAddress ?? '' };
    const upstream = http.request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.headersSent || res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise<https.Server>((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(!available)('Clerk’s Next.js quickstart against a fresh Latchkey (docs/clerk.md#nextjs)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'latchkey-nextjs-'));
  const caFile = path.join(dataDir, 'ca.pem');
  const latchkeyEnv = {
    PORT: String(PORTS.latchkey),
    HOST: '127.0.0.1',
    PUBLIC_URL,
    TRUST_PROXY: '1',
    TRUSTED_PROXIES: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  const cli = cliProcess(latchkeyEnv);
  const proxies: https.Server[] = [];
  let browser: Browser;
  let user: ReturnType<typeof generateClerkCsv>['users'][number];
  let appEnv: Record<string, string>;

  /** `npm run cli -- …args`, its JSON answer. */
  const latchkey = async <T>(args: string[]): Promise<T> => {
    const r = await cli.run(args);
    if (r.code !== 0) throw new Error(`npm run cli -- ${args.join(' ')}: ${r.stderr}`);
    return (args.includes('--json') ? JSON.parse(r.stdout) : r.stdout) as T;
  };

  beforeAll(async () => {
    const started = Date.now();
    const lap = (what: string) => process.stderr.write(`[clerk-nextjs] ${what}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    const ca = await createTestCa();
    writeFileSync(caFile, ca.certPem);
    const cert = await ca.issue(['127.0.0.1']);
    proxies.push(await tlsProxy(cert, PORTS.latchkeyTls, PORTS.latchkey));
    spawnNode(['--import', 'tsx', 'server/main/api.ts'], latchkeyEnv, ROOT, 'latchkey');
    await answers(`http://127.0.0.1:${PORTS.latchkey}/healthz`, 180_000);
    lap('Latchkey up');

    // Steps 1-3 of the docs: the instance, its keys, the app's origin, the users.
    const instance = await latchkey<{ instance_id: string; publishable_key: string; fapi_url: string }>([
      'instance',
      'create',
      '--name',
      'Shop',
      '--env',
      'test',
      '--json',
    ]);
    expect(instance.fapi_url).toBe(`${PUBLIC_URL}/fapi/${instance.instance_id}`);
    expect(instance.publishable_key).toMatch(/^pk_test_/);
    const appKey = await latchkey<{ secret: string }>([
      'keys',
      'create',
      '--instance',
      instance.instance_id,
      '--scopes',
      'users:read',
      '--name',
      'Next.js app',
      '--json',
    ]);
    const adminKey = await latchkey<{ secret: string }>([
      'keys',
      'create',
      '--instance',
      instance.instance_id,
      '--scopes',
      'instance:write',
      '--name',
      'Setup',
      '--json',
    ]);
    const { stdout: patched } = await promisify(execFile)(
      'curl',
      [
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-X',
        'PATCH',
        `${PUBLIC_URL}/v1/instance`,
        '-H',
        `Authorization: Bearer ${adminKey.secret}`,
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify({ allowed_origins: [APP_ORIGIN] }),
      ],
      { env: { ...process.env, CURL_CA_BUNDLE: caFile } },
    );
    expect(patched).toBe('204');
    const exported = generateClerkCsv(3);
    user = exported.users[1]!;
    const csv = path.join(dataDir, 'users.csv');
    writeFileSync(csv, exported.csv);
    const summary = await latchkey<{ users: { created: number } }>(['import', 'clerk', csv, '--instance', instance.instance_id, '--json']);
    expect(summary.users.created).toBe(3);
    lap('instance, keys, origin and users');

    // Step 4: the app with the four variables (NODE_EXTRA_CA_CERTS only because the test's CA is private).
    appEnv = {
      NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY: instance.publishable_key,
      CLERK_SECRET_KEY: appKey.secret,
      CLERK_API_URL: PUBLIC_URL,
      NEXT_PUBLIC_CLERK_PROXY_URL: instance.fapi_url,
      NODE_EXTRA_CA_CERTS: caFile,
      NEXT_TELEMETRY_DISABLED: '1',
    };
    await finished(spawnNode([NEXT_BIN, 'build'], appEnv, APP_DIR, 'next build'));
    lap('next build');
    spawnNode([NEXT_BIN, 'start', '-p', String(PORTS.app)], appEnv, APP_DIR, 'next start');
    await answers(`http://127.0.0.1:${PORTS.app}/`, 180_000);
    proxies.push(await tlsProxy(cert, PORTS.appTls, PORTS.app));
    lap('next start');

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    cli.killAll();
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((r) => c.on('exit', r))));
    for (const p of proxies) p.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A visitor of the app (the test's CA is private: the browser is told to accept it). */
  async function visitor(): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => void requests.push(r.url()));
    page.on('response', (r) => r.status() >= 500 && process.stderr.write(`[browser] ${r.status()} ${r.request().method()} ${r.url()}\n`));
    return { context, page, requests };
  }

  const routeHandler = (page: Page) =>
    page.evaluate(async () => {
      const res = await fetch('/api/me');
      return { status: res.status, body: (await res.json()) as { userId?: string; sessionId?: string; email?: string } };
    });

  it('an imported user signs in with their Clerk password; auth(), renewal and sign-out work', async () => {
    const { context, page, requests } = await visitor();
    const sessionCookie = async () => (await context.cookies(APP_ORIGIN)).find((c) => c.name === '__session')?.value;

    // clerkMiddleware + auth.protect(): a signed-out visitor goes to the app's <SignIn /> page.
    await page.goto(`${APP_ORIGIN}/dashboard`);
    await page.waitForURL(`${APP_ORIGIN}/sign-in?redirect_url=${encodeURIComponent(`${APP_ORIGIN}/dashboard`)}`);
    expect(await routeHandler(page)).toMatchObject({ status: 401 });
    // clerk-js and @clerk/ui came from Latchkey, at the URLs @clerk/nextjs builds from the proxy URL.
    expect(requests).toContain(`${appEnv.NEXT_PUBLIC_CLERK_PROXY_URL}/npm/@clerk/clerk-js@6/dist/clerk.browser.js`);
    expect(requests).toContain(`${appEnv.NEXT_PUBLIC_CLERK_PROXY_URL}/npm/@clerk/ui@1/dist/ui.browser.js`);

    // The imported user: a wrong password is refused, the one they had at Clerk signs them in.
    await page.getByLabel(/email/i).fill(user.email);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    const password = page.locator('input[name="password"]:not([disabled])');
    await password.fill('not the old password');
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expect.poll(() => page.locator('input[name="password"]').getAttribute('aria-invalid')).toBe('true');
    await password.fill(user.password);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await page.waitForURL(`${APP_ORIGIN}/dashboard`);

    // auth() and currentUser() in the server component and the route handler: the Clerk id kept by the import.
    await expect.poll(() => page.getByTestId('user-id').textContent()).toBe(user.id);
    expect(await page.getByTestId('email').textContent()).toBe(user.email);
    const sessionId = await page.getByTestId('session-id').textContent();
    expect(sessionId).toMatch(/^sess_/);
    expect(await routeHandler(page)).toEqual({ status: 200, body: { userId: user.id, sessionId, email: user.email } });

    // Renewal in the page: clerk-js fetches a new session token and the app's cookie follows.
    // (Tokens carry their second of issue and no jti: one minted in the same second is the same token.)
    const first = await sessionCookie();
    const renew = () =>
      page.evaluate(() =>
        (window as unknown as { Clerk: { session: { getToken(o: object): Promise<string> } } }).Clerk.session.getToken({ skipCache: true }),
      );
    await expect.poll(async () => (await renew(), sessionCookie())).not.toBe(first);
    expect(await routeHandler(page)).toMatchObject({ status: 200, body: { userId: user.id } });

    // Renewal through the handshake: without __session (and its suffixed copy), the next page
    // load goes by Latchkey's /v1/client/handshake and comes back signed in with a token.
    await context.clearCookies({ name: /^__session/ });
    requests.length = 0;
    await page.goto(`${APP_ORIGIN}/dashboard`);
    expect(requests.some((u) => u.startsWith(`${appEnv.NEXT_PUBLIC_CLERK_PROXY_URL}/v1/client/handshake?`))).toBe(true);
    await expect.poll(() => page.getByTestId('user-id').textContent()).toBe(user.id);
    expect(await page.getByTestId('session-id').textContent()).toBe(sessionId);
    // The handshake set it again.
    expect(await sessionCookie()).toMatch(/^ey/);

    // Sign-out from <UserButton />'s menu: back on the home page, signed out everywhere.
    await page.getByRole('button', { name: /open user menu/i }).click();
    await page
      .getByRole('menuitem', { name: 'Sign out' })
      .or(page.getByRole('button', { name: 'Sign out', exact: true }))
      .click();
    await page.waitForURL(`${APP_ORIGIN}/`);
    await expect.poll(async () => (await routeHandler(page)).status).toBe(401);
    await page.goto(`${APP_ORIGIN}/dashboard`);
    await page.waitForURL(/\/sign-in\?redirect_url=/);
    await context.close();
  }, 180_000);
});
