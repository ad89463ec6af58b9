import { expect, test } from '@playwright/test';
import { bapi, createTestInstance, latestEmail, screenshot, uniqueEmail } from './support/helpers';

test('an invited person follows the email link, signs up and joins the organization', async ({ page }) => {
  const instance = createTestInstance('Agency');
  const invitee = { email: uniqueEmail('lin'), password: 'printing-press-1450' };
  const inviter = await bapi<{ id: string }>(instance.secret, 'POST', '/v1/users', {
    email_address: [uniqueEmail('ada')],
    first_name: 'Ada',
    last_name: 'Lovelace',
  });
  const org = await bapi<{ id: string }>(instance.secret, 'POST', '/v1/organizations', { name: 'Northwind', created_by: inviter.id });
  await bapi(instance.secret, 'POST', `/v1/organizations/${org.id}/invitations`, {
    email_address: invitee.email,
    role: 'org:member',
    inviter_user_id: inviter.id,
  });
  const invitation = await latestEmail(instance.secret, invitee.email, 'organization_invitation');
  const link = invitation.data.url as string;
  expect(link).toContain(`${instance.fapi_url}/organization-invitation?invitation_token=`);

  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Join the organization' })).toBeVisible();
  // The page names the organization, the inviter, the role and the invited address.
  const summary = page.getByTestId('invitation-summary');
  await expect(summary).toContainText('Ada Lovelace invited you to join Northwind as Member.');
  await expect(summary).toContainText(`Invitation for ${invitee.email}`);
  await screenshot(page, 'hosted-organization-invitation');
  await page.getByRole('button', { name: 'Create an account' }).click();

  // The invited address is filled in and locked; the link proved it, so no code is asked.
  const address = page.getByLabel('Email address');
  await expect(address).toHaveValue(invitee.email);
  await expect(address).not.toBeEditable();
  await expect(page.getByText('The invitation was sent to this address: it is already verified.')).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill(invitee.password);
  await page.getByRole('button', { name: 'Continue' }).click();

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
  // No verification code was sent: the invitation email is the only one.
  const mail = await fetch(`${instance.fapi_url.replace(/\/fapi\/.*$/, '')}/v1/emails?to=${encodeURIComponent(invitee.email)}`, {
    headers: { authorization: `Bearer ${instance.secret}` },
  });
  expect(((await mail.json()) as { data: Array<{ template: string }> }).data.map((m) => m.template)).toEqual(['organization_invitation']);
});
