import { describe, expect, it } from 'vitest';
import { bapiRoutes } from '../bapi';
import { fapiRoute } from './index';
import { getMeEndpoint } from './users';
import { bapiUsers } from '../bapi/users';

/** Compile-time checks (tsc runs over tests): a route's endpoint must take its surface's auth. */
describe('typed route tables', () => {
  it('refuses, at compile time, an endpoint mounted where its auth is not given', () => {
    // A me-endpoint needs a signed-in user: a guard that resolves none does not compile.
    // @ts-expect-error -- SignedInAuth is not given by a client-only guard
    fapiRoute('GET', '/v1/x', { key: 'optional', client: true }, getMeEndpoint);
    // A BAPI endpoint needs a secret key's auth: it does not fit the FAPI.
    // @ts-expect-error -- BapiAuth is not the FAPI's auth
    fapiRoute('GET', '/v1/y', { key: 'optional', client: true, user: {} }, bapiUsers.get);
    // With the guard that resolves the user, it compiles.
    expect(fapiRoute('GET', '/v1/me', { key: 'optional', client: true, user: { tokenScope: 'me:read' } }, getMeEndpoint).path).toContain('/v1/me');
    expect(bapiRoutes.length).toBeGreaterThan(0);
  });
});
