import { describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';

/**
 * Every answer of the API surfaces carries the security headers: JSON, errors, 404s,
 * redirects and the HTML pages they serve. Only the LTI surface may be framed (it runs in
 * the learning platform's iframe).
 */
const h = sharedHarness();
const i = sharedInstance(h);

const fapi = (path: string) => `/fapi/${i.instanceId}${path}`;

function expectSecured(res: Response, what: string) {
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), what).toBe('strict-origin-when-cross-origin');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, what).toContain("default-src 'none'");
  expect(csp, what).not.toContain('script-src');
}

function expectUnframeable(res: Response, what: string) {
  expectSecured(res, what);
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
  expect(res.headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
}

describe('security headers of the API surfaces', () => {
  it('BAPI, FAPI, dashboard, SCIM and ops answers, errors and 404s included, refuse sniffing and framing', async () => {
    const answers: [string, Response][] = [
      ['BAPI 200', await h.request('GET', '/v1/users', { key: i.secret })],
      ['BAPI 401', await h.request('GET', '/v1/users')],
      ['BAPI 404', await h.request('GET', '/v1/nothing-here', { key: i.secret })],
      ['FAPI 200', await h.request('GET', fapi('/v1/environment'), { headers: { 'x-publishable-key': i.publishableKey } })],
      ['FAPI 401', await h.request('GET', fapi('/v1/me'), { headers: { 'x-publishable-key': i.publishableKey } })],
      ['dashboard 401', await h.request('GET', '/v1/dashboard/accounts')],
      ['SCIM 401', await h.request('GET', '/scim/v2/Users')],
      ['SCIM discovery', await h.request('GET', '/scim/v2/ServiceProviderConfig')],
      ['ops', await h.request('GET', '/healthz')],
    ];
    for (const [what, res] of answers) {
      expect(res.status, what).toBeLessThan(500);
      expectUnframeable(res, what);
    }
  });

  it('the OpenID provider’s pages and redirects, and the SSO error page, refuse framing', async () => {
    const page = await h.request('GET', fapi('/oauth2/authorize?response_type=code'));
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectUnframeable(page, 'provider error page');
    const signOut = await h.request('GET', fapi('/oauth2/end_session'));
    expect(signOut.headers.get('content-type')).toMatch(/^text\/html/);
    expectUnframeable(signOut, 'sign-out confirmation page');
    expectUnframeable(await h.request('GET', fapi('/.well-known/openid-configuration')), 'discovery');

    const sso = await h.request('POST', fapi('/sso/saml/ssoc_00000000000000000000000000/acs'), {
      raw: 'SAMLResponse=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(sso.status).toBeGreaterThanOrEqual(400);
    expect(sso.headers.get('content-type')).toMatch(/^text\/html/);
    expectUnframeable(sso, 'SSO error page');
  });

  it('the LTI surface may be framed by the platform, and still refuses sniffing and scripts', async () => {
    const res = await h.request('GET', fapi('/lti/login'));
    expect(res.status).toBe(400);
    expectSecured(res, 'LTI');
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('content-security-policy')).not.toContain('frame-ancestors');
  });
});
