import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import common from '../messages/en/common.json' with { type: 'json' };
import en from '../messages/en/webhooks.json' with { type: 'json' };
import { cli, createOperatorAccount, screenshot, uniqueEmail } from './support/helpers';

type Received = { headers: IncomingHttpHeaders; body: string };

/** A local receiver on 127.0.0.1 (a free port) that answers 200 and keeps what it got. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hooks`, received };
}

async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** Reads the secret shown in the open dialog and closes it. */
async function readSecretDialog(page: Page, title: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: title });
  await expect(dialog).toBeVisible();
  const secret = (await dialog.getByLabel(en.signingSecret, { exact: true }).textContent())!.trim();
  expect(secret).toMatch(/^whsec_/);
  await dialog.getByRole('button', { name: en.done }).click();
  await expect(dialog).toBeHidden();
  return secret;
}

test('an operator adds a webhook endpoint, receives a signed test event, retries it and rotates the secret', async ({ browser }) => {
  const receiver = await startReceiver();
  const page = await (await browser.newContext()).newPage();
  let base = '';

  try {
    await test.step('an operator of their own account and a test instance', async () => {
      const accountId = await createOperatorAccount(page, {
        firstName: 'Wendy',
        email: uniqueEmail('webhooks-owner'),
        password: 'signed deliveries only',
        accountName: 'Hooks Ltd',
      });
      const created = cli<{ instance_id: string }>('instance', 'create', '--name', 'Hooks', '--env', 'test', '--account', accountId);
      base = `/accounts/${accountId}/instances/${created.instance_id}`;
    });

    await test.step('a live instance refuses a private target, under the URL field', async () => {
      const accountId = /\/accounts\/(acct_[0-9A-Z]+)/.exec(base)![1]!;
      const live = cli<{ instance_id: string }>('instance', 'create', '--name', 'Hooks live', '--env', 'live', '--account', accountId);
      await page.goto(`/accounts/${accountId}/instances/${live.instance_id}/webhooks`);
      await page.getByRole('button', { name: en.add }).first().click();
      const dialog = page.getByRole('dialog', { name: en.addTitle });
      await dialog.getByLabel(en.url, { exact: true }).fill(receiver.url);
      await dialog.getByRole('button', { name: en.add }).click();
      await expect(dialog.getByLabel(en.url, { exact: true })).toHaveAttribute('aria-invalid', 'true');
      await expect(dialog.getByText(common.validation.httpsRequired)).toBeVisible();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toBeHidden();
    });

    await test.step('the empty page offers to add an endpoint', async () => {
      await page.goto(`${base}/webhooks`);
      await expect(page.getByRole('heading', { name: en.title, level: 1 })).toBeVisible();
      await expect(page.getByText(en.emptyTitle)).toBeVisible();
    });

    let secret = '';
    await test.step('adding an endpoint for every event shows its secret', async () => {
      await page.getByRole('button', { name: en.add }).first().click();
      const dialog = page.getByRole('dialog', { name: en.addTitle });
      // A test instance says how a receiver on the developer's machine is allowed.
      await expect(dialog.getByText(en.urlHintTest)).toBeVisible();
      await dialog.getByLabel(en.url, { exact: true }).fill('not a url');
      await dialog.getByRole('button', { name: en.add }).click();
      await expect(dialog.getByLabel(en.url, { exact: true })).toHaveAttribute('aria-invalid', 'true');
      await dialog.getByLabel(en.url, { exact: true }).fill(receiver.url);
      await dialog.getByLabel(en.descriptionLabel).fill('Local receiver');
      await dialog.getByRole('radio', { name: en.someEventsOption }).check();
      await dialog.getByRole('button', { name: en.add }).click();
      await expect(dialog.getByRole('alert')).toHaveText(en.eventTypesRequired);
      await dialog.getByRole('radio', { name: en.allEventsOption }).check();
      await dialog.getByRole('button', { name: en.add }).click();
      secret = await readSecretDialog(page, en.createdTitle);
      const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[.]/g, '\\.')) });
      await expect(row.getByText(en.allEvents)).toBeVisible();
      await expect(row.getByText(en.enabled)).toBeVisible();
    });

    await test.step('revealing the secret shows the same whsec_ secret', async () => {
      await page.getByRole('button', { name: en.reveal }).click();
      expect(await readSecretDialog(page, en.secretTitle)).toBe(secret);
    });

    await test.step('a test event arrives at the receiver, signed with that secret', async () => {
      await page.getByRole('button', { name: en.sendTest }).click();
      await expect(page.getByText(en.testSent)).toBeVisible();
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      const first = receiver.received[0]!;
      const payload = new Webhook(secret).verify(first.body, {
        'webhook-id': String(first.headers['webhook-id']),
        'webhook-timestamp': String(first.headers['webhook-timestamp']),
        'webhook-signature': String(first.headers['webhook-signature']),
      }) as { type: string };
      expect(payload.type).toBe('webhook.test');
    });

    const log = page.getByRole('region', { name: en.deliveries.title });
    await test.step('the delivery log shows the message and its attempt', async () => {
      await expect
        .poll(async () => {
          await log.getByRole('button', { name: en.deliveries.refresh }).click();
          return log.getByText(en.deliveries.statuses.succeeded, { exact: true }).count();
        })
        .toBeGreaterThanOrEqual(1);
      const message = log.getByRole('button', { name: /webhook\.test/ });
      await expect(message).toContainText('1 attempt');
      await message.click();
      await expect(message).toHaveAttribute('aria-expanded', 'true');
      await expect(log.getByText(/webhook-id msg_/)).toBeVisible();
      await expect(log.getByText('200', { exact: true })).toBeVisible();
    });

    await test.step('retrying the message delivers it again', async () => {
      await log.getByRole('button', { name: /^Retry message msg_/ }).click();
      await expect(log.getByText(en.deliveries.retried)).toBeVisible();
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
      await expect
        .poll(async () => {
          await log.getByRole('button', { name: en.deliveries.refresh }).click();
          return (await log.getByRole('button', { name: /webhook\.test/ }).textContent()) ?? '';
        })
        .toContain('2 attempts');
      await screenshot(page, 'console-webhooks');
    });

    await test.step('editing the endpoint subscribes it to one event type', async () => {
      await page.getByRole('button', { name: en.edit, exact: true }).click();
      const dialog = page.getByRole('dialog', { name: en.editTitle });
      await expect(dialog.getByLabel(en.url, { exact: true })).toHaveValue(receiver.url);
      await expect(dialog.getByRole('radio', { name: en.allEventsOption })).toBeChecked();
      await dialog.getByRole('radio', { name: en.someEventsOption }).check();
      await dialog.getByRole('checkbox', { name: 'user.created', exact: true }).check();
      await dialog.getByRole('button', { name: en.save }).click();
      await expect(dialog).toBeHidden();
      const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[.]/g, '\\.')) });
      await expect(row.getByText('user.created', { exact: true })).toBeVisible();
      await expect(row.getByText(en.allEvents)).toBeHidden();
    });

    await test.step('rotating the secret shows a new one, and deliveries carry both signatures', async () => {
      await page.getByRole('button', { name: en.rotate }).click();
      const confirm = page.getByRole('dialog', { name: en.rotateTitle });
      await confirm.getByRole('button', { name: en.rotate }).click();
      const rotated = await readSecretDialog(page, en.rotatedTitle);
      expect(rotated).not.toBe(secret);
      await page.getByRole('button', { name: en.reveal }).click();
      expect(await readSecretDialog(page, en.secretTitle)).toBe(rotated);

      const before = receiver.received.length;
      await page.getByRole('button', { name: en.sendTest }).click();
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThan(before);
      const last = receiver.received.at(-1)!;
      const headers = {
        'webhook-id': String(last.headers['webhook-id']),
        'webhook-timestamp': String(last.headers['webhook-timestamp']),
        'webhook-signature': String(last.headers['webhook-signature']),
      };
      expect(() => new Webhook(rotated).verify(last.body, headers)).not.toThrow();
      expect(() => new Webhook(secret).verify(last.body, headers)).not.toThrow();
    });

    await test.step('at 375px the page does not scroll sideways', async () => {
      await page.setViewportSize({ width: 375, height: 800 });
      await page.reload();
      await expect(page.getByRole('heading', { name: en.title, level: 1 })).toBeVisible();
      await expect(
        page
          .getByRole('region', { name: en.deliveries.title })
          .getByRole('button', { name: /webhook\.test/ })
          .first(),
      ).toBeVisible();
      await expectNoHorizontalScroll(page);
      await screenshot(page, 'console-webhooks-phone');
    });
  } finally {
    receiver.server.close();
  }
});
