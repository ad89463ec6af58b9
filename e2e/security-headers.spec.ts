import { expect, test, type Page, type Response } from '@playwright/test';
import en from '../messages/en/hosted.json' with { type: 'json' };
import { createOperatorAccount, createTestInstance, uniqueEmail } from './support/helpers';

/**
 * The console's and hosted pages' security headers (proxy.ts): a CSP whose script nonce is
 * fresh per page, framing refused, no sniffing, a referrer policy. The pages still work under
 * them — forms submit, the theme script runs — and the browser reports no CSP violation.
 */

/** Records every CSP violation the page reports (the listener is installed by CDP, outside the page's CSP). */
async function watchViolations(page: Page) {
  const violations: string[] = [];
  await page.exposeFunction('reportCspViolation', (v: string) => violations.push(v));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportCspViolation(v: string): void }).reportCspViolation(
        `${e.violatedDirective} ${e.blockedURI} on ${location.pathname}`,
      ),
    ),
  );
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  return violations;
}

/** The page's headers, and the nonce its CSP admits scripts by. */
function expectPageHeaders(res: Response | null, what: string) {
  expect(res, what).not.toBeNull();
  const h = res!.headers();
  expect(h['x-frame-options'], what).toBe('DENY');
  expect(h['x-content-type-options'], what).toBe('nosniff');
  expect(h['referrer-policy'], what).toBe('strict-origin-when-cross-origin');
  const csp = h['content-security-policy'] ?? '';
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).toContain("object-src 'none'");
  expect(csp, what).toContain("base-uri 'self'");
  expect(csp, what).not.toContain('unsafe-eval');
  const scriptSrc =
    csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('script-src')) ?? '';
  expect(scriptSrc, what).not.toContain('unsafe-inline');
  const nonce = /'nonce-([^']+)'/.exec(scriptSrc)?.[1];
  expect(nonce, what).toBeTruthy();
  return nonce!;
}

/** Every script of the page carries the response's nonce (the browser hides the attribute; the property keeps it). */
async function expectScriptsNonced(page: Page, nonce: string, what: string) {
  const nonces = await page.evaluate(() => [...document.scripts].map((s) => s.nonce));
  expect(nonces.length, what).toBeGreaterThan(0);
  expect(
    nonces.filter((n) => n !== nonce),
    what,
  ).toEqual([]);
}

test('console and hosted pages send the security headers, with a fresh script nonce, and work under them', async ({ page }) => {
  const violations = await watchViolations(page);

  await test.step('the console: the setup page’s form creates an account, the instance page renders', async () => {
    const accountId = await createOperatorAccount(page, {
      firstName: 'Cora',
      email: uniqueEmail('csp-owner'),
      password: 'headers on every page',
      accountName: 'CSP Inc',
    });
    // The inline theme script runs before the page paints (it carries the nonce): it applies the stored theme.
    await page.evaluate(() => localStorage.setItem('latchkey_theme', 'dark'));
    const first = await page.goto(`/accounts/${accountId}`);
    const nonce = expectPageHeaders(first, 'console account page');
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expectScriptsNonced(page, nonce, 'console');
    const again = expectPageHeaders(await page.reload(), 'console reloaded');
    expect(again).not.toBe(nonce);
  });

  await test.step('a hosted page: the sign-in form submits and shows the API’s answer', async () => {
    const instance = createTestInstance('CSP');
    const res = await page.goto(`${instance.fapi_url}/sign-in`);
    const nonce = expectPageHeaders(res, 'hosted sign-in');
    await expectScriptsNonced(page, nonce, 'hosted sign-in');
    await page.getByLabel(en.fields.identifier).fill('nobody@example.com');
    await page.getByLabel(en.fields.password, { exact: true }).fill('wrong password');
    await page.getByRole('button', { name: en.signIn.submit, exact: true }).click();
    await expect(page.getByText(en.errors.credentialsInvalid)).toBeVisible();
    expectPageHeaders(await page.goto(`${instance.fapi_url}/organization-invitation?invitation_token=oit_x`), 'hosted invitation page');
    await expect(page.getByRole('heading', { name: en.organizationInvitation.title }).first()).toBeVisible();

    // The API behind them: no framing, no sniffing, nothing to run.
    const api = await page.request.get(`${instance.fapi_url}/v1/environment`, {
      headers: { 'x-publishable-key': instance.publishable_key },
    });
    expect(api.status()).toBe(200);
    expect(api.headers()).toMatchObject({
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
    });
    expect(api.headers()['content-security-policy']).toContain("default-src 'none'");
  });

  // Nothing the pages needed was refused (the framing below is refused on purpose).
  expect(violations).toEqual([]);

  await test.step('another site cannot frame a page; the LTI surface, which platforms frame, it can', async () => {
    const instance = createTestInstance('Framed');
    await page.setContent(
      `<iframe name="page" src="${instance.fapi_url}/sign-in"></iframe><iframe name="lti" src="${instance.fapi_url}/lti/login"></iframe>`,
    );
    await expect(page.frame({ name: 'lti' })!.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.frame({ name: 'page' })!.getByRole('heading', { level: 1 })).toHaveCount(0);
  });
});
