import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import hosted from '../../messages/en/hosted.json' with { type: 'json' };
import { E2E_BASE_URL, SCREENSHOT_DIR, runState, serverEnv } from './server';

/** Runs the CLI against the started server's store and parses its `--json` answer. */
export function cli<T>(...args: string[]): T {
  const out = execFileSync(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), 'server/cli/index.ts', ...args, '--json'], {
    env: serverEnv(runState().dataDir),
    encoding: 'utf8',
  });
  return JSON.parse(out) as T;
}

/** Claims a CLI setup link in the console as a new operator with their own account; answers the account id. */
export async function createOperatorAccount(
  page: Page,
  operator: { firstName: string; email: string; password: string; accountName: string },
): Promise<string> {
  const { url } = cli<{ url: string }>('setup-link');
  await page.goto(url);
  await page.getByLabel('First name').fill(operator.firstName);
  await page.getByLabel('Email address').fill(operator.email);
  await page.getByLabel('Password', { exact: true }).fill(operator.password);
  await page.getByLabel('Account name').fill(operator.accountName);
  await page.getByRole('button', { name: 'Create operator account' }).click();
  await expect(page).toHaveURL(/\/accounts\/acct_/);
  return /\/accounts\/(acct_[0-9A-Z]+)/.exec(page.url())![1]!;
}

/** An operator of their own account (`createOperatorAccount`) and a test instance in it, made through the CLI. */
export async function createOperatorInstance(
  page: Page,
  operator: { firstName: string; email: string; password: string; accountName: string; instanceName: string },
) {
  const { instanceName, ...account } = operator;
  const accountId = await createOperatorAccount(page, account);
  const instance = cli<{ instance_id: string; publishable_key: string; fapi_url: string }>(
    'instance',
    'create',
    '--name',
    instanceName,
    '--env',
    'test',
    '--account',
    accountId,
  );
  return { accountId, instance };
}

export type TestInstance = { instance_id: string; publishable_key: string; fapi_url: string; secret: string };

/** A test instance with a secret key that can read its outbox, made through the CLI. */
export function createTestInstance(name: string): TestInstance {
  const instance = cli<{ instance_id: string; publishable_key: string; fapi_url: string }>(
    'instance',
    'create',
    '--name',
    name,
    '--env',
    'test',
  );
  const key = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  return { ...instance, secret: key.secret };
}

/** Signs up on the instance's hosted page with a password and the emailed code; ends on the hosted profile. */
export async function hostedSignUp(page: Page, instance: Pick<TestInstance, 'fapi_url' | 'secret'>, email: string, password: string) {
  await page.goto(`${instance.fapi_url}/sign-up`);
  await page.getByLabel(hosted.fields.email).fill(email);
  await page.getByLabel(hosted.fields.password, { exact: true }).fill(password);
  await page.getByRole('button', { name: hosted.signUp.submit, exact: true }).click();
  await page.getByLabel(hosted.code.label).fill(await latestCode(instance.secret, email));
  await page.getByRole('button', { name: hosted.signUp.verifySubmit }).click();
  await expect(page.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible();
}

type Email = {
  id: string;
  to: string;
  template: string;
  subject: string;
  data: Record<string, unknown>;
  html: string;
  text: string;
  locale: string;
};

/** The newest email of a template to an address, read from the dev outbox through the BAPI. */
export async function latestEmail(secret: string, to: string, template?: string): Promise<Email> {
  const query = new URLSearchParams({ to, ...(template ? { template } : {}) });
  let last: Email | undefined;
  await expect
    .poll(async () => {
      const response = await fetch(`${E2E_BASE_URL}/v1/emails?${query}`, { headers: { authorization: `Bearer ${secret}` } });
      const body = (await response.json()) as { data: Email[] };
      last = body.data[0];
      return last?.id ?? null;
    })
    .not.toBeNull();
  return last!;
}

/** The one-time code of the newest verification-code email to an address. */
export async function latestCode(secret: string, to: string): Promise<string> {
  const email = await latestEmail(secret, to, 'verification_code');
  const code = email.data.code;
  expect(typeof code).toBe('string');
  return code as string;
}

/** The code of the newest SMS to a number, from the dev outbox. */
export async function smsCode(secret: string, to: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${E2E_BASE_URL}/v1/sms?to=${encodeURIComponent(to)}`, { headers: { authorization: `Bearer ${secret}` } });
    const body = (await res.json()) as { data: Array<{ body: string }> };
    const code = body.data[0] && /(\d{6})/.exec(body.data[0].body)?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no SMS to ${to}`);
}

/** A full-page screenshot in e2e/screenshots/ (not committed; looked at by people). */
export async function screenshot(page: Page, name: string): Promise<void> {
  // From the top, so the sticky header and sidebar are drawn where a person sees them.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** What a person sees on a laptop screen, as a small JPEG in e2e/screenshots/readme/ (the pictures in docs/screenshots/ are picked from there). */
export async function readmeScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'readme', `${name}.jpg`), type: 'jpeg', quality: 70 });
}

export const uniqueEmail = (tag: string) => `${tag}+${Date.now().toString(36)}@example.com`;

/** A BAPI call with a secret key, expected to succeed; answers the JSON body. */
export async function bapi<T>(secret: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${E2E_BASE_URL}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`).toBe(true);
  return (await response.json()) as T;
}
