import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../../testing/harness';
import { expectNoDuplicateRoutes, servedSurface } from '../../testing/route-table';
import { createPortal, portalRoutes } from './index';

let h: TestHarness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('admin portal route table', () => {
  it('has no duplicate method and path, all under the fapi_url’s /v1/portal', () => {
    expectNoDuplicateRoutes(portalRoutes);
    for (const r of portalRoutes) expect(r.path).toMatch(/^\/fapi\/:instanceId\/v1\/portal\//);
  });

  it('matches the reviewed snapshot of the surface', () => {
    expect(servedSurface(createPortal(h.runtime.deps), portalRoutes, 64, (e) => JSON.stringify(e.guard))).toMatchSnapshot();
  });
});
