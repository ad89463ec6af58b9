import { inspectRoutes } from 'hono/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../../testing/harness';
import { createScim, scimRoutes } from './index';

/** Discovery only: RFC 7644 §4 lets a client read it before it has a token. */
const PUBLIC_ROUTES = [
  'GET /scim/v2/ServiceProviderConfig',
  'GET /scim/v2/ResourceTypes',
  'GET /scim/v2/ResourceTypes/:id',
  'GET /scim/v2/Schemas',
  'GET /scim/v2/Schemas/:id',
];

let h: TestHarness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('SCIM route table', () => {
  it('needs a token on every route but discovery', () => {
    for (const r of scimRoutes) {
      const name = `${r.method} ${r.path}`;
      expect(r.guard, name).toBe(PUBLIC_ROUTES.includes(name) ? 'public' : 'token');
    }
  });

  it('audits every state change', () => {
    for (const r of scimRoutes.filter((x) => x.method !== 'GET')) expect(r.endpoint.audit, `${r.method} ${r.path}`).toBeDefined();
  });

  it('matches the reviewed snapshot of the surface', () => {
    const routes = inspectRoutes(createScim(h.runtime.deps))
      .filter((r) => !r.isMiddleware)
      .map(
        (r) =>
          `${r.method.padEnd(6)} ${r.path.padEnd(34)} ${scimRoutes.find((e) => e.method === r.method && e.path === r.path)?.guard ?? 'NOT IN TABLE'}`,
      );
    expect(routes).toMatchSnapshot();
  });
});
