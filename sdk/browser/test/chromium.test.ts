import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeSentTo } from '../../../server/testing/auth-flows';
import { sharedHarness, sharedInstance } from '../../../server/testing/harness';
import { required } from '../../../server/testing/requirements';

/**
 * In real Chromium: the cross-tab single refresh (Web Locks, BroadcastChannel): a page on a
 * local origin loads the bundled SDK; `/fapi/*` on that origin is passed to the in-process API
 * (a same-origin proxy, rewriting Origin to the API's own so the FAPI's origin check passes);
 * and the web page example (sdk/examples/web-page) served from that origin.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = required(`Chromium at ${CHROMIUM}`, existsSync(CHROMIUM), 'the Chromium tests of the browser SDK');
const h = sharedHarness();
const i = sharedInstance(h);

let server: Server;
let browser: Browser;
let origin = '';
const tokenRequests: string[] = [];

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [join(__dirname, '../src/index.ts')],
    bundle: true,
    format: 'esm',
    write: false,
    target: 'es2022',
  });
  const sdk = bundle.outputFiles[0]!.text;
  server = createServer(async (req, res) => {
    if (req.url?.startsWith('/examples/web-page/')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(readFileSync(join(__dirname, '../../examples/web-page/index.html')));
      return;
    }
    if (req.url === '/sdk.js' || req.url === '/browser/dist/index.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk);
      return;
    }
    if (req.url?.startsWith('/fapi/')) {
      if (/\/tokens(\?|$)/.test(req.url)) tokenRequests.push(req.url);
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
      if (headers.origin) headers.origin = 'http://localhost:3000';
      const answer = await h.request(req.method!, req.url, { headers, raw: chunks.length ? Buffer.concat(chunks).toString() : undefined });
      const out: Record<string, string | string[]> = {};
      answer.headers.forEach((v, k) => k !== 'set-cookie' && (out[k] = v));
      const cookies = answer.headers.getSetCookie();
      if (cookies.length) out['set-cookie'] = cookies;
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    const page = `<!doctype html><title>app</title><script type="module">import { Latchkey } from '/sdk.js'; window.Latchkey = Latchkey;</script>`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  }).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

/** Opens a tab on the app and boots the SDK there as `window.lk`. */
async function openTab(context: Awaited<ReturnType<Browser['newContext']>>, coordinate = true) {
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => 'Latchkey' in window);
  await page.evaluate(
    async ({ pk, fapiUrl, coordinate }) => {
      const { Latchkey } = window as unknown as { Latchkey: new (o: object) => { load(): Promise<unknown> } };
      const lk = new Latchkey({ publishableKey: pk, fapiUrl, ...(coordinate ? {} : { locks: null, channel: null }) });
      await lk.load();
      (window as unknown as { lk: unknown }).lk = lk;
    },
    { pk: i.publishableKey, fapiUrl: `${origin}/fapi/${i.instanceId}`, coordinate },
  );
  return page;
}

type Lk = {
  lk: {
    signUp: Record<string, (...a: unknown[]) => Promise<{ response: { id: string } }>>;
    getToken(): Promise<string>;
    isSignedIn: boolean;
  };
};

describe.skipIf(!hasChromium)('two tabs in Chromium', () => {
  it('one token request serves both tabs', async () => {
    const context = await browser.newContext();
    const tab1 = await openTab(context);
    const email = 'two-tabs@example.com';
    const id = await tab1.evaluate(async (e) => {
      const { lk } = window as unknown as Lk;
      const created = await lk.signUp.create!({ email_address: e, password: 'correct horse battery staple 42' });
      await lk.signUp.prepareVerification!(created.response.id, { strategy: 'email_code' });
      return created.response.id;
    }, email);
    const code = await codeSentTo(h, email);
    expect(
      await tab1.evaluate(
        async ([signUpId, c]) => {
          const { lk } = window as unknown as Lk;
          await lk.signUp.attemptVerification!(signUpId, { code: c });
          return lk.isSignedIn;
        },
        [id, code] as const,
      ),
    ).toBe(true);

    const tab2 = await openTab(context);
    expect(await tab2.evaluate(() => (window as unknown as Lk).lk.isSignedIn)).toBe(true);
    tokenRequests.length = 0;
    const [a, b] = await Promise.all([tab1, tab2].map((p) => p.evaluate(() => (window as unknown as Lk).lk.getToken())));
    expect(a).toMatch(/^ey/);
    expect(b).toBe(a);
    expect(tokenRequests).toHaveLength(1);
    // The token is also in the first-party __session cookie for the app's server.
    expect((await context.cookies(origin)).find((c) => c.name === '__session')?.value).toBe(a);

    // Without Web Locks and BroadcastChannel each tab would mint its own: the count above means something.
    const [loose1, loose2] = [await openTab(context, false), await openTab(context, false)];
    tokenRequests.length = 0;
    await Promise.all([loose1, loose2].map((p) => p.evaluate(() => (window as unknown as Lk).lk.getToken())));
    expect(tokenRequests).toHaveLength(2);
    await context.close();
  }, 90_000);
});

describe.skipIf(!hasChromium)('the web page example in Chromium', () => {
  it('shows the visitor signed out, sends the sign-in button to the hosted page, and shows a signed-in session', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const fapi = `${origin}/fapi/${i.instanceId}`;
    const example = `${origin}/examples/web-page/index.html?pk=${i.publishableKey}&fapi=${encodeURIComponent(fapi)}`;
    await page.goto(example);
    await expect.poll(() => page.textContent('#status')).toBe('Signed out');
    const [hosted] = await Promise.all([page.waitForRequest((r) => r.url().startsWith(`${fapi}/sign-in`)), page.click('#sign-in')]);
    expect(new URL(hosted.url()).searchParams.get('redirect_url')).toBe(example);

    // Signed in on this browser (the hosted pages are the Next.js app's; here the FAPI directly).
    await page.goto(example);
    await expect.poll(() => page.textContent('#status')).toBe('Signed out');
    const email = 'web-page-example@example.com';
    const id = await page.evaluate(
      async ({ fapiUrl, pk, e }) => {
        const post = (path: string, body: unknown) =>
          fetch(`${fapiUrl}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-publishable-key': pk },
            body: JSON.stringify(body),
          }).then((r) => r.json());
        const created = await post('/v1/client/sign_ups', { email_address: e, password: 'correct horse battery staple 42' });
        await post(`/v1/client/sign_ups/${created.response.id}/prepare_verification`, { strategy: 'email_code' });
        return created.response.id as string;
      },
      { fapiUrl: fapi, pk: i.publishableKey, e: email },
    );
    const code = await codeSentTo(h, email);
    await page.evaluate(
      async ({ fapiUrl, pk, signUpId, c }) => {
        await fetch(`${fapiUrl}/v1/client/sign_ups/${signUpId}/attempt_verification`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-publishable-key': pk },
          body: JSON.stringify({ code: c }),
        });
      },
      { fapiUrl: fapi, pk: i.publishableKey, signUpId: id, c: code },
    );
    await page.reload();
    await expect.poll(() => page.textContent('#status')).toMatch(/^Signed in \(session sess_/);
    expect(await page.isVisible('#call-api')).toBe(true);
    await page.click('#sign-out');
    await expect.poll(() => page.textContent('#status')).toBe('Signed out');
    await context.close();
  }, 90_000);
});
