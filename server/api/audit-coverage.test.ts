import { describe, expect, it } from 'vitest';
import { bapiRoutes } from './bapi';
import { dashboardRoutes } from './dashboard';
import { fapiRoutes } from './fapi';

/**
 * Every state-changing route of every surface is audited by the router (an `audit.action`
 * it writes in the change's transaction, unless the domain wrote a more detailed entry),
 * or says why it changes nothing worth an entry. A route that declares neither fails here.
 */
const SURFACE_ROUTES = { bapi: bapiRoutes, fapi: fapiRoutes, dashboard: dashboardRoutes } as const;

describe('audit coverage', () => {
  for (const [surface, routes] of Object.entries(SURFACE_ROUTES)) {
    it(`every state-changing ${surface} route is audited or says why not`, () => {
      const missing = routes
        .filter((r) => r.method !== 'GET')
        .filter((r) => {
          const spec = r.endpoint.audit;
          if (!spec) return true;
          return 'unaudited' in spec ? spec.unaudited.trim().length < 10 : !/^[a-z_]+\.[a-z_]+$/.test(spec.action);
        })
        .map((r) => `${r.method} ${r.path}`);
      expect(missing).toEqual([]);
    });
  }
});
