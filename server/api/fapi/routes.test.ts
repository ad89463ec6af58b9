import { describe, expect, it } from 'vitest';
import { sharedHarness } from '../../testing/harness';
import { expectNoDuplicateRoutes, servedSurface } from '../../testing/route-table';
import { createFapi, fapiRoutes } from './index';
import { SURFACES } from '../surfaces';

const h = sharedHarness();

describe('FAPI route table', () => {
  it('has no duplicate method and path, all under the fapi_url and its surface prefixes', () => {
    expectNoDuplicateRoutes(fapiRoutes);
    const prefixes = SURFACES.find((s) => s.name === 'fapi')!
      .prefixes.map((p) => p.slice(1))
      .join('|');
    for (const r of fapiRoutes) expect(r.path).toMatch(new RegExp(`^/fapi/:instanceId/(${prefixes})/`));
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
    expect(servedSurface(createFapi(h.runtime.deps), fapiRoutes, 52, (e) => JSON.stringify(e.guard))).toMatchSnapshot();
  });
});
