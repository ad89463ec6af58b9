import { execFileSync, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApi, type StartedApi } from '../test-support/api-process';
import { verifyToken } from '../backend/src/index';

/**
 * The SDKs as npm publishes them: `npm pack` of each, installed into a scratch project outside
 * the repository with the READMEs' own `npm install` (the tarball in place of the registry
 * name), type-checked there under moduleResolution node16 and bundler, then run against the
 * API started as a customer runs it: a smoke script, every code block of both READMEs
 * (the keys and URLs filled in, nothing else changed), the browser blocks in Chromium on a
 * plain page that loads the packed browser SDK.
 */
const ROOT = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
/** What the README blocks need besides the SDKs, at the versions this repository uses (in npm's cache). */
const EXTRAS = ['express', '@types/express', 'react', 'react-dom', '@types/react', '@types/react-dom', '@types/node'].map(
  (p) => `${p}@${(JSON.parse(readFileSync(path.join(ROOT, 'node_modules', p, 'package.json'), 'utf8')) as { version: string }).version}`,
);

interface Block {
  lang: string;
  code: string;
}
const blocksOf = (readme: string): Block[] =>
  [...readFileSync(path.join(ROOT, readme), 'utf8').matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
const backendBlocks = blocksOf('sdk/backend/README.md');
const browserBlocks = blocksOf('sdk/browser/README.md');

let scratch = '';
let api: StartedApi;
const tarballs: Record<'backend' | 'browser', string> = { backend: '', browser: '' };

const run = (cmd: string, args: string[], cwd = scratch) => {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
};

beforeAll(async () => {
  const started = startApi({ env: { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'info' } });
  scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-published-'));
  for (const name of ['backend', 'browser'] as const) {
    const dir = path.join(ROOT, 'sdk', name);
    run(process.execPath, [TSC, '-p', 'tsconfig.json'], dir);
    tarballs[name] = run('npm', ['pack', '--silent', '--pack-destination', scratch], dir).trim().split('\n').pop()!;
  }
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'customer-app', private: true, type: 'module' }, null, 2));
  // Each README's install command, as written but for the tarball in place of the registry name.
  for (const [blocks, name] of [
    [backendBlocks, 'backend'],
    [browserBlocks, 'browser'],
  ] as const) {
    const install = blocks.find((b) => b.lang === 'sh')!.code.trim();
    expect(install).toBe(`npm install @latchkey/${name}`);
    run('npm', [...install.replace(`@latchkey/${name}`, `./${tarballs[name]}`).split(' ').slice(1), '--prefer-offline']);
  }
  run('npm', ['install', '--prefer-offline', ...EXTRAS]);
  api = await started;
}, 300_000);

