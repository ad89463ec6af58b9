import { inspectRoutes } from 'hono/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../../testing/harness';
import { createDashboard, dashboardRoutes } from './index';

let h: TestHarness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

/** Routes that answer without a console session. */
const PUBLIC_ROUTES = ['GET /v1/dashboard/console', 'POST /v1/dashboard/setup', 'POST /v1/dashboard/invitations/accept'];

describe('dashboard route table', () => {
  it('guards every route; account routes name a role, writes at least admin', () => {
    for (const r of dashboardRoutes) {
      const name = `${r.method} ${r.path}`;
      if (r.guard.role === 'public') expect(PUBLIC_ROUTES, `${name} is public`).toContain(name);
      if (r.path.includes(':accountId')) expect(['viewer', 'admin', 'owner'], name).toContain(r.guard.role);
      if (r.path.includes(':accountId') && r.method !== 'GET') expect(r.guard.role, name).not.toBe('viewer');
    }
  });

  it('has no duplicate method and path', () => {
    const names = dashboardRoutes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it('matches the reviewed snapshot of the surface', () => {
    const routes = inspectRoutes(createDashboard(h.runtime.deps))
      .filter((r) => !r.isMiddleware)
      .map((r) => {
        const entry = dashboardRoutes.find((e) => e.method === r.method && e.path === r.path);
        return `${r.method.padEnd(6)} ${r.path.padEnd(96)} ${entry?.guard.role ?? 'NOT IN TABLE'}`;
      });
    expect(routes).toMatchSnapshot();
  });

  it('answers unknown dashboard paths with its own JSON 404, not the BAPI’s', async () => {
    const res = await h.call('GET', '/v1/dashboard/nope');
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe('NOT_FOUND');
  });
});
