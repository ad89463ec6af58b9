import { describe, expect, it } from 'vitest';
import { errorsByField, fieldOfParam } from './form-fields';

describe('fieldOfParam', () => {
  it('puts a top-level parameter under the field of that name, and nothing else', () => {
    expect(fieldOfParam(['email_address', 'password'], 'password')).toBe('password');
    expect(fieldOfParam(['email_address', 'password'], 'username')).toBeUndefined();
    expect(fieldOfParam(['email_address'], undefined)).toBeUndefined();
    expect(fieldOfParam(['email_address'], '')).toBeUndefined();
  });

  it('puts a nested parameter under the field that encloses it', () => {
    expect(fieldOfParam(['password_policy'], 'password_policy.min_length')).toBe('password_policy');
    expect(fieldOfParam(['settings'], 'settings.password.min_length')).toBe('settings');
    expect(fieldOfParam(['allowed_origins', 'redirect_urls'], 'allowed_origins.2')).toBe('allowed_origins');
    expect(fieldOfParam(['public_metadata', 'private_metadata'], 'public_metadata.crm.tier')).toBe('public_metadata');
  });

  it('matches whole segments only', () => {
    expect(fieldOfParam(['password'], 'password_digest')).toBeUndefined();
    expect(fieldOfParam(['branding'], 'branding_color')).toBeUndefined();
    expect(fieldOfParam(['settings.password'], 'settings')).toBeUndefined();
  });

  it('gives the deepest field when several enclose the parameter, whatever their order', () => {
    expect(fieldOfParam(['branding', 'branding.primary_color'], 'branding.primary_color')).toBe('branding.primary_color');
    expect(fieldOfParam(['branding.primary_color', 'branding'], 'branding.primary_color')).toBe('branding.primary_color');
    expect(fieldOfParam(['settings', 'settings.password'], 'settings.password.min_length')).toBe('settings.password');
    expect(fieldOfParam(['branding', 'branding.primary_color'], 'branding.logo_url')).toBe('branding');
  });
});

describe('errorsByField', () => {
  const errors = [
    { param: 'password', message: 'too short' },
    { param: 'email_address', message: 'taken' },
    { param: 'password', message: 'needs a digit' },
    { param: 'captcha', message: 'missing' },
    { param: undefined, message: 'no field' },
    { param: 'password_policy.min_length', message: 'too small' },
  ];

  it('keeps the first error of each field and leaves out those no field owns', () => {
    const byField = errorsByField(['email_address', 'password', 'password_policy'], errors, (e) => e.param);
    expect(Object.fromEntries([...byField].map(([field, e]) => [field, e.message]))).toEqual({
      password: 'too short',
      email_address: 'taken',
      password_policy: 'too small',
    });
  });
});
