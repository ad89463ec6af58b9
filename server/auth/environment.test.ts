import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import type { InstanceSettings } from '../instances/settings';
import { ensurePlatformInstance } from '../instances/platform';
import { saveLocalization } from '../localization/overrides';
import { expectError } from '../testing/expect';
import { fapiClient } from '../testing/fapi-client';
import { browserOf, instanceWith, signUp } from '../testing/auth-flows';
import { sharedHarness } from '../testing/harness';

const h = sharedHarness();

const q = (url: string) => `/v1/environment?redirect_url=${encodeURIComponent(url)}`;

describe('GET /v1/environment', () => {
  it('answers what a sign-in page needs, publicly, without the allowlist', async () => {
    const i = await instanceWith(h, { sign_up_mode: 'restricted', allowlist: ['secret-partner.example'], name_required: true });
    const b = fapiClient(h, i.instanceId); // no publishable key, no client
    const res = await b.call('GET', '/v1/environment');
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.body).toMatchObject({
      object: 'environment',
      instance: {
        id: i.instanceId,
        name: 'Test',
        environment: 'test',
        publishable_key: i.publishableKey,
        fapi_url: `http://localhost:3000/fapi/${i.instanceId}`,
        is_console: false,
      },
      user_settings: {
        sign_up: {
          mode: 'restricted',
          open: true,
          required_fields: ['email_address', 'password', 'first_name', 'last_name'],
          optional_fields: ['username'],
          identifiers: ['email_address'],
        },
        first_factors: ['password', 'email_code', 'reset_password_email_code'],
        second_factors: ['totp', 'backup_code'],
        mfa_required: false,
      },
      redirect: null,
    });
    expect(JSON.stringify(res.body)).not.toContain('secret-partner');
  });

  it('says whether sign-up is worth offering', async () => {
    for (const [settings, open] of [
      [{}, true],
      [{ sign_up_mode: 'restricted' as const }, false],
      [{ sign_up_mode: 'waitlist' as const }, false],
    ] as const) {
      const i = await instanceWith(h, settings);
      const res = await browserOf(h, i).call('GET', '/v1/environment');
      expect(res.body.user_settings.sign_up.open, JSON.stringify(settings)).toBe(open);
    }
  });

  it('offers phone sign-up when phone codes are on and anyone may sign up (the rule the sign-up enforces)', async () => {
    const methods = {
      password: true,
      email_code: true,
      username: true,
      phone_code: true,
      email_link: false,
      email_link_same_browser: false,
      passkey: false,
    };
    const cases: [Partial<InstanceSettings>, string[]][] = [
      [{ sign_in_methods: methods }, ['email_address', 'phone_number']],
      [{ sign_in_methods: { ...methods, phone_code: false } }, ['email_address']],
      [{ sign_in_methods: methods, sign_up_mode: 'restricted', allowlist: ['acme.com'] }, ['email_address']],
    ];
    for (const [settings, identifiers] of cases) {
      const i = await instanceWith(h, settings);
      const b = browserOf(h, i);
      const phone = '+447700900123'; // each instance its own: never taken
      const env = (await b.call('GET', '/v1/environment')).body;
      expect(env.user_settings.sign_up.identifiers, JSON.stringify(settings)).toEqual(identifiers);
      const created = await b.call('POST', '/v1/client/sign_ups', { body: { phone_number: phone, password: 'a long enough passphrase' } });
      expect(created.status === 200, JSON.stringify(created.body)).toBe(identifiers.includes('phone_number'));
    }
  });

  it('checks a redirect_url against the fapi origin and redirect_urls', async () => {
    const i = await instanceWith(h, { redirect_urls: ['https://app.acme.com/after'] });
    const b = browserOf(h, i);
    for (const [url, allowed] of [
      ['http://localhost:3000/dashboard', true],
      ['https://app.acme.com/after/x?y=1', true],
      ['https://app.acme.com/other', false],
      ['https://evil.example/after', false],
      ['javascript:alert(1)', false],
      ['//evil.example/', false],
    ] as const) {
      const res = await b.call('GET', q(url));
      expect(res.status).toBe(200);
      expect(res.body.redirect, url).toEqual({ url, allowed });
    }
  });

  it('lets the console sign in through the platform instance and come back to PUBLIC_URL', async () => {
    const { instance } = await ensurePlatformInstance(h.runtime.deps);
    const b = fapiClient(h, instance.id, { publishableKey: instance.publishableKey });
    const res = await b.call('GET', q('http://localhost:3000/instances?tab=users'));
    expect(res.body.instance.is_console).toBe(true);
    expect(res.body.user_settings.sign_up.open).toBe(false);
    expect(res.body.redirect).toEqual({ url: 'http://localhost:3000/instances?tab=users', allowed: true });
    expect((await b.call('GET', q('https://elsewhere.example/'))).body.redirect.allowed).toBe(false);
  });

  it('refuses another instance’s publishable key and unknown instances', async () => {
    const a = await instanceWith(h);
    const other = await instanceWith(h);
    expectError(
      await fapiClient(h, a.instanceId, { publishableKey: other.publishableKey }).call('GET', '/v1/environment'),
      400,
      'PUBLISHABLE_KEY_INVALID',
    );
    expectError(await fapiClient(h, 'ins_01ARZ3NDEKTSV4RRFFQ69G5FAV').call('GET', '/v1/environment'), 404, 'NOT_FOUND');
  });
});

