import { expect, test, type Page } from '@playwright/test';
import en from '../messages/en/templates.json' with { type: 'json' };
import fr from '../messages/fr/hosted.json' with { type: 'json' };
import { cli, createOperatorAccount, latestEmail, screenshot, uniqueEmail } from './support/helpers';

const operator = { email: uniqueEmail('templates-owner'), password: 'mjml and handlebars' };

/** The MJML of a French verification-code email; `withCode: false` leaves {{code}} out. */
const frenchMjml = (withCode: boolean) =>
  [
    '<mjml lang="fr">',
    '  <mj-body>',
    '    <mj-section>',
    '      <mj-column>',
    '        <mj-text>Bonjour de la part de {{app_name}} !</mj-text>',
    withCode ? '        <mj-text font-size="28px">{{code}}</mj-text>' : '        <mj-text>Pas de code ici.</mj-text>',
    '      </mj-column>',
    '    </mj-section>',
    '  </mj-body>',
    '</mjml>',
  ].join('\n');

/** Replaces the whole content of a CodeMirror editor, as typing would. */
async function replaceEditor(page: Page, label: string, text: string) {
  const editor = page.getByRole('textbox', { name: label, exact: true });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

test('an operator overrides the French verification email; a French end user receives it', async ({ browser }) => {
  const consoleContext = await browser.newContext();
  const page = await consoleContext.newPage();
  let accountId = '';
  let instance = { instance_id: '', fapi_url: '', secret: '' };

  await test.step('an operator of their own account and a test instance', async () => {
    accountId = await createOperatorAccount(page, {
      firstName: 'Émile',
      email: operator.email,
      password: operator.password,
      accountName: 'Boutique SAS',
    });
    const created = cli<{ instance_id: string; fapi_url: string }>(
      'instance',
      'create',
      '--name',
      'Boutique',
      '--env',
      'test',
      '--account',
      accountId,
    );
    const key = cli<{ secret: string }>('keys', 'create', '--instance', created.instance_id, '--scopes', '*', '--name', 'e2e');
    instance = { ...created, secret: key.secret };
  });

  await test.step('the templates page lists every template, built-in', async () => {
    await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/templates`);
    await expect(page.getByRole('heading', { name: en.list.title })).toBeVisible();
    const row = page.getByRole('row', { name: new RegExp(en.names.verification_code) });
    await expect(row.getByText(en.states.built_in)).toBeVisible();
    await screenshot(page, 'console-templates');
    await page.getByRole('link', { name: en.names.verification_code, exact: true }).click();
    await expect(page.getByRole('heading', { name: en.names.verification_code })).toBeVisible();
  });

  await test.step('in French, the preview follows the draft', async () => {
    await page.getByLabel(en.editor.language).selectOption('fr');
    await expect(page.getByTestId('preview-subject')).toHaveText(/est votre code de vérification Boutique/);
    await page.getByLabel(en.editor.subject, { exact: true }).fill('Votre code Boutique : {{code}}');
    await expect(page.getByTestId('preview-subject')).toHaveText('Votre code Boutique : 123456');
    await replaceEditor(page, en.editor.mjml, frenchMjml(true));
    await expect(page.frameLocator('iframe[title="Email preview"]').getByText('Bonjour de la part de Boutique !')).toBeVisible();
    await page.getByRole('button', { name: en.editor.widths.phone }).click();
    await screenshot(page, 'console-template-editor-phone');
  });

  await test.step('saving without {{code}} is refused, with the problem at its line', async () => {
    await replaceEditor(page, en.editor.mjml, frenchMjml(false));
    await page.getByRole('button', { name: en.editor.save, exact: true }).click();
    await expect(page.getByText('1 problem keeps this template from being saved.')).toBeVisible();
    await expect(page.getByRole('button', { name: /MJML body, line 1, column 1: \{\{code\}\} is required/ })).toBeVisible();
    await screenshot(page, 'console-template-editor-error');
  });

  await test.step('a valid override is saved', async () => {
    await replaceEditor(page, en.editor.mjml, frenchMjml(true));
    await replaceEditor(page, en.editor.text, 'Votre code : {{code}}');
    await page.getByRole('button', { name: en.editor.save, exact: true }).click();
    await expect(page.getByText(en.editor.saved)).toBeVisible();
    await expect(page.getByText(en.states.overridden).first()).toBeVisible();
    await expect(page.getByRole('button', { name: en.editor.restore })).toHaveCount(1);
  });

  await test.step('the localizations page overrides the French SMS beside its base copy', async () => {
    await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/localizations`);
    await expect(page.getByRole('heading', { name: en.localizations.title })).toBeVisible();
    await page.getByLabel(en.localizations.language).selectOption('fr');
    await page.getByLabel(en.localizations.resource).selectOption('sms.verification_code');
    await expect(page.locator('pre').getByText('{{code}} est votre code de vérification {{app_name}}.', { exact: false })).toBeVisible();
    await page.getByLabel(en.localizations.fields.body).fill('Bonjour !');
    await page.getByRole('button', { name: en.localizations.save }).click();
    await expect(page.getByText('1 problem keeps this copy from being saved.')).toBeVisible();
    await page.getByLabel(en.localizations.fields.body).fill('Code Boutique : {{code}}');
    await page.getByRole('button', { name: en.localizations.save }).click();
    await expect(page.getByText(en.localizations.saved, { exact: true })).toBeVisible();
    await screenshot(page, 'console-localizations');
  });

  await test.step('a French end user signs up and receives the overridden French email', async () => {
    const userContext = await browser.newContext({ locale: 'fr-FR', extraHTTPHeaders: { 'accept-language': 'fr-FR,fr;q=0.9' } });
    const hosted = await userContext.newPage();
    const email = uniqueEmail('amelie');
    await hosted.goto(`${instance.fapi_url}/sign-up`);
    await hosted.getByLabel(fr.fields.email).fill(email);
    await hosted.getByLabel(fr.fields.password, { exact: true }).fill('radium-polonium-1898');
    await hosted.getByRole('button', { name: fr.signUp.submit }).click();
    await expect(hosted.getByLabel(fr.code.label)).toBeVisible();
    const sent = await latestEmail(instance.secret, email);
    expect(sent.locale).toBe('fr');
    expect(sent.subject).toBe(`Votre code Boutique : ${sent.data.code as string}`);
    expect(sent.html).toContain('Bonjour de la part de Boutique !');
    expect(sent.text).toContain(`Votre code : ${sent.data.code as string}`);
    await userContext.close();
  });

  await consoleContext.close();
});
