import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_TEMPLATES } from '../../emails';
import { localizations, users } from '../db/schema';
import { sendEmail } from '../email/mailer';
import { instanceSettings } from '../instances/settings';
import { browserOf, instanceWith, signUp } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { setSettings } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { findResource, hostedCatalogs, resourceCatalog } from './catalog';
import { parseIcu } from './icu';
import { localeCandidates, normalizeLocale, parseAcceptLanguage } from '../instances/locales';
import { saveLocalization } from './overrides';
import { mergeHostedMessages, resolveHostedCopy } from './resolve';

const h = sharedHarness();

const ctx = { actor: 'operator:user_test', ip: null, userAgent: null };
const frenchCode = {
  subject: 'Votre code secret : {{code}}',
  mjml: EMAIL_TEMPLATES.verification_code.locales.fr.mjml.replace('Votre code de vérification', 'Code personnalisé'),
  text: 'Code personnalisé : {{code}}',
};

describe('locales', () => {
  it('normalises supported BCP 47 tags and refuses the rest', () => {
    expect(normalizeLocale('FR_ca')).toBe('fr-CA');
    expect(normalizeLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(normalizeLocale('es-419')).toBe('es-419');
    for (const bad of ['xx', 'fr-CA-extra', '../../etc', '', 'en-US-u-ca-buddhist', 'e']) expect(normalizeLocale(bad), bad).toBeNull();
  });

  it('reads Accept-Language by quality, skipping unsupported and q=0', () => {
    expect(parseAcceptLanguage('de-CH;q=0.7, fr;q=0.9, xx, en;q=0, it')).toEqual(['it', 'fr', 'de-CH']);
    expect(parseAcceptLanguage(null)).toEqual([]);
  });

  it('orders candidates: user, Accept-Language, instance default, English', () => {
    expect(localeCandidates({ userLocale: 'fr-CA', acceptLanguage: 'de, es;q=0.5', instanceDefault: 'it' })).toEqual([
      'fr-ca',
      'fr',
      'de',
      'es',
      'it',
      'en',
    ]);
    expect(localeCandidates({})).toEqual(['en']);
  });
});

describe('the mailer resolves the locale', () => {
  let instanceId: string;
  beforeAll(async () => {
    ({ instanceId } = await instanceWith(h));
    await saveLocalization(h.runtime.deps, instanceId, { locale: 'fr', resource: 'email.verification_code', content: frenchCode }, ctx);
  });
  const send = (input: { locale?: string | null; acceptLanguage?: string; userId?: string }) =>
    sendEmail(h.runtime.deps, { instanceId, to: 'resolve@example.com', template: 'verification_code', data: { code: '42' }, ...input });

  it('takes the override of the user’s locale, falling back from region to language', async () => {
    expect(await send({ locale: 'fr-BE' })).toMatchObject({ locale: 'fr', subject: 'Votre code secret : 42' });
    expect((await send({ locale: 'fr' })).html).toContain('Code personnalisé');
  });

  it('then the request’s Accept-Language, then the instance default, then English', async () => {
    expect(await send({ acceptLanguage: 'es, de;q=0.8' })).toMatchObject({ locale: 'de', subject: '42 ist Ihr Test-Bestätigungscode' });
    expect(await send({ locale: 'de', acceptLanguage: 'fr' })).toMatchObject({ locale: 'de' });
    expect(await send({ acceptLanguage: 'es' })).toMatchObject({ locale: 'en' });
    await setSettings(h, instanceId, { default_locale: 'fr' });
    expect(await send({ acceptLanguage: 'es' })).toMatchObject({ locale: 'fr', subject: 'Votre code secret : 42' });
    expect(await send({ acceptLanguage: 'en' })).toMatchObject({ locale: 'en' });
    await setSettings(h, instanceId, { default_locale: 'en' });
  });

  it('uses the locale of the user it is sent to', async () => {
    const created = await h.call('POST', '/v1/users', {
      key: (await h.createKey(instanceId, 'users:write')).secret,
      body: { email_address: ['louise@example.com'], locale: 'fr-FR' },
    });
    expect(created.body.locale).toBe('fr-FR');
    expect(await send({ userId: created.body.id, acceptLanguage: 'de' })).toMatchObject({ locale: 'fr' });
  });

  it('skips a disabled override, and never sends a broken one', async () => {
    await h.runtime.deps.db.update(localizations).set({ enabled: false }).where(eq(localizations.instanceId, instanceId));
    expect(await send({ locale: 'fr' })).toMatchObject({ locale: 'fr', subject: '42 est votre code de vérification Test' });
    // A row written around the validator (say, by hand in SQL) still cannot stop delivery.
    await h.runtime.deps.db
      .update(localizations)
      .set({ enabled: true, content: { subject: '{{nope}}', mjml: '<mjml>', text: null } })
      .where(eq(localizations.instanceId, instanceId));
    expect(await send({ locale: 'fr' })).toMatchObject({ locale: 'fr', subject: '42 est votre code de vérification Test' });
  });
});

describe('end users', () => {
  it('a French end user who signs up gets the overridden French email', async () => {
    const i = await instanceWith(h, { password_required: false });
    await saveLocalization(h.runtime.deps, i.instanceId, { locale: 'fr', resource: 'email.verification_code', content: frenchCode }, ctx);
    const b = browserOf(h, i);
    const created = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: 'amelie@example.com' } });
    await b.call('POST', `/v1/client/sign_ups/${created.body.response.id}/prepare_verification`, {
      body: { strategy: 'email_code' },
      headers: { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8' },
    });
    const [mail] = await h.outbox('amelie@example.com');
    expect(mail).toMatchObject({ template: 'verification_code', locale: 'fr', subject: `Votre code secret : ${mail!.data.code}` });
    expect(mail!.html).toContain('Code personnalisé');
  });

  it('sign-up takes a locale, which wins over Accept-Language and becomes the user’s', async () => {
    const i = await instanceWith(h, { password_required: false });
    const b = browserOf(h, i);
    const bad = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: 'x@example.com', locale: 'xx' } });
    expectError(bad, 422, 'VALIDATION_FAILED', { param: 'locale', reason: 'unsupported_locale' });
    const { userId } = await signUp(h, b, { email_address: 'dieter@example.com', locale: 'de-AT' });
    expect((await h.outbox('dieter@example.com'))[0]).toMatchObject({ locale: 'de' });
    const [row] = await h.runtime.deps.db.select({ locale: users.locale }).from(users).where(eq(users.id, userId));
    expect(row!.locale).toBe('de-AT');
    // Later emails follow the user's locale, whatever the browser says.
    h.clock.advance(31_000);
    const other = browserOf(h, i);
    const signIn = await other.call('POST', '/v1/client/sign_ins', { body: { identifier: 'dieter@example.com' } });
    await other.call('POST', `/v1/client/sign_ins/${signIn.body.response.id}/prepare_first_factor`, {
      body: { strategy: 'email_code' },
      headers: { 'accept-language': 'fr' },
    });
    expect((await h.outbox('dieter@example.com')).map((m) => m.locale)).toEqual(['de', 'de']);
  });

  it('BAPI users take a locale, validated, and can clear it', async () => {
    const i = await instanceWith(h);
    const key = i.secret;
    const bad = await h.call('POST', '/v1/users', { key, body: { email_address: ['y@example.com'], locale: 'fr-FR-x' } });
    expectError(bad, 422, 'VALIDATION_FAILED', { param: 'locale' });
    const user = await h.call('POST', '/v1/users', { key, body: { email_address: ['z@example.com'], locale: 'de' } });
    expect(user.body.locale).toBe('de');
    expect((await h.call('PATCH', `/v1/users/${user.body.id}`, { key, body: { locale: 'FR_ca' } })).body.locale).toBe('fr-CA');
    expect((await h.call('PATCH', `/v1/users/${user.body.id}`, { key, body: { locale: null } })).body.locale).toBeNull();
  });

  it('the instance default_locale is a validated setting', () => {
    expect(instanceSettings({}).default_locale).toBe('en');
    expect(instanceSettings({ default_locale: 'klingon' }).default_locale).toBe('en');
  });
});

