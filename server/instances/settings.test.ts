import { describe, expect, it } from 'vitest';
import { instanceSettings, isAllowedRedirect, settingsPatchSchema } from './settings';

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
    for (const url of ['https://app.acme.com/elsewhere', 'https://app.acme.com/afterwards', 'https://evil.example/after', 'http://app.acme.com/after', 'javascript:alert(1)', '//evil.example', 'not a url']) {
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
