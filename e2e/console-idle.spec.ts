import { expect, test, type Page } from '@playwright/test';
import { INSTANCE_NAV, SETTINGS_NAV } from '../components/console/instance-nav';
import { bapi, cli, createOperatorInstance, uniqueEmail } from './support/helpers';

const SETTLE_MS = 1_500;
const IDLE_MS = 3_000;

/**
 * API requests (dashboard, FAPI, BAPI) the page sends while nobody touches it: after it has
 * loaded and settled, none. A page whose effect re-runs on every render keeps asking
 * (the settings page once POSTed its session-token preview three times a second, forever).
 */
async function requestsWhileIdle(page: Page, url: string): Promise<string[]> {
  await page.goto(url);
  await expect(page.getByRole('heading', { level: 1 }).first(), url).toBeVisible();
  await page.waitForTimeout(SETTLE_MS);
  const seen: string[] = [];
  const onRequest = (request: { url(): string; method(): string; resourceType(): string }) => {
    const { pathname } = new URL(request.url());
    if (/^\/(v1|fapi)\//.test(pathname) && ['fetch', 'xhr'].includes(request.resourceType())) seen.push(`${request.method()} ${pathname}`);
  };
  page.on('request', onRequest);
  await page.waitForTimeout(IDLE_MS);
  page.off('request', onRequest);
  return seen;
}

test('no console page keeps sending requests while it sits idle', async ({ page }) => {
  test.setTimeout(300_000); // ~25 pages, a few idle seconds each
  const {
    accountId,
    instance: { instance_id: instanceId },
  } = await createOperatorInstance(page, {
    firstName: 'Ida',
    email: uniqueEmail('idle-owner'),
    password: 'sitting quietly',
    accountName: 'Idle Co',
    instanceName: 'Idle',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instanceId, '--scopes', '*', '--name', 'e2e');
  const user = await bapi<{ id: string }>(secret, 'POST', '/v1/users', { first_name: 'Ivy', email_address: [uniqueEmail('ivy')] });
  const org = await bapi<{ id: string }>(secret, 'POST', '/v1/organizations', { name: 'Idle Org', created_by: user.id });
  const base = `/accounts/${accountId}/instances/${instanceId}`;
  const pages = [
    `/accounts/${accountId}`,
    ...INSTANCE_NAV.map(({ segment }) => (segment ? `${base}/${segment}` : base)),
    ...SETTINGS_NAV.filter(({ segment }) => segment).map(({ segment }) => `${base}/settings/${segment}`),
    `${base}/users/${user.id}`,
    `${base}/organizations/${org.id}`,
    `${base}/templates/verification_code`,
  ];
  const busy: Record<string, string[]> = {};
  for (const url of pages) {
    const seen = await requestsWhileIdle(page, url);
    if (seen.length > 0) busy[url] = seen;
  }
  expect(busy).toEqual({});
});