describe('hosted-page copy', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'latchkey-messages-'));
    for (const [locale, messages] of Object.entries({
      en: { signIn: { title: 'Sign in to {appName}', items: '{count, plural, one {# item} other {# items}}' } },
      fr: { signIn: { title: 'Connexion à {appName}' } },
      xx: { signIn: { title: 'ignored: not a supported locale' } },
    })) {
      mkdirSync(path.join(dir, locale));
      writeFileSync(path.join(dir, locale, 'hosted.json'), JSON.stringify(messages));
    }
    mkdirSync(path.join(dir, 'de'));
    writeFileSync(path.join(dir, 'de', 'hosted.json'), '{ not json');
  });

  it('the catalog reads every messages/<locale>/hosted.json there is', () => {
    expect([...hostedCatalogs(dir).keys()].sort()).toEqual(['en', 'fr']);
    const title = resourceCatalog({ messagesDir: dir }).find((r) => r.key === 'hosted.signIn.title');
    expect(title).toMatchObject({ kind: 'hosted', base: { en: { text: 'Sign in to {appName}' }, fr: { text: 'Connexion à {appName}' } } });
    expect(title!.variables.map((v) => v.name)).toEqual(['appName']);
    expect(findResource('hosted.signIn.items', { messagesDir: dir })!.variables.map((v) => v.name)).toEqual(['count']);
    expect(findResource('hosted.nope', { messagesDir: dir })).toBeNull();
  });

  it('validates overrides as ICU messages with the base copy’s arguments', async () => {
    const { instanceId } = await instanceWith(h);
    const save = (text: string, locale = 'fr') =>
      saveLocalization(h.runtime.deps, instanceId, { locale, resource: 'hosted.signIn.title', content: { text } }, ctx, {
        messagesDir: dir,
      });
    await expect(save('Bonjour {name}')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      meta: { part: 'text', reason: 'unknown_variable', line: 1, column: 10 },
    });
    await expect(save('Bonjour {appName')).rejects.toMatchObject({ meta: { reason: 'syntax_error' } });
    await save('Bienvenue sur {appName}');
    await save('Bienvenue au Québec sur {appName}', 'fr-CA');
    expect(await resolveHostedCopy(h.runtime.deps.db, instanceId, 'fr')).toEqual({ 'signIn.title': 'Bienvenue sur {appName}' });
    expect(await resolveHostedCopy(h.runtime.deps.db, instanceId, 'fr-CA')).toEqual({
      'signIn.title': 'Bienvenue au Québec sur {appName}',
    });
    expect(await resolveHostedCopy(h.runtime.deps.db, instanceId, 'de')).toEqual({});
    const merged = mergeHostedMessages(
      { signIn: { title: 'Connexion à {appName}', other: 'x' } },
      { 'signIn.title': 'Bienvenue', '__proto__.polluted': 'x' },
    );
    expect(merged).toEqual({ signIn: { title: 'Bienvenue', other: 'x' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('parses ICU arguments, plurals and quoting', () => {
    expect([...parseIcu('{n, plural, one {# for {who}} other {#}} and {x, number}').args]).toEqual(['n', 'who', 'x']);
    expect(parseIcu("'{literal}' ok").args.size).toBe(0);
    expect(parseIcu('close } early').error).toMatchObject({ offset: 7 });
  });
});