afterAll(async () => {
  server?.close();
  await api?.stop();
  if (scratch && !process.env.KEEP_SCRATCH) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed tarballs', () => {
  it('hold the built package, its types and README, and no sources or tests', () => {
    for (const name of ['backend', 'browser'] as const) {
      const files = execFileSync('tar', ['-tzf', path.join(scratch, tarballs[name])], { encoding: 'utf8' })
        .trim()
        .split('\n');
      expect(tarballs[name]).toBe(`latchkey-${name}-0.1.0.tgz`);
      expect(files).toEqual(
        expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts']),
      );
      expect(files.filter((f) => !f.startsWith('package/dist/') && !['package/package.json', 'package/README.md'].includes(f))).toEqual([]);
      expect(files.some((f) => /\.test\.|\/src\//.test(f))).toBe(false);
    }
    expect(existsSync(path.join(scratch, 'node_modules/standardwebhooks/package.json'))).toBe(true);
  });
});

/** The README blocks as files of the customer project: keys and URLs filled in, nothing else changed. */
function writeProject() {
  const src = path.join(scratch, 'src');
  mkdirSync(src, { recursive: true });
  copyFileSync(path.join(__dirname, 'smoke.ts'), path.join(src, 'smoke.ts'));
  backendBlocks
    .filter((b) => b.lang === 'ts')
    .forEach((b, i) => writeFileSync(path.join(src, `backend-${i + 1}.ts`), b.code.replaceAll('https://auth.example.com', api.url)));
  const browserTs = browserBlocks.filter((b) => b.lang === 'ts');
  const fill = (code: string) => code.replaceAll("'pk_test_…'", `'${proxiedKey}'`).replaceAll('"pk_test_…"', `"${proxiedKey}"`);
  // Tasks 1 to 4 continue each other: one page's script. Then the native-mode block, alone.
  writeFileSync(
    path.join(src, 'browser-web.ts'),
    fill(
      browserTs
        .slice(0, 4)
        .map((b) => b.code)
        .join('\n'),
    ),
  );
  writeFileSync(path.join(src, 'browser-native.ts'), fill(browserTs[4]!.code));
  writeFileSync(path.join(src, 'browser-react.tsx'), fill(browserBlocks.find((b) => b.lang === 'tsx')!.code));
  const base = {
    target: 'ES2022',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    strict: true,
    jsx: 'react-jsx',
    esModuleInterop: true,
    types: ['node'],
    skipLibCheck: false,
  };
  writeFileSync(
    path.join(scratch, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...base, module: 'node16', moduleResolution: 'node16', outDir: 'out' }, include: ['src'] }),
  );
  writeFileSync(
    path.join(scratch, 'tsconfig.bundler.json'),
    JSON.stringify({ compilerOptions: { ...base, module: 'esnext', moduleResolution: 'bundler', noEmit: true }, include: ['src'] }),
  );
}

/** A publishable key naming the FAPI as the harness page's origin mounts it (`/fapi/…`, proxied to the API). */
let proxiedKey = '';
let pageOrigin = '';
let compiled: SpawnSyncReturns<string>;
let server: Server | undefined;
let servePage: (req: IncomingMessage, res: ServerResponse) => Promise<unknown> | void = (_req, res) => void res.writeHead(404).end();

