import { expect, test } from '@playwright/test';
import oauth from '../messages/en/oauth.json' with { type: 'json' };
import { createOperatorInstance, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

const reg = oauth.console.registration;

/** A partner's tool registering itself (RFC 7591) with the token an operator gave them, from outside the browser. */
const register = (instanceId: string, token: string, clientName: string) =>
  fetch(`${E2E_BASE_URL}/fapi/${instanceId}/oauth2/register`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: clientName, redirect_uris: ['https://partner.example.com/callback'] }),
  });

test('an operator hands out an initial access token; a partner registers a client with it; the console shows who registered what', async ({
  browser,
}) => {
  const page = await (await browser.newContext()).newPage();
  const {
    accountId,
    instance: { instance_id: instanceId },
  } = await createOperatorInstance(page, {
    firstName: 'Reggie',
    email: uniqueEmail('dcr-owner'),
    password: 'registration by invitation',
    accountName: 'Partners Ltd',
    instanceName: 'Partners',
  });
  const base = `/accounts/${accountId}/instances/${instanceId}`;
  let token = '';

  await test.step('the operator creates a single-use token and copies it from the dialog that shows it once', async () => {
    await page.goto(`${base}/oauth-applications`);
    await expect(page.getByText(reg.emptyTitle)).toBeVisible();
    await page.getByRole('button', { name: reg.create }).first().click();
    const form = page.getByRole('dialog', { name: reg.createTitle });
    await form.getByLabel(reg.name, { exact: true }).fill('Partner onboarding');
    await form.getByLabel(reg.maxUses, { exact: true }).fill('1');
    await form.getByRole('button', { name: reg.create }).click();
    const shown = page.getByRole('dialog', { name: reg.tokenTitle });
    await expect(shown).toBeVisible();
    token = (await shown.getByLabel(reg.token, { exact: true }).textContent())!.trim();
    expect(token.length).toBeGreaterThan(20);
    await shown.getByRole('button', { name: reg.done }).click();
    await expect(shown).toBeHidden();
    const row = page.getByRole('row', { name: /Partner onboarding/ });
    await expect(row).toContainText(reg.statuses.active);
    await expect(row).toContainText(reg.usesOf.replace('{count}', '0').replace('{max}', '1'));
  });

  await test.step('the partner registers once; the token is then used up', async () => {
    const first = await register(instanceId, token, 'Partner app');
    expect(first.status).toBe(201);
    const client = (await first.json()) as { client_id: string };
    expect(client.client_id).toBeTruthy();
    const again = await register(instanceId, token, 'Partner app, again');
    expect(again.status).toBe(401);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_token');
  });

  await test.step('the console lists the registered application and the used-up token', async () => {
    await page.reload();
    const app = page.getByRole('row', { name: /Partner app/ });
    await expect(app).toContainText(oauth.console.registeredDynamically);
    const row = page.getByRole('row', { name: /Partner onboarding/ });
    await expect(row).toContainText(reg.statuses.used_up);
    await expect(row).toContainText(reg.usesOf.replace('{count}', '1').replace('{max}', '1'));
  });

  await test.step('the audit log names the token, not its id, as who registered the application', async () => {
    await page.goto(`${base}/audit`);
    await expect(page.getByText('Partner onboarding').first()).toBeVisible();
    await expect(page.getByText(/^oauth_initial_access_token:/)).toHaveCount(0);
  });

  await test.step('the operator revokes the token', async () => {
    await page.goto(`${base}/oauth-applications`);
    const row = page.getByRole('row', { name: /Partner onboarding/ });
    await row.getByRole('button', { name: reg.revoke }).click();
    const confirm = page.getByRole('dialog', { name: reg.revokeTitle });
    await confirm.getByRole('button', { name: reg.revoke }).click();
    await expect(confirm).toBeHidden();
    await expect(row).toContainText(reg.statuses.revoked);
  });
});
