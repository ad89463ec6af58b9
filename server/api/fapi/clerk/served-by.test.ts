import { describe, expect, it } from 'vitest';
import { servedBy } from '../../../testing/clerk-browser';

/**
 * What the clerk-js tests check of every request clerk-js makes (server/testing/clerk-browser.ts):
 * its method and path, as clerk-js means them, are a line of the Clerk dialect table or a route
 * of the FAPI's route table; `close()` of the harness fails on one that is neither.
 */
const FAPI = 'http://127.0.0.1:4000/fapi/ins_1';
const at = (method: string, path: string) => servedBy(method, new URL(`${FAPI}${path}`), FAPI);

describe('servedBy: the FAPI table entry a clerk-js request is served by', () => {
  it('names the route of a path the route table answers as it is, with its parameters as templates', () => {
    expect(at('GET', '/v1/client?__clerk_api_version=2025-11-10&_clerk_js_version=5.0.0')).toBe('GET /v1/client');
    expect(at('POST', '/v1/client/sign_ins/sia_1/attempt_first_factor')).toBe('POST /v1/client/sign_ins/:id/attempt_first_factor');
  });

  it('reads a POST with _method as that method, and drops a trailing slash', () => {
    expect(at('POST', '/v1/me?_method=PATCH')).toBe('PATCH /v1/me');
    expect(at('GET', '/v1/me/')).toBe('GET /v1/me');
  });

  it('names the dialect line first where the dialect has one', () => {
    expect(at('GET', '/v1/me/sessions/active')).toBe('dialect GET /v1/me/sessions/active');
    expect(at('POST', '/v1/client/sessions/sess_1/tokens')).toBe('dialect POST /v1/client/sessions/:id/tokens');
  });

  it('is null for a path or a method neither table has', () => {
    expect(at('GET', '/v1/me/made_up')).toBeNull();
    expect(at('PUT', '/v1/client/sign_ins')).toBeNull();
  });
});
