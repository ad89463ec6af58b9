import { expect, test } from '@playwright/test';
import Stripe from 'stripe';
import consoleEn from '../messages/en/console.json' with { type: 'json' };
import waitlistEn from '../messages/en/waitlist.json' with { type: 'json' };
import billingEn from '../messages/en/billing.json' with { type: 'json' };
import hostedEn from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, cli, createOperatorInstance, latestCode, latestEmail, screenshot, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

const wl = waitlistEn.hosted;
const WHSEC = 'whsec_e2e_waitlist_billing';

/** A customer.subscription.created event as Stripe sends it, signed with the stripe package's own test helper. */
async function deliverSubscription(instanceId: string, subject: string, price: string) {
  const now = Math.floor(Date.now() / 1000);
  const payload = JSON.stringify({
    id: `evt_e2e_${now}`,
    object: 'event',
    api_version: '2025-03-31.basil',
    created: now,
    livemode: false,
    type: 'customer.subscription.created',
    data: {
      object: {
        id: `sub_e2e_${now}`,
        object: 'subscription',
        customer: `cus_e2e_${now}`,
        status: 'active',
        cancel_at: null,
        canceled_at: null,
        metadata: { latchkey_subject: subject },
        items: {
          object: 'list',
          data: [
            {
              id: `si_e2e_${now}`,
              object: 'subscription_item',
              price: { id: price, object: 'price' },
              current_period_start: now,
              current_period_end: now + 30 * 86400,
            },
          ],
        },
      },
    },
  });
  const signature = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload, secret: WHSEC });
  const response = await fetch(`${E2E_BASE_URL}/v1/billing/webhooks/stripe/${instanceId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
  expect(await response.json()).toEqual({ received: true, applied: true });
}

test('waitlist: a person joins on the hosted page, the operator invites them, they sign up; their organization’s plan shows on the profile', async ({
  browser,
}) => {
  const operator = await (await browser.newContext()).newPage();
  const { accountId, instance } = await createOperatorInstance(operator, {
    firstName: 'Wanda',
    email: uniqueEmail('waitlist-owner'),
    password: 'a long enough passphrase',
    accountName: 'Waitlist Co',
    instanceName: 'Queue',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  const person = { email: uniqueEmail('waiting'), password: 'first in the queue 2026' };

  await test.step('the operator turns sign-up to waitlist mode in the console settings', async () => {
    await operator.goto(`/accounts/${accountId}/instances/${instance.instance_id}/settings/sign-up`);
    await operator.getByLabel(consoleEn.settings.signUpMode).selectOption('waitlist');
    await operator.getByRole('button', { name: 'Save changes' }).click();
    await expect(operator.getByText('Changes saved.')).toBeVisible();
  });

  const visitor = await (await browser.newContext()).newPage();
  await test.step('the sign-up page points to the waitlist; the person joins it', async () => {
    await visitor.goto(`${instance.fapi_url}/sign-up`);
    await expect(visitor.getByText(wl.signUpClosedTitle)).toBeVisible();
    await visitor.getByRole('link', { name: wl.joinLink }).click();
    await expect(visitor.getByRole('heading', { name: wl.title })).toBeVisible();
    await visitor.getByLabel('Email address').fill(person.email);
    await visitor.getByRole('button', { name: wl.submit }).click();
    await expect(visitor.getByRole('heading', { name: wl.joinedTitle })).toBeVisible();
    await screenshot(visitor, 'hosted-waitlist-joined');
  });

  await test.step('the operator invites the entry from the console Waitlist page', async () => {
    await operator.goto(`/accounts/${accountId}/instances/${instance.instance_id}/waitlist`);
    const row = operator.getByRole('row', { name: new RegExp(person.email.replace(/[+.]/g, '\\$&')) });
    await expect(row).toContainText(waitlistEn.console.statuses.pending);
    await row.getByRole('checkbox').check();
    await operator.getByRole('button', { name: /Invite 1 selected/ }).click();
    await operator.getByRole('dialog').getByRole('button', { name: waitlistEn.console.invite }).click();
    await expect(row).toContainText(waitlistEn.console.statuses.invited);
    await screenshot(operator, 'console-waitlist');
  });

  await test.step('the invitation link opens the sign-up; the account is created', async () => {
    const invitation = await latestEmail(secret, person.email, 'invitation');
    const link = String(invitation.data.url);
    expect(link).toContain(`${instance.fapi_url}/sign-up#ticket=tkt_`);
    await visitor.goto(link);
    await expect(visitor.getByRole('heading', { name: hostedEn.signUp.title })).toBeVisible();
    expect(visitor.url()).not.toContain('ticket');
    await visitor.getByLabel('Email address').fill(person.email);
    await visitor.getByLabel('Password', { exact: true }).fill(person.password);
    await visitor.getByRole('button', { name: hostedEn.signUp.submit }).click();
    await visitor.getByLabel('Verification code').fill(await latestCode(secret, person.email));
    await visitor.getByRole('button', { name: hostedEn.signUp.verifySubmit }).click();
    await expect(visitor.getByRole('heading', { name: hostedEn.profile.title, level: 1 })).toBeVisible();
  });

  let userId = '';
  await test.step('the entry is completed, in the console and on the BAPI', async () => {
    const entries = await bapi<{ data: Array<{ email_address: string; status: string; user_id: string | null }> }>(
      secret,
      'GET',
      `/v1/waitlist_entries?query=${encodeURIComponent(person.email)}`,
    );
    expect(entries.data).toMatchObject([{ email_address: person.email, status: 'completed' }]);
    userId = entries.data[0]!.user_id!;
    expect(userId).toMatch(/^user_/);
    await operator.reload();
    await expect(operator.getByRole('row', { name: new RegExp(person.email.replace(/[+.]/g, '\\$&')) })).toContainText(
      waitlistEn.console.statuses.completed,
    );
  });

  await test.step('an organization of theirs subscribes through Stripe; the hosted profile shows its plan', async () => {
    await bapi(secret, 'PATCH', '/v1/billing/settings', { secret_key: 'sk_test_e2e', webhook_signing_secret: WHSEC });
    await bapi(secret, 'POST', '/v1/billing/plans', {
      key: 'team',
      name: 'Team',
      payer: 'organization',
      features: ['sso', 'audit_export'],
      prices: [{ processor_price_id: 'price_e2e_team', amount: 4900, currency: 'usd', interval: 'month' }],
    });
    const org = await bapi<{ id: string }>(secret, 'POST', '/v1/organizations', { name: 'Queue Makers', created_by: userId });
    await deliverSubscription(instance.instance_id, org.id, 'price_e2e_team');

    await visitor.reload();
    const orgPlan = visitor.getByRole('region', { name: 'Queue Makers' });
    await expect(orgPlan).toContainText('Team');
    await expect(orgPlan).toContainText(billingEn.profile.status.active);
    await expect(orgPlan).toContainText('audit_export, sso');
    await expect(orgPlan.getByRole('button', { name: billingEn.profile.manage })).toBeVisible();
    await expect(visitor.getByRole('region', { name: billingEn.profile.yours })).toContainText(billingEn.profile.none);
    await screenshot(visitor, 'hosted-profile-plans');
  });
});
