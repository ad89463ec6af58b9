import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import portal from '../messages/en/portal.json' with { type: 'json' };
import { bapi, createTestInstance } from './support/helpers';
import { E2E_BASE_URL } from './support/server';
import { startIdp } from './support/saml-idp';

/** Fails on any WCAG 2.1 A/AA violation axe-core finds on the page as it is now. */
async function expectAccessible(page: Page, what: string) {
  // Next streams a page's metadata after its first paint: scan once the title has arrived.
  await expect(page).toHaveTitle(/\S/);
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect.soft(violations.map((v) => `${what}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** What a person sees in the window (not the full page), for docs/portal.md: small PNGs of about 1280x800, or 390 wide. */
async function docsScreenshot(page: Page, name: string, from?: Locator) {
  if (from) await from.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  else await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `docs/screenshots/${name}.png` });
}

const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

test('every admin portal page passes an axe-core WCAG 2.1 AA scan, light and dark, desktop and phone; the docs screenshots', async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const instance = createTestInstance('Portal a11y');
  const suffix = Date.now().toString(36);
  const setupFor = (name: string) => portal.header.setupFor.replace('{organization}', name);
  const org = async (name: string, domain: string) => {
    const o = await bapi<{ id: string }>(instance.secret, 'POST', '/v1/organizations', { name });
    const d = await bapi<{ id: string }>(instance.secret, 'POST', `/v1/organizations/${o.id}/domains`, { name: domain });
    await bapi(instance.secret, 'PATCH', `/v1/organizations/${o.id}/domains/${d.id}`, { verified: true });
    return o.id;
  };
  const link = async (orgId: string, intent: string) =>
    (await bapi<{ link: string }>(instance.secret, 'POST', `/v1/organizations/${orgId}/portal_links`, { intent })).link;

  // Acme has a SAML connection waiting for its test; Globex has none yet (the IdP picker); Initech verifies a domain.
  const acmeDomain = `acme${suffix}.test`;
  const acme = await org('Acme', acmeDomain);
  const globex = await org('Globex', `globex${suffix}.test`);
  const initech = (await bapi<{ id: string }>(instance.secret, 'POST', '/v1/organizations', { name: 'Initech' })).id;
  const idp = await startIdp(`ada@${acmeDomain}`);
  const connection = await bapi<{ saml: { sp_metadata_url: string } }>(instance.secret, 'POST', '/v1/sso_connections', {
    organization_id: acme,
    provider: 'saml',
    name: 'Okta',
    idp_preset: 'okta',
    domains: [acmeDomain],
    active: false,
    saml: { idp_metadata_xml: idp.metadata },
  });
  idp.useSp(await (await fetch(connection.saml.sp_metadata_url.replace(/^https?:\/\/[^/]+/, E2E_BASE_URL))).text());

  try {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const size of ['desktop', 'phone'] as const) {
        const at = `${colorScheme} ${size}`;
        const docs = colorScheme === 'light' && size === 'desktop';
        const context = await browser.newContext({ colorScheme, viewport: VIEWPORTS[size] });
        const page = await context.newPage();
        const open = async (orgId: string, intent: string, name: string) => {
          const url = await link(orgId, intent);
          // From another document: a link differs from the page's own URL by its fragment only, which would not load it.
          await page.goto('about:blank');
          await page.goto(url);
          await expect(page.getByRole('heading', { name: setupFor(name) })).toBeVisible({ timeout: 30_000 });
          return url;
        };

        await test.step(`${at}: a used link and an invalid link show a page saying so`, async () => {
          const used = await open(initech, 'audit_logs', 'Initech');
          await expectAccessible(page, `${at} audit logs`);
          if (docs) await docsScreenshot(page, 'portal-audit-logs');
          await page.goto('about:blank');
          await page.goto(used);
          await expect(page.getByText(portal.linkRefused.link_used)).toBeVisible({ timeout: 30_000 });
          await expectAccessible(page, `${at} used link`);
          if (docs) await docsScreenshot(page, 'portal-link-used');
          // Another fragment on the same page would not load it again.
          await page.goto('about:blank');
          await page.goto(`${instance.fapi_url}/portal/open#portal_${'x'.repeat(43)}`);
          await expect(page.getByText(portal.linkRefused.link_invalid)).toBeVisible({ timeout: 30_000 });
          await expectAccessible(page, `${at} invalid link`);
        });

        await test.step(`${at}: domains, with a failed DNS check and its reason`, async () => {
          await open(initech, 'domain_verification', 'Initech');
          await expectAccessible(page, `${at} domains (empty)`);
          const domain = `${colorScheme}-${size}-${suffix}.test`;
          await page.getByRole('textbox', { name: portal.domains.name, exact: true }).fill(domain);
          await page.getByRole('button', { name: portal.domains.add }).click();
          const row = page.getByRole('listitem', { name: domain });
          await row.getByRole('button', { name: portal.domains.verify }).click();
          await expect(row.getByTestId('domain-error')).toContainText('No TXT record');
          await expectAccessible(page, `${at} domains (failed check)`);
          if (docs) await docsScreenshot(page, 'portal-domains');
        });

        await test.step(`${at}: SSO, the identity provider picked`, async () => {
          await open(globex, 'sso', 'Globex');
          await page.getByLabel(portal.sso.idp.saml).check();
          await expect(page.getByLabel(portal.sso.samlVendor)).toBeVisible();
          await expectAccessible(page, `${at} SSO picker (another SAML provider)`);
          await page.getByLabel(portal.sso.idp.oidc).check();
          await expect(page.getByLabel(portal.sso.issuer)).toBeVisible();
          await expectAccessible(page, `${at} SSO picker (OIDC)`);
          await page.getByLabel(portal.sso.idp.okta).check();
          await expectAccessible(page, `${at} SSO picker (Okta)`);
          if (docs) await docsScreenshot(page, 'portal-sso-pick', page.getByRole('heading', { name: portal.sso.title }));
        });

        await test.step(`${at}: SSO, the connection's values and settings; Test connection's tab and its result`, async () => {
          await open(acme, 'sso', 'Acme');
          await expect(page.getByText(portal.sso.instructions.okta)).toBeVisible();
          await expectAccessible(page, `${at} SSO connection`);
          if (docs) await docsScreenshot(page, 'portal-sso', page.getByRole('heading', { name: portal.sso.title }));
          const [tab] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: portal.sso.test }).click()]);
          await expect(tab.getByText(portal.sso.result.succeeded)).toBeVisible({ timeout: 30_000 });
          await expectAccessible(tab, `${at} test result tab`);
          if (docs) await docsScreenshot(tab, 'portal-sso-test');
          await tab.close();
          await expect(page.getByText(portal.sso.result.succeeded)).toBeVisible({ timeout: 15_000 });
          await expectAccessible(page, `${at} SSO test result`);
        });

        await test.step(`${at}: directory sync, with its token shown once`, async () => {
          await open(initech, 'dsync', 'Initech');
          await expectAccessible(page, `${at} directory sync`);
          await page.getByRole('button', { name: portal.dsync.createToken }).click();
          const token = (await page.getByLabel(portal.dsync.token, { exact: true }).textContent())!;
          await expectAccessible(page, `${at} directory sync (token)`);
          // A request the directory got wrong: the failed requests and the last one's detail.
          const baseUrl = (await page.getByLabel(portal.dsync.baseUrl, { exact: true }).textContent())!;
          const bad = await fetch(`${baseUrl.replace(/^https?:\/\/[^/]+/, E2E_BASE_URL)}/Users`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
            body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], name: { givenName: 'No' } }),
          });
          expect(bad.status).toBe(400);
          await page.getByRole('button', { name: portal.dsync.refresh }).click();
          await expect(page.getByRole('group', { name: portal.dsync.lastError })).toBeVisible();
          await expectAccessible(page, `${at} directory sync (a failed request)`);
          if (colorScheme === 'light' && size === 'phone')
            await docsScreenshot(page, 'portal-dsync', page.getByRole('region', { name: portal.dsync.status }));
        });
        await context.close();
      }
    }
  } finally {
    await idp.close();
  }
});
