import { expect, test } from '@playwright/test';
import { SETTINGS_NAV } from '../components/console/instance-nav';
import en from '../messages/en/console.json' with { type: 'json' };
import { createOperatorInstance, readmeScreenshot, screenshot, uniqueEmail } from './support/helpers';

test('the sidebar groups an instance’s pages; settings is a section of sub-pages ending with the danger zone', async ({ page }) => {
  const {
    accountId,
    instance: { instance_id: instanceId },
  } = await createOperatorInstance(page, {
    firstName: 'Nia',
    email: uniqueEmail('nav-owner'),
    password: 'finding my way',
    accountName: 'Nav Co',
    instanceName: 'Paths',
  });
  const base = `/accounts/${accountId}/instances/${instanceId}`;

  await test.step('the sidebar: Users and organizations, Configure, Developers, Monitor', async () => {
    await page.goto(base);
    const sidebar = page.getByRole('complementary', { name: en.shell.sidebar });
    // Each heading stands above its own links.
    const group = (name: string) => sidebar.getByText(name, { exact: true }).locator('xpath=..');
    await expect(group(en.nav.groups.people).getByRole('link', { name: en.nav.users, exact: true })).toBeVisible();
    await expect(group(en.nav.groups.configure).getByRole('link', { name: en.nav.settings, exact: true })).toBeVisible();
    await expect(group(en.nav.groups.developers).getByRole('link', { name: 'Webhooks', exact: true })).toBeVisible();
    await expect(group(en.nav.groups.monitor).getByRole('link', { name: en.nav.audit, exact: true })).toBeVisible();
  });

  await test.step('settings: one sub-page at a time, named in the section’s navigation, Danger zone last', async () => {
    await page.getByRole('link', { name: en.nav.settings, exact: true }).click();
    const sections = page.getByRole('navigation', { name: en.settingsNav.label });
    await expect(sections.getByRole('link')).toHaveText(SETTINGS_NAV.map(({ key }) => en.settingsNav[key]));
    await expect(page.getByRole('heading', { name: en.settingsNav.general, level: 1 })).toBeVisible();
    await expect(page.getByLabel(en.settings.defaultLocale)).toBeVisible();
    // The General page holds its own settings only: no session lifetimes, no instance deletion.
    await expect(page.getByText(en.settings.sessionLifetime)).toHaveCount(0);
    await expect(page.getByRole('button', { name: en.instanceGeneral.delete })).toHaveCount(0);
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(2000);
    await screenshot(page, 'console-settings-general');
    await readmeScreenshot(page, 'console-settings-general');

    await sections.getByRole('link', { name: en.settingsNav.sessions }).click();
    await expect(page.getByRole('heading', { name: en.settingsNav.sessions, level: 1 })).toBeVisible();
    await expect(sections.getByRole('link', { name: en.settingsNav.sessions })).toHaveAttribute('aria-current', 'page');
    await page.getByRole('checkbox', { name: en.settings.inactivityEnabled }).check();
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();
    await page.reload();
    await expect(page.getByRole('checkbox', { name: en.settings.inactivityEnabled })).toBeChecked();

    await sections.getByRole('link', { name: en.settingsNav.danger }).click();
    await expect(page.getByRole('heading', { name: en.settingsNav.danger, level: 1 })).toBeVisible();
    await expect(page.getByRole('button', { name: en.instanceGeneral.delete })).toBeEnabled();
  });
});
