import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import en from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, cli, createOperatorInstance, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

let example: ChildProcess | undefined;
test.afterAll(() => {
  example?.kill('SIGTERM');
});

/**
 * The SDK examples as a customer runs them: the Express API (sdk/examples/express-api) started
 * with its defaults, serving the web page example (sdk/examples/web-page) and the built browser
 * SDK on its own origin; the visitor signs in through the hosted pages of the started server and
 * the page calls the API with the session token.
 */
test('the web page example: signs in through the hosted pages and calls the Express example API with its token', async ({ page }) => {
  execFileSync(process.execPath, [path.resolve('node_modules/typescript/bin/tsc'), '-p', 'sdk/browser/tsconfig.json']);
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Esme',
    email: uniqueEmail('sdk-owner'),
    password: 'examples that run',
    accountName: 'SDK Examples',
    instanceName: 'Web page example',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'example');

  const port = await freePort();
  const origin = `http://localhost:${port}`;
  let out = '';
  example = spawn(process.execPath, ['--import', 'tsx', 'sdk/examples/express-api/server.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      LATCHKEY_PUBLISHABLE_KEY: instance.publishable_key,
      LATCHKEY_SECRET_KEY: secret,
      LATCHKEY_API_URL: E2E_BASE_URL,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  example.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  example.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await expect.poll(() => out, { timeout: 60_000 }).toContain('example API on');

  // The operator lets the app's origin call the FAPI and be sent back to (console settings).
  const saved = await page.evaluate(
    async ({ url, body }) =>
      (await fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status,
    {
      url: `/v1/dashboard/accounts/${accountId}/instances/${instance.instance_id}/settings`,
      body: { allowed_origins: [origin], redirect_urls: [`${origin}/`] },
    },
  );
  expect(saved).toBe(200);
  const email = uniqueEmail('web-page-visitor');
  const password = 'a visitor passphrase 2026';
  const user = await bapi<{ id: string }>(secret, 'POST', '/v1/users', { email_address: [email], password });

  const visitor = await page.context().browser()!.newContext();
  const tab = await visitor.newPage();
  await tab.goto(`${origin}/examples/web-page/index.html?pk=${instance.publishable_key}`);
  await expect(tab.locator('#status')).toHaveText('Signed out');
  await tab.locator('#sign-in').click();
  await expect(tab).toHaveURL(/\/sign-in\?redirect_url=/);
  await tab.getByLabel(en.fields.identifier).fill(email);
  await tab.getByLabel(en.fields.password, { exact: true }).fill(password);
  await tab.getByRole('button', { name: en.signIn.submit, exact: true }).click();

  await expect(tab).toHaveURL(`${origin}/examples/web-page/index.html?pk=${instance.publishable_key}`, { timeout: 30_000 });
  await expect(tab.locator('#status')).toHaveText(/^Signed in \(session sess_/);
  await tab.locator('#call-api').click();
  await expect(tab.locator('#out')).toContainText(`"userId": "${user.id}"`);
  await tab.locator('#sign-out').click();
  await expect(tab.locator('#status')).toHaveText('Signed out');
  await visitor.close();
});
