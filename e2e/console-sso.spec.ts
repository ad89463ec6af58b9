import { expect, test } from '@playwright/test';
import sso from '../messages/en/sso.json' with { type: 'json' };
import orgs from '../messages/en/organizations.json' with { type: 'json' };
import directory from '../messages/en/directory.json' with { type: 'json' };
import hosted from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, cli, createOperatorInstance, screenshot, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';
import { startIdp } from './support/saml-idp';

test('SSO: an operator adds a SAML connection on the organization page; a user of its domain signs up and in through the identity provider', async ({
  page,
  browser,
}) => {
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Ingrid',
    email: uniqueEmail('sso-owner'),
    password: 'single sign-on rocks',
    accountName: 'SSO Co',
    instanceName: 'Enterprise',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  const org = await bapi<{ id: string }>(secret, 'POST', '/v1/organizations', { name: 'Acme' });
  const domain = await bapi<{ id: string }>(secret, 'POST', `/v1/organizations/${org.id}/domains`, { name: 'acme.test' });
  await bapi(secret, 'PATCH', `/v1/organizations/${org.id}/domains/${domain.id}`, { verified: true });
  const user = 'ada@acme.test';
  const idp = await startIdp(user);

  try {
    await test.step('the operator adds the connection from the IdP metadata; a missing domain is flagged first', async () => {
      await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/organizations/${org.id}`);
      await page.getByRole('button', { name: sso.add }).click();
      const dialog = page.getByRole('dialog', { name: sso.form.createTitle });
      await dialog.getByLabel(sso.form.name, { exact: true }).fill('Acme IdP');
      await dialog.getByLabel(sso.form.idpPreset, { exact: true }).selectOption('okta');
      await dialog.getByLabel(sso.form.metadataXml).fill(idp.metadata);
      await dialog.getByLabel(sso.form.nameIdFormat, { exact: true }).selectOption('email_address');
      await dialog.getByRole('button', { name: sso.form.create }).click();
      await expect(dialog.getByText(sso.form.pickDomain)).toBeVisible();
      await dialog.getByLabel('acme.test').check();
      await dialog.getByRole('button', { name: sso.form.create }).click();
      await expect(dialog).toHaveCount(0);
      const row = page.getByRole('table', { name: sso.title }).getByRole('row', { name: /Acme IdP/ });
      await expect(row).toContainText('/sso/saml/ssoc_');
      await expect(row).toContainText(sso.active);
      await screenshot(page, 'console-sso-connection');
    });

    const connection = (
      await bapi<{ data: Array<{ id: string; idp_preset: string; saml: { sp_metadata_url: string; name_id_format: string } }> }>(
        secret,
        'GET',
        `/v1/sso_connections?organization_id=${org.id}`,
      )
    ).data[0]!;
    expect(connection).toMatchObject({ idp_preset: 'okta', saml: { name_id_format: 'email_address' } });

    await test.step('the edit form shows the preset and NameID format; changing them is saved', async () => {
      const row = page.getByRole('table', { name: sso.title }).getByRole('row', { name: /Acme IdP/ });
      await row.getByRole('button', { name: sso.edit }).click();
      const dialog = page.getByRole('dialog', { name: sso.form.editTitle });
      await expect(dialog.getByLabel(sso.form.idpPreset, { exact: true })).toHaveValue('okta');
      await expect(dialog.getByLabel(sso.form.nameIdFormat, { exact: true })).toHaveValue('email_address');
      await dialog.getByLabel(sso.form.idpPreset, { exact: true }).selectOption('generic');
      await dialog.getByLabel(sso.form.nameIdFormat, { exact: true }).selectOption('unspecified');
      await dialog.getByRole('button', { name: sso.form.save }).click();
      await expect(dialog).toHaveCount(0);
      const changed = await bapi<{ idp_preset: string; saml: { name_id_format: string } }>(
        secret,
        'GET',
        `/v1/sso_connections/${connection.id}`,
      );
      expect(changed).toMatchObject({ idp_preset: 'generic', saml: { name_id_format: 'unspecified' } });
    });
    idp.useSp(await (await fetch(connection.saml.sp_metadata_url.replace(/^https?:\/\/[^/]+/, E2E_BASE_URL))).text());

    await test.step('the user tries the hosted sign-up with a password: sent to the IdP instead, comes back signed up', async () => {
      const visitor = await (await browser.newContext()).newPage();
      await visitor.goto(`${instance.fapi_url}/sign-up`);
      await visitor.getByLabel(hosted.fields.email).fill(user);
      await visitor.getByLabel(hosted.fields.password, { exact: true }).fill('a password the IdP replaces');
      await visitor.getByRole('button', { name: hosted.signUp.submit, exact: true }).click();
      await expect(visitor.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible({ timeout: 30_000 });
      await expect(visitor.getByRole('listitem', { name: user })).toBeVisible();
      await visitor.context().close();
    });

    await test.step('the user types their email on the hosted sign-in, goes to the IdP and comes back signed in', async () => {
      const visitor = await (await browser.newContext()).newPage();
      await visitor.goto(`${instance.fapi_url}/sign-in`);
      await visitor.getByLabel(hosted.fields.identifier).fill(user);
      await visitor.getByRole('button', { name: hosted.signIn.submit, exact: true }).click();
      await expect(visitor.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible({ timeout: 30_000 });
      await expect(visitor.getByRole('listitem', { name: user })).toBeVisible();
      await visitor.context().close();
    });

    await test.step('the user is a member of the organization', async () => {
      await page.reload();
      await expect(page.getByRole('table', { name: orgs.detail.membersTitle })).toContainText(user);
    });

    await test.step('the organization page shows why a DNS check failed and the directory’s failed requests', async () => {
      const pending = `beta${Date.now().toString(36)}.test`;
      await bapi(secret, 'POST', `/v1/organizations/${org.id}/domains`, { name: pending });
      const { token } = await bapi<{ token: string }>(secret, 'POST', '/v1/scim_tokens', { organization_id: org.id, name: 'Okta' });
      const bad = await fetch(`${E2E_BASE_URL}/scim/v2/Users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
        body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], name: { givenName: 'No' } }),
      });
      expect(bad.status).toBe(400);
      await page.reload();
      await page.getByRole('button', { name: orgs.detail.checkDnsOf.replace('{domain}', pending) }).click();
      await expect(page.getByTestId('domain-check-error')).toContainText(`No TXT record _latchkey-verification.${pending}`);
      const status = page.getByRole('region', { name: directory.statusTitle });
      await expect(status.getByTestId('scim-errors-count')).toHaveText('1');
      await expect(status.getByRole('group', { name: directory.lastError })).toContainText('POST /scim/v2/Users → 400');
      await page.reload();
      await expect(page.getByTestId('domain-check-error')).toContainText('No TXT record');
    });
  } finally {
    await idp.close();
  }
});
