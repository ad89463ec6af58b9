import { describe, expect, it } from 'vitest';
import { ANY_KEY, NO_KEY } from './authenticate';
import { isScope } from '../../keys/scopes';
import { sharedHarness } from '../../testing/harness';
import { expectNoDuplicateRoutes, servedSurface } from '../../testing/route-table';
import { bapiRoutes, createBapi } from './index';

/** Routes that answer without a key; anything else must name its scope. */
/** Stripe's webhook and Twilio's status callback are public: their signatures are the credential. */
const PUBLIC_ROUTES = [
  'GET /v1/openapi.json',
  'POST /v1/billing/webhooks/stripe/:instance_id',
  'POST /v1/sms_callbacks/twilio/:instance_id',
];
/** Routes any valid key may call, without a scope or a rate limit. */
const ANY_KEY_ROUTES = ['GET /v1/jwks'];

const h = sharedHarness();

describe('BAPI route table', () => {
  it('declares exactly one valid scope on every route', () => {
    for (const r of bapiRoutes) {
      const name = `${r.method} ${r.path}`;
      if (r.guard.scope === NO_KEY) expect(PUBLIC_ROUTES, `${name} is public`).toContain(name);
      else if (r.guard.scope === ANY_KEY) expect(ANY_KEY_ROUTES, `${name} needs no scope`).toContain(name);
      else expect(isScope(r.guard.scope), `${name} scope ${r.guard.scope}`).toBe(true);
    }
  });

  it('has no duplicate method and path', () => expectNoDuplicateRoutes(bapiRoutes));

  it('matches the reviewed snapshot of the surface', () => {
    expect(servedSurface(createBapi(h.runtime.deps), bapiRoutes, 32, (e) => e.guard.scope)).toMatchSnapshot();
  });

  it('serves an OpenAPI 3.1 document generated from the table', async () => {
    const res = await h.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    for (const r of bapiRoutes) {
      const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = res.body.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      if (r.guard.scope !== NO_KEY && r.guard.scope !== ANY_KEY) expect(op['x-required-scope']).toBe(r.guard.scope);
    }
    const createUser = res.body.paths['/v1/users'].post;
    expect(createUser.requestBody.content['application/json'].schema.properties).toHaveProperty('email_address');
    expect(createUser.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/User' });
    expect(res.body.components.schemas.User.properties).toHaveProperty('email_addresses');
  });
});
