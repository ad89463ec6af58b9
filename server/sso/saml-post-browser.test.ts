import type { IncomingMessage } from 'node:http';
import { chromium, type Browser, type Cookie } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, sharedApiServer } from '../testing/api-server';
import { CHROMIUM, hasChromiumBinary } from '../testing/clerk-browser';
import { TestClock, type TestInstance } from '../testing/harness';
import { required } from '../testing/requirements';
import { makeSamlIdp, samlFixture, samlIdpFor, type SamlIdpForConnection } from '../testing/saml-idp';

/**
 * The SAML HTTP-POST binding in Chromium, both ways: Latchkey's request page posts the
 * AuthnRequest to an IdP on another site (a node:http server on 127.0.0.1; Latchkey is
 * latchkey.localhost), whose page posts the signed Response back to the ACS; the browser ends
 * signed in. Every hop is a navigation or a form submission, as in the field — no page fetches.
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the SAML HTTP-POST binding in Chromium');

const api = sharedApiServer({ host: 'latchkey.localhost', clock: TestClock.running() });
const h = api.h;
const ENTITY_ID = 'https://idp.post-binding.test/saml';
const DOMAIN = 'post.browser.test';

let chrome: Browser;
let inst: TestInstance;
let idpServer: Awaited<ReturnType<typeof listen>>;
let sso: SamlIdpForConnection;
let acsUrl = '';
/** What the IdP received: each posted SAMLRequest and its RelayState. */
const received: { requestId: string; relayState: string | null; origin: string | undefined }[] = [];

const readForm = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
};
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

beforeAll(async () => {
  if (!hasChromium) return;
  // The IdP: reads the posted AuthnRequest, answers with a page that posts the signed Response to the ACS.
  idpServer = await listen((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/sso') return void res.writeHead(404).end();
      const form = await readForm(req);
      const requestId = await sso.requestIdOfPosted(form.get('SAMLRequest') ?? '');
      const relayState = form.get('RelayState');
      received.push({ requestId, relayState, origin: req.headers.origin });
      const SAMLResponse = await sso.response(requestId, { email: `ada@${DOMAIN}`, attributes: { firstName: ['Ada'] } });
      const fields = { SAMLResponse, ...(relayState ? { RelayState: relayState } : {}) };
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html><body><form method="post" action="${escapeAttr(acsUrl)}">` +
          Object.entries(fields)
            .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeAttr(v)}">`)
            .join('') +
          '</form><script>document.forms[0].submit()</script></body></html>',
      );
    })().catch((err: Error) => res.writeHead(500).end(err.message));
  });

  inst = await h.createInstance();
  const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: inst.secret, body });
  const org = await bapi('POST', '/v1/organizations', { name: 'Post binding' });
  const domain = await bapi('POST', `/v1/organizations/${org.body.id}/domains`, { name: DOMAIN });
  await bapi('PATCH', `/v1/organizations/${org.body.id}/domains/${domain.body.id}`, { verified: true });
  const created = await bapi('POST', '/v1/sso_connections', {
    organization_id: org.body.id,
    provider: 'saml',
    name: 'POST-only IdP',
    domains: [DOMAIN],
    active: true,
    saml: {
      idp_entity_id: ENTITY_ID,
      idp_sso_url: `${idpServer.url}/sso`,
      idp_sso_binding: 'post',
      idp_certificates: [samlFixture('idp-cert.pem')],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.saml.idp_sso_binding).toBe('post');
  acsUrl = created.body.saml.sp_acs_url;
  expect(new URL(acsUrl).hostname).toBe('latchkey.localhost');
  sso = await samlIdpFor(h, inst.instanceId, created.body, {
    idp: makeSamlIdp({ entityId: ENTITY_ID, ssoUrl: `${idpServer.url}/sso` }),
    entityId: ENTITY_ID,
    origin: idpServer.url,
  });
  chrome = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}, 120_000);
afterAll(async () => {
  await chrome?.close();
  await idpServer?.close();
});