describe('in a customer project', () => {
  beforeAll(async () => {
    // The customer's page origin, bound at once so that nothing else takes its port.
    const listening = createServer((req, res) => void servePage(req, res)).listen(0, '127.0.0.1');
    await new Promise((r) => listening.once('listening', r));
    server = listening;
    pageOrigin = `http://localhost:${(listening.address() as { port: number }).port}`;
    proxiedKey = `pk_test_${Buffer.from(`${new URL(pageOrigin).host}${new URL(api.fapiUrl).pathname}$`).toString('base64url')}`;
    writeProject();
    // Compiled (and checked) under node16 here: the blocks below run the output.
    compiled = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: scratch, encoding: 'utf8' });
  }, 180_000);

  it('type-checks under moduleResolution node16 and bundler', () => {
    expect(compiled.status, compiled.stdout).toBe(0);
    run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json']);
  }, 120_000);

  const node = (file: string, extra: Record<string, string> = {}) =>
    spawnSync(process.execPath, [path.join(scratch, 'out', file)], {
      cwd: scratch,
      encoding: 'utf8',
      env: {
        ...process.env,
        LATCHKEY_PUBLISHABLE_KEY: api.publishableKey,
        LATCHKEY_SECRET_KEY: api.secretKey,
        LATCHKEY_API_URL: api.url,
        ...extra,
      },
    });

  it('runs the smoke script: the backend API, a session token verified offline, a webhook', () => {
    const r = node('smoke.js');
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { userId: string; verifiedUserId: string; nextStatus: string; webhook: string };
    expect(out).toEqual({
      userId: expect.stringMatching(/^user_/),
      verifiedUserId: out.userId,
      nextStatus: 'signed-in',
      webhook: 'user.created',
    });
  });

  it('runs every code block of sdk/backend/README.md as written', async () => {
    const res = await fetch(`${api.url}/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.secretKey}`, 'content-type': 'application/json' },
      body: '{"email_address":["readme@example.com"]}',
    });
    const user = (await res.json()) as { id: string };
    const session = (await (
      await fetch(`${api.url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: user.id }),
      })
    ).json()) as { id: string; jwt: string };
    const env = { SESSION_TOKEN: session.jwt };
    const expected: Record<number, RegExp> = {
      1: new RegExp(`^signed in as ${user.id}$`, 'm'),
      2: new RegExp(`^${user.id} ${session.id} active null null null \\[\\]$`, 'm'),
      3: /^404 NOT_FOUND \{.*\} req_/m,
      5: /^3 true \d+$/m,
    };
    const ts = backendBlocks.filter((b) => b.lang === 'ts');
    expect(ts).toHaveLength(5);
    for (const [n, pattern] of Object.entries(expected)) {
      const r = node(`backend-${n}.js`, env);
      expect(r.status, `README block ${n}: ${r.stderr}`).toBe(0);
      expect(r.stdout, `README block ${n}`).toMatch(pattern);
    }

    // Block 4 is a webhook receiver: started, sent a signed delivery and a forged one.
    const port = String(await freePort());
    const secret = `whsec_${Buffer.from('a webhook secret of 32 bytes....').toString('base64')}`;
    const receiver = spawn(process.execPath, [path.join(scratch, 'out/backend-4.js')], {
      cwd: scratch,
      env: { ...process.env, PORT: port, LATCHKEY_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    receiver.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const body = JSON.stringify({ type: 'user.created', data: { id: user.id } });
      const headers = {
        'webhook-id': 'msg_readme',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': new Webhook(secret).sign('msg_readme', new Date(), body),
        'content-type': 'application/json',
      };
      let delivered: Response | undefined;
      for (let i = 0; i < 100 && !delivered; i++) {
        delivered = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', headers, body }).catch(
          () => new Promise<undefined>((r) => setTimeout(r, 100)),
        );
      }
      expect(delivered?.status).toBe(204);
      expect(out).toContain('webhook user.created');
      const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers,
        body: body.replace('user.created', 'user.deleted'),
      });
      expect(forged.status).toBe(400);
    } finally {
      receiver.kill('SIGTERM');
      await new Promise((r) => (receiver.exitCode !== null || receiver.signalCode !== null ? r(null) : receiver.once('exit', r)));
    }
  }, 60_000);

  // Under CI a missing Chromium fails the run instead of skipping it.
  describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('in Chromium', () => {
    let browser: Browser;
    const meCalls: string[] = [];
    const fapiPaths: string[] = [];

    beforeAll(async () => {
      const react = await build({
        entryPoints: [path.join(scratch, 'out/browser-react.js')],
        absWorkingDir: scratch,
        bundle: true,
        format: 'esm',
        write: false,
        define: { 'process.env.NODE_ENV': '"production"' },
      });
      const apiUrl = new URL(api.url);
      const page = (script: string) =>
        '<!doctype html><meta charset="utf-8"><title>customer page</title>' +
        '<script type="importmap">{"imports":{"@latchkey/browser":"/node_modules/@latchkey/browser/dist/index.js"}}</script>' +
        `<div id="root"></div><script type="module" src="${script}"></script>`;
      servePage = async (req, res) => {
        const url = req.url ?? '/';
        if (url.startsWith('/fapi/')) {
          fapiPaths.push(url);
          // The FAPI mounted on this origin, as a customer's reverse proxy would: the real key, the API's own origin.
          const headers = {
            ...req.headers,
            host: apiUrl.host,
            'x-publishable-key': api.publishableKey,
            ...(req.headers.origin ? { origin: apiUrl.origin } : {}),
          };
          const out = forward({ host: '127.0.0.1', port: apiUrl.port, method: req.method, path: url, headers }, (answer) => {
            fapiPaths.push(`${answer.statusCode} ${url}`);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          });
          out.on('error', () => res.destroy());
          return void req.pipe(out);
        }
        if (url === '/api/me') {
          const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
          const auth = await verifyToken(token, { publishableKey: api.publishableKey }).catch(() => null);
          meCalls.push(auth?.userId ?? 'refused');
          return void res
            .writeHead(auth ? 200 : 401, { 'content-type': 'application/json' })
            .end(JSON.stringify({ userId: auth?.userId ?? null }));
        }
        const file = (rel: string, type: string) => res.writeHead(200, { 'content-type': type }).end(readFileSync(path.join(scratch, rel)));
        if (url.startsWith('/node_modules/@latchkey/browser/dist/') && !url.includes('..')) return file(url.slice(1), 'text/javascript');
        if (url.startsWith('/out/') && !url.includes('..')) return file(url.slice(1), 'text/javascript');
        if (url === '/react.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(react.outputFiles[0]!.text);
        const pages: Record<string, string> = {
          '/web.html': page('/out/browser-web.js'),
          '/native.html': page('/out/browser-native.js'),
          '/react.html': page('/react.js'),
        };
        if (pages[url]) return void res.writeHead(200, { 'content-type': 'text/html' }).end(pages[url]);
        res.writeHead(404).end();
      };
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    }, 60_000);
    afterAll(() => browser?.close());

    it('a plain page loads the packed browser SDK and runs the README blocks: boot, sign-up with the emailed code, sign-in, a token for the app API, the hosted pages, React, native mode', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const logs: string[] = [];
      page.on('console', (m) => logs.push(m.text()));
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('requestfailed', (r) => errors.push(`${r.url()} ${r.failure()?.errorText}`));
      // The code the FAPI emailed, read from the dev outbox as the user reads their mail.
      page.on('dialog', async (dialog) => {
        const r = await fetch(`${api.url}/v1/emails?to=katherine%40example.com&template=verification_code`, {
          headers: { authorization: `Bearer ${api.secretKey}` },
        });
        const { data } = (await r.json()) as { data: { data: { code: string } }[] };
        await dialog.accept(data[0]!.data.code);
      });
      const fapiPath = new URL(api.fapiUrl).pathname;
      let hosted = '';
      await page.route(`${pageOrigin}${fapiPath}/sign-up*`, (route) => {
        hosted = route.request().url();
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>hosted sign-up</title>' });
      });
      await page.goto(`${pageOrigin}/web.html`);
      await expect
        .poll(() => hosted, { timeout: 30_000 })
        .not.toBe('')
        .catch(async (e: unknown) => {
          const direct = await fetch(`${api.fapiUrl}/v1/client`, {
            headers: { 'x-publishable-key': api.publishableKey },
            signal: AbortSignal.timeout(5000),
          }).then(
            (r) => r.status,
            (err: Error) => err.message,
          );
          throw new Error(JSON.stringify({ logs, errors, fapiPaths, direct, api: api.output().slice(-4000) }), { cause: e });
        });
      // The hosted page's navigation lands before the next one starts (else Chromium interrupts one with the other).
      await page.waitForURL((u) => u.pathname.endsWith('/sign-up'), { waitUntil: 'load' });
      expect(errors).toEqual([]);
      expect(new URL(hosted).searchParams.get('redirect_url')).toBe('https://app.example.com/welcome');
      expect(logs[0]).toBe('false null');
      expect(logs.filter((l) => l.startsWith('session '))).toEqual([
        expect.stringMatching(/^session sess_/),
        'session null',
        expect.stringMatching(/^session sess_/),
      ]);
      expect(meCalls).toEqual([expect.stringMatching(/^user_/)]);
      // The token also landed in the app's first-party __session cookie.
      expect((await context.cookies(pageOrigin)).find((c) => c.name === '__session')?.value).toMatch(/^ey/);

      // React: the same browser is signed in; <SignedIn> shows the profile.
      await page.goto(`${pageOrigin}/react.html`);
      await expect
        .poll(() => page.textContent('#root'), { timeout: 15_000 })
        .toMatch(new RegExp(`^Signed in as ${meCalls[0]} \\(session sess_`));
      expect(errors).toEqual([]);

      // Native mode: no cookie; the client asks for a client token to keep in the app's storage.
      fapiPaths.length = 0;
      await page.goto(`${pageOrigin}/native.html`);
      await expect.poll(() => fapiPaths.some((p) => p.includes('/v1/client?_is_native=1'))).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    }, 90_000);
  });
});
