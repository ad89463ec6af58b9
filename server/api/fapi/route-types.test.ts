import { describe, expect, it } from 'vitest';
import { bapiRoutes } from '../bapi';
import { fapiRoute } from './index';
import { user as me } from './users';
import { myApiKeys, organizationApiKeys } from './apikeys';
import { bapiUsers } from '../bapi/users';

/** Compile-time checks (tsc runs over tests): a route's endpoint must take its surface's auth. */
describe('typed route tables', () => {
  it('refuses, at compile time, an endpoint mounted where its auth is not given', () => {
    // A me-endpoint needs a signed-in user: a guard that resolves none does not compile.
    // @ts-expect-error -- SignedInAuth is not given by a client-only guard
    fapiRoute('GET', '/v1/x', { key: 'optional', client: true }, me.get);
    // A BAPI endpoint needs a secret key's auth: it does not fit the FAPI.
    // @ts-expect-error -- BapiAuth is not the FAPI's auth
    fapiRoute('GET', '/v1/y', { key: 'optional', client: true, user: {} }, bapiUsers.get);
    // With the guard that resolves the user, it compiles.
    expect(fapiRoute('GET', '/v1/me', { key: 'optional', client: true, user: { tokenScope: 'me:read' } }, me.get).path).toContain('/v1/me');
    expect(bapiRoutes.length).toBeGreaterThan(0);
  });

  it('refuses, at compile time, an endpoint mounted on a path without the parameters it reads', () => {
    const ME = { key: 'optional', client: true, user: {} } as const;
    const ORG = { key: 'optional', client: true, user: { organizations: true }, org: 'org:sys_api_keys:manage' } as const;
    // @ts-expect-error -- the path names no :id
    fapiRoute('POST', '/v1/me/api_keys/revoke', ME, myApiKeys.revoke);
    // The organization's revoke reads :key_id: a path naming only the organization's :id does not compile.
    // @ts-expect-error -- the path names no :key_id
    fapiRoute('POST', '/v1/organizations/:id/api_keys/revoke', ORG, organizationApiKeys.revoke);
    // The same guards on the paths naming them compile.
    expect(fapiRoute('POST', '/v1/me/api_keys/:id/revoke', ME, myApiKeys.revoke).path).toMatch(/\/:id\/revoke$/);
    expect(fapiRoute('POST', '/v1/organizations/:id/api_keys/:key_id/revoke', ORG, organizationApiKeys.revoke).path).toMatch(
      /:key_id\/revoke$/,
    );
  });
});
