import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoint } from './endpoint';
import { routeTable, type GuardAuth } from './route-table';

type Guard = { scope: string };
type Auth = { who: string };
const PUBLIC = 'public' as const;
interface AuthUnder extends GuardAuth {
  readonly auth: this['guard'] extends typeof PUBLIC ? Auth | null : Auth;
}
const needsAuth = endpoint<Auth>({ summary: 'x', response: z.string(), audit: { unaudited: 'test' }, handle: async ({ auth }) => auth.who });
const takesNone = endpoint<Auth | null>({ summary: 'y', response: z.string().nullable(), audit: { unaudited: 'test' }, handle: async ({ auth }) => auth?.who ?? null });

describe('routeTable', () => {
  it('builds one entry a line: the path under the prefix, the guard as the surface reads it', () => {
    const route = routeTable<Guard, Auth | null, string | Guard, AuthUnder>({ prefix: '/v9', guard: (g) => (typeof g === 'string' ? { scope: g } : g) });
    expect(route('GET', '/things', 'things:read', needsAuth)).toEqual({ method: 'GET', path: '/v9/things', guard: { scope: 'things:read' }, endpoint: needsAuth });
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
});
