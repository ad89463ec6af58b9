import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import portal from '../messages/en/portal.json' with { type: 'json' };
import hosted from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, createTestInstance, screenshot } from './support/helpers';
import { DNS_RECORDS_FILE, E2E_BASE_URL } from './support/server';
import { startIdp } from './support/saml-idp';

/** Publishes TXT records on the loopback DNS server the started server asks (DNS_RESOLVER). */
function publishTxt(name: string, value: string) {
  const records = JSON.parse(readFileSync(DNS_RECORDS_FILE, 'utf8')) as Record<string, string[][]>;
  records[name] = [[value]];
  writeFileSync(DNS_RECORDS_FILE, JSON.stringify(records));
}

const sameOrigin = (url: string) => url.replace(/^https?:\/\/[^/]+/, E2E_BASE_URL);

test('admin portal: a link from the BAPI; the IT admin verifies the domain by DNS, sets up SAML from the IdP metadata, tests, activates; a user of the domain signs in through SSO', async ({
  browser,
}) => {
  const instance = createTestInstance('Portal SSO');
  const org = await bapi<{ id: string }>(instance.secret, 'POST', '/v1/organizations', { name: 'Acme' });
  const domain = `acme${Date.now().toString(36)}.test`;
  const user = `ada@${domain}`;
  const { link } = await bapi<{ link: string }>(instance.secret, 'POST', `/v1/organizations/${org.id}/portal_links`, { intent: 'sso' });
  const idp = await startIdp(user);
  const admin = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();

  try {
    await test.step('the link opens the portal once; the same link again shows a clear page', async () => {
      await admin.goto(link);
      await expect(admin.getByRole('heading', { name: portal.header.setupFor.replace('{organization}', 'Acme') })).toBeVisible({
        timeout: 30_000,
      });
      expect(admin.url()).not.toContain('#');
      const other = await (await browser.newContext()).newPage();
      await other.goto(link);
      await expect(other.getByText(portal.linkRefused.link_used)).toBeVisible();
      await other.context().close();
    });

    await test.step('the domain: its TXT record published, Verify looks it up through the loopback DNS server', async () => {
      await admin.getByRole('textbox', { name: portal.domains.name, exact: true }).fill(domain);
      await admin.getByRole('button', { name: portal.domains.add }).click();
      const row = admin.getByRole('listitem', { name: domain });
      await row.getByRole('button', { name: portal.domains.verify }).click();
      await expect(row.getByText(portal.domains.status.failed)).toBeVisible();
      // The lookup's own reason, and when it ran; both kept on the domain, so a reload still shows them.
      await expect(row.getByTestId('domain-error')).toContainText('No TXT record');
      await expect(row.getByText(portal.domains.lastChecked.replace(' {time}', ''))).toBeVisible();
      await admin.reload();
      await expect(row.getByText(portal.domains.status.failed)).toBeVisible({ timeout: 30_000 });
      await expect(row.getByTestId('domain-error')).toContainText(`No TXT record _latchkey-verification.${domain}`);
      const name = (await row.getByLabel(portal.domains.recordName.replace('{domain}', domain)).textContent())!;
      const value = (await row.getByLabel(portal.domains.recordValue.replace('{domain}', domain)).textContent())!;
      publishTxt(name, value);
      await row.getByRole('button', { name: portal.domains.verify }).click();
      await expect(row.getByText(portal.domains.status.verified)).toBeVisible();
    });

    await test.step('SAML: Okta picked (its preset), our values shown to copy, the IdP metadata pasted, NameID as email', async () => {
      await admin.getByLabel(portal.sso.idp.okta).check();
      await admin.getByRole('button', { name: portal.sso.create }).click();
      await expect(admin.getByText(portal.sso.instructions.okta)).toBeVisible();
      const metadataUrl = (await admin.getByLabel(portal.sso.metadataUrl, { exact: true }).textContent())!;
      await expect(admin.getByLabel(portal.sso.acsUrl)).toContainText('/sso/saml/ssoc_');
      idp.useSp(await (await fetch(sameOrigin(metadataUrl))).text());
      await admin.getByLabel(portal.sso.metadataXml).fill(idp.metadata);
      await admin.getByLabel(portal.sso.nameIdFormat).selectOption('email_address');
      await admin.getByRole('button', { name: portal.sso.save }).click();
      await expect(admin.getByText(portal.sso.saved)).toBeVisible();
      const [saved] = (
        await bapi<{ data: Array<{ idp_preset: string; saml: { name_id_format: string } }> }>(
          instance.secret,
          'GET',
          `/v1/sso_connections?organization_id=${org.id}`,
        )
      ).data;
      expect(saved).toMatchObject({ idp_preset: 'okta', saml: { name_id_format: 'email_address' } });
      await expect(admin.getByRole('button', { name: portal.sso.activate })).toBeDisabled();
      await screenshot(admin, 'portal-sso');
    });

    await test.step('Test connection: a real round trip in a new tab shows what the IdP sent; then Activate', async () => {
      const [tab] = await Promise.all([admin.context().waitForEvent('page'), admin.getByRole('button', { name: portal.sso.test }).click()]);
      await expect(tab.getByText(portal.sso.result.succeeded)).toBeVisible({ timeout: 30_000 });
      await expect(tab.getByText(user).first()).toBeVisible();
      await screenshot(tab, 'portal-sso-test');
      await tab.close();
      await expect(admin.getByText(portal.sso.result.succeeded)).toBeVisible({ timeout: 15_000 });
      await admin.getByRole('button', { name: portal.sso.activate }).click();
      await expect(admin.getByText(portal.sso.active, { exact: true })).toBeVisible();
    });

    await test.step('a user of the domain signs in through SSO on the hosted sign-in', async () => {
      const visitor = await (await browser.newContext()).newPage();
      await visitor.goto(`${instance.fapi_url}/sign-in`);
      await visitor.getByLabel(hosted.fields.identifier).fill(user);
      await visitor.getByRole('button', { name: hosted.signIn.submit, exact: true }).click();
      await expect(visitor.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible({ timeout: 30_000 });
      await expect(visitor.getByRole('listitem', { name: user })).toBeVisible();
      await visitor.context().close();
    });
  } finally {
    await idp.close();
    await admin.context().close();
  }
});

test('admin portal: directory sync set up from a link; an Okta-shaped SCIM request provisions a user', async ({ browser }) => {
  const instance = createTestInstance('Portal SCIM');
  const org = await bapi<{ id: string }>(instance.secret, 'POST', '/v1/organizations', { name: 'Globex' });
  const { link } = await bapi<{ link: string }>(instance.secret, 'POST', `/v1/organizations/${org.id}/portal_links`, { intent: 'dsync' });
  const admin = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await admin.goto(link);
  await expect(admin.getByRole('heading', { name: portal.header.setupFor.replace('{organization}', 'Globex') })).toBeVisible({
    timeout: 30_000,
  });
  const baseUrl = (await admin.getByLabel(portal.dsync.baseUrl, { exact: true }).textContent())!;
  await admin.getByRole('button', { name: portal.dsync.createToken }).click();
  const token = (await admin.getByLabel(portal.dsync.token, { exact: true }).textContent())!;
  expect(token).toMatch(/^scim_/);

  // What Okta sends when it pushes a new user.
  const res = await fetch(`${sameOrigin(baseUrl)}/Users`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/scim+json; charset=utf-8',
      'user-agent': 'Okta SCIM Client 1.0.0',
    },
    body: JSON.stringify({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'grace@globex.test',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      emails: [{ primary: true, value: 'grace@globex.test', type: 'work' }],
      displayName: 'Grace Hopper',
      locale: 'en-US',
      externalId: '00u1abcd2EFGHijk3l4',
      groups: [],
      password: 'xX9!okta-random',
      active: true,
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  await admin.getByRole('button', { name: portal.dsync.refresh }).click();
  await expect(admin.getByTestId('scim-users')).toHaveText('1');
  await expect(admin.getByText(portal.dsync.never)).toHaveCount(0);
  await expect(admin.getByTestId('scim-errors')).toHaveText('0');

  // A request the directory gets wrong (no userName): counted, and the last one shown with its status and reason.
  const bad = await fetch(`${sameOrigin(baseUrl)}/Users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], name: { givenName: 'No', familyName: 'Username' } }),
  });
  expect(bad.status).toBe(400);
  await admin.getByRole('button', { name: portal.dsync.refresh }).click();
  await expect(admin.getByTestId('scim-errors')).toHaveText('1');
  const lastError = admin.getByRole('group', { name: portal.dsync.lastError });
  await expect(lastError).toContainText('POST /scim/v2/Users → 400');
  await expect(lastError).toContainText(((await bad.json()) as { detail: string }).detail);
  await screenshot(admin, 'portal-dsync');
  const members = await bapi<{ data: Array<{ public_user_data: { identifier: string } }> }>(
    instance.secret,
    'GET',
    `/v1/organizations/${org.id}/memberships`,
  );
  expect(JSON.stringify(members)).toContain('grace@globex.test');
  await admin.context().close();
});
