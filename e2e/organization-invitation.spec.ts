import { expect, test } from '@playwright/test';
import { bapi, createTestInstance, latestCode, latestEmail, screenshot, uniqueEmail } from './support/helpers';


test('an invited person follows the email link, signs up and joins the organization', async ({ page }) => {
  const instance = createTestInstance('Agency');
  const invitee = { email: uniqueEmail('lin'), password: 'printing-press-1450' };
  const org = await bapi<{ id: string }>(instance.secret, 'POST', '/v1/organizations', { name: 'Northwind' });
  await bapi(instance.secret, 'POST', `/v1/organizations/${org.id}/invitations`, { email_address: invitee.email, role: 'org:member' });
  const invitation = await latestEmail(instance.secret, invitee.email, 'organization_invitation');
  const link = invitation.data.url as string;
  expect(link).toContain(`${instance.fapi_url}/organization-invitation?invitation_token=`);

  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Join the organization' })).toBeVisible();
  await screenshot(page, 'hosted-organization-invitation');
  await page.getByRole('button', { name: 'Create an account' }).click();

  await page.getByLabel('Email address').fill(invitee.email);
  await page.getByLabel('Password', { exact: true }).fill(invitee.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Verification code').fill(await latestCode(instance.secret, invitee.email));
  await page.getByRole('button', { name: 'Verify and create account' }).click();

  // Back on the invitation, now signed in.
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(page.getByText('You are now a member of')).toContainText('Northwind');
  await screenshot(page, 'hosted-organization-joined');

  const members = await bapi<{ data: Array<{ role: string; public_user_data?: { identifier?: string } }> }>(
    instance.secret,
    'GET',
    `/v1/organizations/${org.id}/memberships`,
  );
  expect(members.data.map((m) => m.role)).toContain('org:member');
});
