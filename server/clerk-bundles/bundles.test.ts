import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { clerkJSScriptUrl, clerkUIScriptUrl } from '@clerk/shared/loadClerkJsScript';
import { describe, expect, it } from 'vitest';
import { updateInstanceSettings } from '../instances/instances';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { matchVersion } from './bundles';

const h = sharedHarness();
const i = sharedInstance(h);

const ROOT = path.resolve(__dirname, '../..');
const pinned = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies as Record<string, string>;
const JS = pinned['@clerk/clerk-js']!;
const UI = pinned['@clerk/ui']!;
const JS_DIST = path.join(ROOT, 'node_modules/@clerk/clerk-js/dist');
const UI_DIST = path.join(ROOT, 'node_modules/@clerk/ui/dist');

const get = (p: string, headers: Record<string, string> = {}) => h.request('GET', `/fapi/${i.instanceId}${p}`, { headers });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('Clerk’s browser bundles under the fapi_url', () => {
  it('are installed from npm at exact pinned versions, as run-time dependencies', () => {
    expect(JS).toMatch(/^6\.\d+\.\d+$/);
    expect(UI).toMatch(/^1\.\d+\.\d+$/);
  });

  it('serves clerk-js and @clerk/ui at the major version Clerk’s SDKs ask for, briefly cached, to any origin', async () => {
    for (const [p, dist, file] of [
      ['/npm/@clerk/clerk-js@6/dist/clerk.browser.js', JS_DIST, 'clerk.browser.js'],
      ['/npm/@clerk/ui@1/dist/ui.browser.js', UI_DIST, 'ui.browser.js'],
    ] as const) {
      const res = await get(p, { origin: 'https://app.example.com' });
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('etag')).toMatch(/^"[\w-]{22}"$/);
      expect((await bytes(res)).equals(readFileSync(path.join(dist, file)))).toBe(true);
    }
  });

  it('caches an exact version for a year; major.minor and latest are ranges; 304 on a matching ETag', async () => {
    const exact = await get(`/npm/@clerk/clerk-js@${JS}/dist/clerk.browser.js`);
    expect(exact.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = exact.headers.get('etag')!;
    for (const spec of [JS.split('.').slice(0, 2).join('.'), 'latest']) {
      const res = await get(`/npm/@clerk/clerk-js@${spec}/dist/clerk.browser.js`);
      expect([res.status, res.headers.get('cache-control'), res.headers.get('etag')]).toEqual([200, 'public, max-age=300', etag]);
    }
    const again = await get(`/npm/@clerk/clerk-js@${JS}/dist/clerk.browser.js`, { 'if-none-match': `W/"other", ${etag}` });
    expect(again.status).toBe(304);
    expect((await bytes(again)).length).toBe(0);
    expect(again.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('serves the chunks each bundle loads from its exact version’s folder', async () => {
    // clerk-js rewrites its public path to `@clerk/clerk-js@<its version>/dist/`, @clerk/ui likewise.
    expect(readFileSync(path.join(JS_DIST, 'clerk.browser.js'), 'utf8')).toContain(`$1${JS}$3`);
    for (const [pkg, version, dist, marker] of [
      ['clerk-js', JS, JS_DIST, '_clerk.browser_'],
      ['ui', UI, UI_DIST, '_ui_'],
    ] as const) {
      const chunk = readdirSync(dist).find((f) => f.includes(marker) && f.endsWith('.js'))!;
      const res = await get(`/npm/@clerk/${pkg}@${version}/dist/${chunk}`);
      expect(res.status, chunk).toBe(200);
      expect((await bytes(res)).equals(readFileSync(path.join(dist, chunk)))).toBe(true);
    }
    const map = readdirSync(UI_DIST).find((f) => f.endsWith('.js.map'))!;
    expect((await get(`/npm/@clerk/ui@${UI}/dist/${map}`)).headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('answers 404 for versions the installed one does not satisfy, other packages, and anything but a file directly in dist/', async () => {
    const [major, minor, patch] = JS.split('.').map(Number) as [number, number, number];
    for (const p of [
      `/npm/@clerk/clerk-js@${major - 1}/dist/clerk.browser.js`,
      `/npm/@clerk/clerk-js@${major + 1}/dist/clerk.browser.js`,
      `/npm/@clerk/clerk-js@${major}.${minor + 1}/dist/clerk.browser.js`,
      `/npm/@clerk/clerk-js@${major}.${minor}.${patch + 1}/dist/clerk.browser.js`,
      '/npm/@clerk/clerk-js@beta/dist/clerk.browser.js',
      '/npm/@clerk/clerk-js@^6/dist/clerk.browser.js',
      '/npm/@clerk/backend@3/dist/index.js',
      '/npm/@clerk/clerk-js@6/dist/..%2Fpackage.json',
      '/npm/@clerk/clerk-js@6/dist/%2e%2e%2fpackage.json',
      '/npm/@clerk/clerk-js@6/dist/..',
      '/npm/@clerk/clerk-js@6/dist/types',
      '/npm/@clerk/clerk-js@6/dist/types/index.d.ts',
      '/npm/@clerk/clerk-js@6/package.json',
      '/npm/@clerk/ui@1/dist/index.d.ts',
      '/npm/@clerk/ui@1/dist/nope.js',
    ]) {
      const res = await get(p);
      expect(res.status, p).toBe(404);
      expect((await res.json()).errors[0].code).toBe('NOT_FOUND');
    }
    expect((await h.request('GET', '/fapi/ins_01J0000000000000000000000/npm/@clerk/clerk-js@6/dist/clerk.browser.js')).status).toBe(404);
  });

  it('are at the URLs Clerk’s SDKs build from the proxy URL, and at a custom domain’s root', async () => {
    const proxyUrl = `http://localhost:3000/fapi/${i.instanceId}`;
    for (const url of [
      clerkJSScriptUrl({ publishableKey: i.publishableKey, proxyUrl }),
      clerkUIScriptUrl({ publishableKey: i.publishableKey, proxyUrl }),
    ]) {
      expect(url.startsWith(`https://localhost:3000/fapi/${i.instanceId}/npm/@clerk/`)).toBe(true);
      expect((await h.request('GET', new URL(url).pathname)).status, url).toBe(200);
    }
    const domain = 'clerk.bundles.example';
    await updateInstanceSettings(h.runtime.deps, i.instanceId, { custom_domain: domain }, { actor: 'test' });
    const publishableKey = (await h.call('GET', '/v1/environment', { headers: { host: domain } })).body.instance.publishable_key as string;
    const url = clerkJSScriptUrl({ publishableKey });
    expect(url).toBe(`https://${domain}/npm/@clerk/clerk-js@6/dist/clerk.browser.js`);
    const res = await h.request('GET', new URL(url).pathname, { headers: { host: domain } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
  });
});

describe('version matching', () => {
  it('takes the exact version, its major, its major.minor and latest, nothing else', () => {
    expect(matchVersion('6.40.0', '6.40.0')).toBe('exact');
    expect(['6', '6.40', 'latest'].map((s) => matchVersion(s, '6.40.0'))).toEqual(['range', 'range', 'range']);
    expect(['5', '6.4', '6.40.1', '60', '6.400', '^6', '6.x', 'beta', ''].map((s) => matchVersion(s, '6.40.0'))).toEqual(
      Array(9).fill(null),
    );
  });
});
