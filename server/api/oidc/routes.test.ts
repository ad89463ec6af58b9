import { inspectRoutes } from 'hono/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../../testing/harness';
import { createOidc, oidcRoutes } from './index';

let h: TestHarness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('OIDC route table', () => {
  it('has no duplicate method and path, all under the fapi_url’s /oauth2 and /.well-known', () => {
    const names = oidcRoutes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(names).size).toBe(names.length);
    for (const r of oidcRoutes) expect(r.path).toMatch(/^\/fapi\/:instanceId\/(oauth2|\.well-known)\//);
  });

  it('matches the reviewed snapshot of the surface', () => {
    const routes = inspectRoutes(createOidc(h.runtime.deps))
      .filter((r) => !r.isMiddleware)
      .map((r) => {
        const entry = oidcRoutes.find((e) => e.method === r.method && e.path === r.path);
        return `${r.method.padEnd(6)} ${r.path.padEnd(56)} ${entry ? JSON.stringify(entry.guard) : 'NOT IN TABLE'}`;
      });
    expect(routes).toMatchSnapshot();
  });
});
