import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoint, type PathParams } from './endpoint';
import { routeTable, type GuardAuth } from './route-table';

type Guard = { scope: string };
type Auth = { who: string };
const PUBLIC = 'public' as const;
interface AuthUnder extends GuardAuth {
  readonly auth: this['guard'] extends typeof PUBLIC ? Auth | null : Auth;
}
const needsAuth = endpoint<Auth>({
  summary: 'x',
  response: z.string(),
  audit: { unaudited: 'test' },
  handle: async ({ auth }) => auth.who,
});
const takesNone = endpoint<Auth | null>({
  summary: 'y',
  response: z.string().nullable(),
  audit: { unaudited: 'test' },
  handle: async ({ auth }) => auth?.who ?? null,
});

describe('routeTable', () => {
  it('builds one entry a line: the path under the prefix, the guard as the surface reads it', () => {
    const route = routeTable<Guard, Auth | null, string | Guard, AuthUnder, '/v9'>({
      prefix: '/v9',
      guard: (g) => (typeof g === 'string' ? { scope: g } : g),
    });
    expect(route('GET', '/things', 'things:read', needsAuth)).toEqual({
      method: 'GET',
      path: '/v9/things',
      guard: { scope: 'things:read' },
      endpoint: needsAuth,
    });
    expect(route('POST', '/things', { scope: 'things:write' }, needsAuth).guard).toEqual({ scope: 'things:write' });
    expect(route('GET', '/open', PUBLIC, takesNone).path).toBe('/v9/open');
    // Compile-time (tsc runs over tests): a public route's handler must accept no auth.
    // @ts-expect-error -- needsAuth cannot take the null a public route gives
    route('GET', '/open', PUBLIC, needsAuth);
  });

  it('passes the guard through and gives every handler the one auth when told nothing else', () => {
    const route = routeTable<'a' | 'b', Auth>();
    expect(route('DELETE', '/x', 'b', needsAuth)).toEqual({ method: 'DELETE', path: '/x', guard: 'b', endpoint: needsAuth });
    // @ts-expect-error -- 'c' is not a guard of this surface
    route('GET', '/y', 'c', needsAuth);
  });

  it('mounts an endpoint only on a path naming every parameter it reads', () => {
    const readsId = endpoint<Auth, never, never, 'id'>({ summary: 'z', response: z.string(), handle: async ({ params }) => params.id });
    const readsTwo = endpoint<Auth, never, never, 'id' | 'item_id'>({
      summary: 'w',
      response: z.string(),
      handle: async ({ params }) => `${params.id}/${params.item_id}`,
    });
    const route = routeTable<'a', Auth>();
    expect(route('GET', '/things/:id', 'a', readsId).path).toBe('/things/:id');
    expect(route('GET', '/things/:id/items/:item_id', 'a', readsTwo).path).toBe('/things/:id/items/:item_id');
    // A path may name more than the endpoint reads.
    route('GET', '/things/:id/items/:item_id', 'a', readsId);
    // @ts-expect-error -- the path names no :id
    route('GET', '/things', 'a', readsId);
    // @ts-expect-error -- the path names :id but not :item_id
    route('GET', '/things/:id/items', 'a', readsTwo);
    // @ts-expect-error -- a misspelt segment is not the parameter
    route('GET', '/things/:ids', 'a', readsId);
    // The prefix's parameters count: under '/tenants/:id' the path needs none of its own.
    const under = routeTable<'a', Auth, 'a', { guard: unknown; auth: Auth }, '/tenants/:id'>({ prefix: '/tenants/:id' });
    expect(under('GET', '/things', 'a', readsId).path).toBe('/tenants/:id/things');
    // An endpoint that declares none may not read one.
    // @ts-expect-error -- 'id' is not among the parameters it declares
    endpoint<Auth, never, never, never>({ summary: 'v', response: z.string(), handle: async ({ params }) => params.id });
    const names: PathParams<'/a/:x/b/:y_z/c'>[] = ['x', 'y_z'];
    expect(names).toHaveLength(2);
    // @ts-expect-error -- 'b' is a literal segment, not a parameter
    const notAParam: PathParams<'/a/:x/b'> = 'b';
    expect(notAParam).toBe('b');
  });
});
