import { inspectRoutes } from 'hono/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../../testing/harness';
import { createFapi, fapiRoutes } from './index';

let h: TestHarness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('FAPI route table', () => {
  it('has no duplicate method and path, all under the fapi_url', () => {
    const names = fapiRoutes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(names).size).toBe(names.length);
    for (const r of fapiRoutes) expect(r.path).toMatch(/^\/fapi\/:instanceId\/(v1|\.well-known)\//);
  });

  it('names the permission of every organization route, and a signed-in user wherever one is resolved', () => {
    for (const r of fapiRoutes) {
      const name = `${r.method} ${r.path}`;
      if (/\/organizations\/:id(\/|$)|\/me\/organization_memberships\/:id$/.test(r.path)) {
        expect(r.guard.org, `${name} names no organization permission`).toBeDefined();
      }
      if (r.guard.org) expect(r.guard.user, `${name} resolves no user`).toBeDefined();
      if (/\/v1\/me(\/|$)|\/v1\/client\/me\//.test(r.path)) expect(r.guard.user, `${name} resolves no user`).toBeDefined();
    }
  });

  it('matches the reviewed snapshot of the surface', () => {
    const routes = inspectRoutes(createFapi(h.runtime.deps))
      .filter((r) => !r.isMiddleware)
      .map((r) => {
        const entry = fapiRoutes.find((e) => e.method === r.method && e.path === r.path);
        return `${r.method.padEnd(6)} ${r.path.padEnd(52)} ${entry ? JSON.stringify(entry.guard) : 'NOT IN TABLE'}`;
      });
    expect(routes).toMatchSnapshot();
  });
});
