import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { instances } from '../db/schema';
import { fapiClient } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { logSink } from '../testing/log-sink';
import { instanceSettings, isAllowedRedirect, settingsPatchSchema, type InvalidSetting } from './settings';

const FAPI = 'http://localhost:3000/fapi/ins_01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('redirect allowlist', () => {
  const settings = instanceSettings({ redirect_urls: ['https://app.acme.com/after', 'https://www.acme.com'] });

  it('allows the fapi_url origin and URLs under an entry', () => {
    expect(isAllowedRedirect(settings, FAPI, 'http://localhost:3000/anything')).toBe(true);
    expect(isAllowedRedirect(settings, FAPI, 'https://app.acme.com/after/sign-in?x=1')).toBe(true);
    expect(isAllowedRedirect(settings, FAPI, 'https://www.acme.com/')).toBe(true);
    expect(isAllowedRedirect(settings, FAPI, 'https://app.acme.com/after')).toBe(true);
  });

  it('refuses other origins, other paths, other schemes and garbage', () => {
    for (const url of [
      'https://app.acme.com/elsewhere',
      'https://app.acme.com/afterwards',
      'https://evil.example/after',
      'http://app.acme.com/after',
      'javascript:alert(1)',
      '//evil.example',
      'not a url',
    ]) {
      expect(isAllowedRedirect(settings, FAPI, url), url).toBe(false);
    }
  });
});

describe('settings patch', () => {
  it('leaves absent fields out (no defaults) and refuses unknown ones', () => {
    expect(settingsPatchSchema.parse({ mfa_required: true })).toEqual({ mfa_required: true });
    expect(settingsPatchSchema.safeParse({ other: 1 }).success).toBe(false);
    expect(settingsPatchSchema.safeParse({ allowed_origins: ['https://a.example/path'] }).success).toBe(false);
    expect(settingsPatchSchema.safeParse({ allowed_origins: ['https://a.example'] }).success).toBe(true);
  });
});

/** Stored settings with one bad value in several places: each bad field alone falls back. */
const STORED = {
  sign_up_mode: 'restricted',
  session_lifetime_seconds: 'a week', // bad
  sign_in_methods: { password: true, email_code: false, username: false, phone_code: false, email_link: false },
  password_policy: { min_length: 12, require_uppercase: true, require_lowercase: false, require_digit: 'yes', require_symbol: false }, // require_digit bad
  attack_protection: {
    user_lockout: { enabled: true, max_attempts: 3, window_minutes: 10, lockout_minutes: 99_999_999 }, // lockout_minutes bad
    breached_passwords: { enabled: false, range_api_url: null },
  },
};

describe('stored settings that fail validation', () => {
  it('keeps every valid field and defaults only the bad ones, naming them', () => {
    const invalid: InvalidSetting[] = [];
    const s = instanceSettings(STORED, (fields) => invalid.push(...fields));
    expect(s).toMatchObject({
      sign_up_mode: 'restricted',
      session_lifetime_seconds: 7 * 86400,
      sign_in_methods: { password: true, email_code: false, username: false },
      password_policy: { min_length: 12, require_uppercase: true, require_digit: false },
      attack_protection: {
        user_lockout: { enabled: true, max_attempts: 3, window_minutes: 10, lockout_minutes: 60 },
        breached_passwords: { enabled: false },
      },
    });
    expect(invalid.map((f) => f.path).sort()).toEqual([
      'attack_protection.user_lockout.lockout_minutes',
      'password_policy.require_digit',
      'session_lifetime_seconds',
    ]);
    expect(JSON.stringify(invalid)).not.toMatch(/a week|99999999|"yes"/);
  });

  it('drops unknown fields of a strict object, and falls back whole when a rule across fields fails', () => {
    const invalid: InvalidSetting[] = [];
    const s = instanceSettings(
      {
        branding: { application_name: 'Acme', primary_color: '#112233', extra: 1 },
        sign_in_methods: { password: false, email_code: false, username: true, phone_code: false, email_link: false },
      },
      (fields) => invalid.push(...fields),
    );
    expect(s.branding).toEqual({ application_name: 'Acme', primary_color: '#112233', support_email: null, email_from: null });
    expect(s.sign_in_methods).toEqual({
      password: true,
      email_code: true,
      username: true,
      phone_code: false,
      email_link: false,
      email_link_same_browser: false,
      passkey: false,
    });
    expect(invalid).toEqual([
      { path: 'branding.support_email', message: 'missing' },
      { path: 'branding.extra', message: 'unknown field, dropped' },
      { path: 'sign_in_methods', message: expect.stringContaining('users need a way to sign in') },
    ]);
  });

  it('reports nothing for valid settings', () => {
    let called = false;
    instanceSettings({ mfa_required: true }, () => (called = true));
    expect(called).toBe(false);
  });

  describe('over HTTP', () => {
    const logs = logSink();
    const h = sharedHarness({ logDestination: logs.sink, env: { LOG_LEVEL: 'warn' } });
    const i = sharedInstance(h);
    beforeAll(async () => {
      await h.runtime.deps.db.update(instances).set({ settings: STORED }).where(eq(instances.id, i.instanceId));
    });

    it('keeps the lockout, breach check, sign-in methods and password policy, and logs the bad fields without their values', async () => {
      const protection = await h.call('GET', '/v1/attack_protection', { key: i.secret });
      expect(protection.body).toMatchObject({
        user_lockout: { enabled: true, max_attempts: 3, window_minutes: 10, lockout_minutes: 60 },
        breached_passwords: { enabled: false },
      });
      const env = (await fapiClient(h, i.instanceId, { publishableKey: i.publishableKey }).call('GET', '/v1/environment')).body;
      expect(env.user_settings.first_factors).not.toContain('email_code');
      expect(env.user_settings.password_settings).toMatchObject({ min_length: 12, require_uppercase: true });
      const line = logs.lines.find((l) => l.includes('invalid_settings'));
      expect(line).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ level: 'warn', instance_id: i.instanceId });
      expect(line).toContain('attack_protection.user_lockout.lockout_minutes');
      expect(line).not.toMatch(/a week|99999999/);
    });
  });
});
