import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sharedHarness } from '../testing/harness';
import { anonymousActor } from './actor';
import { endpoint, htmlPage, jsonResult, noContent, redirect, type Method } from './endpoint';
import { AppError } from './errors';
import { htmlProtocol, jsonProtocol, oauthProtocol, SCIM_ERROR_SCHEMA, scimProtocol, type Protocol } from './protocol';
import { ROUTER_GUARDS } from '../api/router-guards';
import { buildSurface, type RouteEntry } from './router';

/** A throwaway surface per protocol: what each wire format does with results and errors. */
const h = sharedHarness();

type Guard = { bearer?: boolean };
const noAuth = endpoint<null, { grant_type: string; scope?: string }>({
  summary: 'token',
  body: z.strictObject({ grant_type: z.enum(['client_credentials']), scope: z.string().optional() }),
  response: z.object({ access_token: z.string() }),
  audit: { unaudited: 'test' },
  handle: async () => jsonResult({ access_token: 'x' }, 200, { 'cache-control': 'no-store' }),
});
const throws = (e: () => AppError) =>
  endpoint<null>({
    summary: 'throws',
    response: z.unknown(),
    audit: { unaudited: 'test' },
    handle: async () => {
      throw e();
    },
  });

/** Built on first use: the harness exists only once beforeAll ran. */
function surface(protocol: Protocol, routes: [Method, string, Guard, RouteEntry<Guard, null>['endpoint']][]) {
  let app: ReturnType<typeof build> | undefined;
  const build = () =>
    buildSurface<Guard, null>(
      h.runtime.deps,
      {
        name: `test-${protocol.name}`,
        protocol,
        routes: routes.map(([method, path, guard, ep]) => ({ method, path, guard, endpoint: ep })),
        authenticate: async (c, r) => {
          if (r.guard.bearer && !c.req.header('authorization')) throw new AppError('UNAUTHENTICATED', { message: 'Send a bearer token.' });
          return null;
        },
        actorOf: (_auth, request) => anonymousActor(request),
      },
      ROUTER_GUARDS,
    );
  return (method: string, path: string, init: RequestInit = {}) => (app ??= build()).request(path, { method, ...init });
}

const form = (body: string) => ({ body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });

describe('OAuth protocol', () => {
  const call = surface(oauthProtocol, [
    ['POST', '/token', {}, noAuth],
    ['GET', '/userinfo', { bearer: true }, throws(() => new AppError('NOT_FOUND'))],
    ['GET', '/denied', {}, throws(() => new AppError('FORBIDDEN', { message: 'no', meta: { oauth_error: 'unauthorized_client' } }))],
  ]);

  it('reads form posts and refuses a repeated parameter (RFC 6749 §3.1) as invalid_request', async () => {
    expect((await call('POST', '/token', form('grant_type=client_credentials'))).status).toBe(200);
    const res = await call('POST', '/token', form('grant_type=client_credentials&grant_type=client_credentials'));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'The parameter grant_type is repeated.' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a validation failure as 400 invalid_request, never the JSON error envelope', async () => {
    const res = await call('POST', '/token', form('grant_type=password'));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('invalid_request');
    expect(body).not.toHaveProperty('errors');
  });

  it('a missing bearer token is 401 with WWW-Authenticate (RFC 6750 §3)', async () => {
    const res = await call('GET', '/userinfo');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="latchkey"');
    expect((await res.json()).error).toBe('invalid_token');
  });

  it('a domain error names its OAuth code; unknown paths answer in OAuth form too', async () => {
    expect(await (await call('GET', '/denied')).json()).toEqual({ error: 'unauthorized_client', error_description: 'no' });
    const res = await call('GET', '/nowhere');
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe('not_found');
  });
});

describe('SCIM protocol', () => {
  const call = surface(scimProtocol, [
    ['GET', '/Users/:id', {}, throws(() => new AppError('NOT_FOUND', { message: 'No such user.' }))],
    ['POST', '/Users', {}, throws(() => new AppError('CONFLICT', { message: 'userName is taken.' }))],
    [
      'PATCH',
      '/Users/:id',
      {},
      endpoint<null, { op: string }>({
        summary: 'patch',
        body: z.strictObject({ op: z.string() }),
        response: z.unknown(),
        handle: async () => ({}),
      }),
    ],
  ]);

  it('renders errors in the SCIM Error schema, status as a string, with scimType where RFC 7644 names one', async () => {
    const missing = await call('GET', '/Users/u1');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(await missing.json()).toEqual({ schemas: [SCIM_ERROR_SCHEMA], status: '404', detail: 'No such user.' });
    const taken = await call('POST', '/Users', { body: '{}', headers: { 'content-type': 'application/scim+json' } });
    expect(await taken.json()).toMatchObject({ status: '409', scimType: 'uniqueness' });
  });

  it('reads application/scim+json bodies; an invalid one is 400 invalidValue', async () => {
    const res = await call('PATCH', '/Users/u1', { body: JSON.stringify({ op: 1 }), headers: { 'content-type': 'application/scim+json' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });
});

describe('HTML protocol and special results', () => {
  const page = endpoint<null>({
    summary: 'page',
    response: z.unknown(),
    audit: { unaudited: 'test' },
    handle: async () => htmlPage('<p>hi</p>'),
  });
  const go = endpoint<null, { id_token: string; state: string }>({
    summary: 'go',
    body: z.strictObject({ id_token: z.string(), state: z.string() }),
    response: z.unknown(),
    audit: { unaudited: 'test' },
    handle: async () => redirect('https://app.example/after', 303),
  });
  const none = endpoint<null>({ summary: 'none', response: z.unknown(), audit: { unaudited: 'test' }, handle: async () => noContent() });
  const html = surface(htmlProtocol, [
    ['POST', '/launch', {}, go],
    ['GET', '/page', {}, page],
    ['GET', '/fail', {}, throws(() => new AppError('FORBIDDEN', { message: 'The <platform> is not registered.' }))],
  ]);
  const json = surface(jsonProtocol(), [['DELETE', '/thing', {}, none]]);

  it('redirects with Location, serves HTML pages, and renders errors as an escaped HTML page', async () => {
    const res = await html('POST', '/launch', form('id_token=x&state=y'));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://app.example/after');
    const p = await html('GET', '/page');
    expect(p.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await p.text()).toBe('<p>hi</p>');
    const fail = await html('GET', '/fail');
    expect(fail.status).toBe(403);
    expect(fail.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await fail.text()).toContain('The &lt;platform&gt; is not registered.');
  });

  it('answers 204 without a body', async () => {
    const res = await json('DELETE', '/thing');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });

  it('keeps the request id and the body limit on every protocol', async () => {
    const res = await html('POST', '/launch', form(`x=${'a'.repeat(1024 * 1024 + 1)}`));
    expect(res.status).toBe(413);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
