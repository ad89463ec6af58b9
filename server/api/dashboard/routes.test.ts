import { describe, expect, it } from 'vitest';
import { sharedHarness } from '../../testing/harness';
import { expectNoDuplicateRoutes, servedSurface } from '../../testing/route-table';
import { createDashboard, dashboardRoutes } from './index';

const h = sharedHarness();

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

  it('has no duplicate method and path', () => expectNoDuplicateRoutes(dashboardRoutes));

  it('matches the reviewed snapshot of the surface', () => {
    expect(servedSurface(createDashboard(h.runtime.deps), dashboardRoutes, 96, (e) => e.guard.role)).toMatchSnapshot();
  });

  it('answers unknown dashboard paths with its own JSON 404, not the BAPI’s', async () => {
    const res = await h.call('GET', '/v1/dashboard/nope');
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe('NOT_FOUND');
  });
});