describe('GET /v1/environment: the hosted pages’ language and copy', () => {
  const localeOf = async (b: ReturnType<typeof browserOf>, path: string, acceptLanguage?: string) => {
    const res = await b.call('GET', path, { headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} });
    expect(res.status).toBe(200);
    return res.body.localization.locale as string;
  };

  it('picks ?locale=, then Accept-Language, then the instance default, then English — always a hosted catalog', async () => {
    const plain = browserOf(h, await instanceWith(h));
    expect(await localeOf(plain, '/v1/environment')).toBe('en');
    expect(await localeOf(plain, '/v1/environment', 'fr-CA,fr;q=0.9')).toBe('fr');
    expect(await localeOf(plain, '/v1/environment', 'es, de;q=0.5')).toBe('de');
    expect(await localeOf(plain, '/v1/environment', 'es, it')).toBe('en');
    expect(await localeOf(plain, '/v1/environment?locale=de', 'fr')).toBe('de');
    expect(await localeOf(plain, '/v1/environment?locale=fr-CA')).toBe('fr');
    expect(await localeOf(plain, '/v1/environment?locale=es', 'de')).toBe('de');
    expect(await localeOf(plain, '/v1/environment?locale=../../etc', 'de')).toBe('de');

    const german = browserOf(h, await instanceWith(h, { default_locale: 'de' }));
    expect(await localeOf(german, '/v1/environment')).toBe('de');
    expect(await localeOf(german, '/v1/environment', 'es')).toBe('de');
    expect(await localeOf(german, '/v1/environment', 'fr')).toBe('fr');
    expect(await localeOf(german, '/v1/environment?locale=en', 'fr')).toBe('en');
    expect(await instanceWith(h, { default_locale: 'es' }).then((i) => localeOf(browserOf(h, i), '/v1/environment'))).toBe('en');
  });

  it('prefers the signed-in user’s locale to Accept-Language, after ?locale=', async () => {
    const i = await instanceWith(h);
    const b = browserOf(h, i);
    const { userId } = await signUp(h, b, { email_address: 'lena@example.com', password: 'correct horse battery' });
    await h.runtime.deps.db.update(users).set({ locale: 'de-AT' }).where(eq(users.id, userId));
    expect(await localeOf(b, '/v1/environment', 'fr')).toBe('de');
    expect(await localeOf(b, '/v1/environment?locale=fr', 'en')).toBe('fr');
    expect(await localeOf(browserOf(h, i), '/v1/environment', 'fr')).toBe('fr'); // another browser, signed out
  });

  it('answers the enabled overrides of that locale (region first), not the disabled ones', async () => {
    const i = await instanceWith(h);
    const ctx = { actor: 'operator:user_test', ip: null, userAgent: null };
    const save = (locale: string, resource: string, text: string, enabled = true) =>
      saveLocalization(h.runtime.deps, i.instanceId, { locale, resource, content: { text }, enabled }, ctx);
    await save('fr', 'hosted.signUp.title', 'Rejoignez-nous');
    await save('fr', 'hosted.signUp.submit', 'Continuer (désactivé)', false);
    await save('fr-CA', 'hosted.signUp.subtitle', 'Bienvenue au Québec sur {name}.');
    await save('de', 'hosted.signUp.title', 'Willkommen');
    const b = browserOf(h, i);
    const fr = await b.call('GET', '/v1/environment?locale=fr');
    expect(fr.body.localization).toEqual({ locale: 'fr', overrides: { 'signUp.title': 'Rejoignez-nous' } });
    const frCa = await b.call('GET', '/v1/environment', { headers: { 'accept-language': 'fr-CA' } });
    expect(frCa.body.localization).toEqual({
      locale: 'fr',
      overrides: { 'signUp.title': 'Rejoignez-nous', 'signUp.subtitle': 'Bienvenue au Québec sur {name}.' },
    });
    expect((await b.call('GET', '/v1/environment')).body.localization).toEqual({ locale: 'en', overrides: {} });
  });
});