/** A Set-Cookie header as the browser would have stored it (the sign-in's start is the hosted page's own call). */
function asBrowserCookie(header: string, host: string): Cookie {
  const [pair, ...attrs] = header.split(';').map((s) => s.trim());
  const eq = pair!.indexOf('=');
  const attr = (name: string) => attrs.find((a) => a.toLowerCase().startsWith(name.toLowerCase()));
  const sameSite = attr('samesite')?.split('=')[1]?.toLowerCase();
  return {
    name: pair!.slice(0, eq),
    value: pair!.slice(eq + 1),
    domain: host,
    path: attr('path')?.split('=')[1] ?? '/',
    expires: -1,
    httpOnly: attr('httponly') !== undefined,
    secure: attr('secure') !== undefined,
    sameSite: sameSite === 'none' ? 'None' : sameSite === 'strict' ? 'Strict' : 'Lax',
  };
}

describe.skipIf(!hasChromium)('SAML HTTP-POST binding in Chromium', () => {
  it('the request page posts the AuthnRequest to the IdP, whose page posts the Response to the ACS: the browser is signed in', async () => {
    const fapi = `/fapi/${inst.instanceId}`;
    const after = `${api.apiUrl}${fapi}/after-sso`;
    const started = await h.request('POST', `${fapi}/v1/client/sign_ins`, {
      headers: { origin: api.apiUrl, 'x-publishable-key': inst.publishableKey },
      body: { strategy: 'enterprise_sso', identifier: `ada@${DOMAIN}`, redirect_url: after },
    });
    const startedBody = (await started.json()) as {
      response: { first_factor_verification: { external_verification_redirect_url: string } };
    };
    expect(started.status, JSON.stringify(startedBody)).toBe(200);
    const requestPage = startedBody.response.first_factor_verification.external_verification_redirect_url;
    expect(new URL(requestPage).origin).toBe(api.apiUrl);

    const context = await chrome.newContext();
    await context.addCookies(started.headers.getSetCookie().map((c) => asBrowserCookie(c, 'latchkey.localhost')));
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (m) => m.text().includes('Content Security Policy') && cspViolations.push(m.text()));
    const visited: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && visited.push(f.url()));

    const acs = page.waitForResponse((r) => r.url() === acsUrl);
    const requestPageAnswer = page.waitForResponse((r) => r.url() === requestPage);
    await page.goto(requestPage);
    // The request page's CSP lets its form go to the IdP (form-action does not fall back to default-src).
    const csp = (await requestPageAnswer).headers()['content-security-policy'] ?? '';
    expect(csp).toMatch(/script-src 'sha256-/);
    const formAction = /form-action ([^;]+)/.exec(csp)?.[1];
    if (formAction !== undefined) expect(formAction).toContain(idpServer.url);
    await page.waitForURL((u) => u.href.startsWith(after), { timeout: 30_000 });

    // The IdP got the AuthnRequest by POST from Latchkey's page, and the Response came back to the ACS.
    expect(received).toHaveLength(1);
    expect(received[0]!.origin).toBe(api.apiUrl);
    expect(visited).toEqual([requestPage, `${idpServer.url}/sso`, after]);
    expect(cspViolations).toEqual([]);

    // The browser's own cookies now carry a signed-in client.
    // The ACS (a cross-site POST: the flow cookie is SameSite=None) answered with the client it signed in.
    const acsAnswer = await acs;
    expect(acsAnswer.status()).toBe(303);
    expect(acsAnswer.headers()['location']).toBe(after);
    const cookies = await context.cookies(`${api.apiUrl}${fapi}/v1/client`);
    expect(cookies.map((c) => c.name)).toContain('__client');
    const client = await h.call('GET', `${fapi}/v1/client`, {
      headers: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; '), 'x-publishable-key': inst.publishableKey },
    });
    expect(client.status).toBe(200);
    expect(client.body.sessions).toHaveLength(1);
    const userId = client.body.sessions[0].user?.id ?? client.body.sessions[0].user_id;
    const user = await h.call('GET', `/v1/users/${userId}`, { key: inst.secret });
    expect(user.body.email_addresses[0].email_address).toBe(`ada@${DOMAIN}`);
    await context.close();
  }, 90_000);
});
