import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../../testing/harness';
import { expectNoDuplicateRoutes, servedSurface } from '../../testing/route-table';
import { createLti, ltiRoutes } from './index';

let h: TestHarness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('LTI route table', () => {
  it('has no duplicate method and path, all under the fapi_url’s /lti', () => {
    expectNoDuplicateRoutes(ltiRoutes);
    for (const r of ltiRoutes) expect(r.path).toMatch(/^\/fapi\/:instanceId\/lti\//);
  });

  it('matches the reviewed snapshot of the surface', () => {
    expect(servedSurface(createLti(h.runtime.deps), ltiRoutes, 32, (e) => JSON.stringify(e.guard))).toMatchSnapshot();
  });
});
