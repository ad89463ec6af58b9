import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { INSTANCE_NAV, SETTINGS_NAV } from '../components/console/instance-nav';
import { createOperatorInstance, uniqueEmail } from './support/helpers';

/**
 * Every page of an instance's console navigation opens without an error and passes an
 * axe-core WCAG 2.1 AA scan, in the light and the dark theme.
 */
test('every instance page of the console renders and passes a WCAG 2.1 AA scan, light and dark', async ({ browser }) => {
  test.setTimeout(720_000); // ~50 page loads with a full axe scan each
  const page = await (await browser.newContext()).newPage();
  const {
    accountId,
    instance: { instance_id: instanceId },
  } = await createOperatorInstance(page, {
    firstName: 'Paige',
    email: uniqueEmail('pages-owner'),
    password: 'every page at once',
    accountName: 'Pages Inc',
    instanceName: 'Pages',
  });
  const problems: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => localStorage.setItem('latchkey_theme', t), theme);
    const segments = [...INSTANCE_NAV.map((e) => e.segment), ...SETTINGS_NAV.filter((e) => e.segment).map((e) => `settings/${e.segment}`)];
    for (const segment of segments) {
      const url = `/accounts/${accountId}/instances/${instanceId}${segment ? `/${segment}` : ''}`;
      await page.goto(url);
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await expect(page.getByRole('heading', { level: 1 }).first(), url).toBeVisible();
      await expect(page.getByRole('alert').filter({ hasText: /error|went wrong/i }), url).toHaveCount(0);
      const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      for (const v of violations)
        problems.push(`${theme} ${segment || 'overview'}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    }
  }
  expect(problems).toEqual([]);
});
