import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePlatformInstance } from '../instances/platform';
import { expectError } from '../testing/expect';
import { fapiClient } from '../testing/fapi-client';
import { browserOf, instanceWith } from '../testing/auth-flows';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

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
    expectError(await fapiClient(h, a.instanceId, { publishableKey: other.publishableKey }).call('GET', '/v1/environment'), 400, 'PUBLISHABLE_KEY_INVALID');
    expectError(await fapiClient(h, 'ins_01ARZ3NDEKTSV4RRFFQ69G5FAV').call('GET', '/v1/environment'), 404, 'NOT_FOUND');
  });
});
