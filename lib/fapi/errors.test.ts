import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../../messages';
import { ApiError, NetworkError } from '../api-client';
import { describeFapiError } from './errors';

const api = (status: number, code: string, meta: Record<string, unknown> = {}) => new ApiError(status, code, 'server message', meta);

describe('FAPI errors as copy', () => {
  it('puts errors at the field they concern', () => {
    expect(describeFapiError(api(422, 'CREDENTIALS_INVALID', { param: 'password' }))).toEqual({
      key: 'credentialsInvalid',
      param: 'password',
    });
    expect(describeFapiError(api(422, 'CODE_INCORRECT', { param: 'code', remaining_attempts: 2 }))).toEqual({
      key: 'codeIncorrectRemaining',
      values: { count: 2 },
      param: 'code',
    });
    expect(describeFapiError(api(422, 'VALIDATION_FAILED', { param: 'password', reason: 'too_short' }))).toEqual({
      key: 'passwordTooShort',
      param: 'password',
      values: { min: 8 },
    });
    expect(describeFapiError(api(422, 'VALIDATION_FAILED', { param: 'email_address', reason: 'taken' }))).toEqual({
      key: 'emailTaken',
      param: 'email_address',
    });
    expect(describeFapiError(api(403, 'SIGN_UP_NOT_ALLOWED', { reason: 'restricted', param: 'email_address' })).param).toBe(
      'email_address',
    );
  });

  it('answers a wrong identifier exactly like a wrong password', () => {
    expect(describeFapiError(api(422, 'CREDENTIALS_INVALID', { param: 'password' }))).toEqual(
      describeFapiError(api(422, 'CREDENTIALS_INVALID', {})),
    );
  });

  it('tells a cloned passkey and another site’s passkey apart from one that did not verify', () => {
    expect(describeFapiError(api(422, 'PASSKEY_INVALID', { reason: 'sign_count_regressed' }))).toEqual({ key: 'passkeyCloned' });
    expect(describeFapiError(api(422, 'PASSKEY_INVALID', { reason: 'passkey_disabled' }))).toEqual({ key: 'passkeyDisabled' });
    expect(describeFapiError(api(422, 'PASSKEY_INVALID', { reason: 'unknown_credential' }))).toEqual({ key: 'passkeyUnknown' });
    expect(describeFapiError(api(422, 'PASSKEY_INVALID', { reason: 'verification_failed' }))).toEqual({ key: 'passkeyInvalid' });
    expect(describeFapiError(api(422, 'PASSKEY_INVALID', { reason: 'challenge_invalid' }))).toEqual({ key: 'passkeyInvalid' });
  });

  it('carries waits and falls back to a generic message', () => {
    expect(describeFapiError(api(429, 'RATE_LIMITED', { retry_after: 7 }))).toEqual({ key: 'rateLimited', values: { seconds: 7 } });
    expect(describeFapiError(api(429, 'TOO_MANY_ATTEMPTS', { reason: 'code_reissue', retry_after: 21 }))).toEqual({
      key: 'codeReissue',
      values: { seconds: 21 },
    });
    expect(describeFapiError(api(429, 'TOO_MANY_ATTEMPTS', { reason: 'second_factor_attempts' })).restart).toBe(true);
    expect(describeFapiError(api(500, 'SOMETHING_NEW'))).toEqual({ key: 'generic' });
    expect(describeFapiError(new NetworkError('x'))).toEqual({ key: 'network' });
    expect(describeFapiError(new Error('x'))).toEqual({ key: 'generic' });
  });

  it('only names keys the catalogs hold', () => {
    const cases = [
      api(422, 'CREDENTIALS_INVALID'),
      api(422, 'CODE_INCORRECT'),
      api(422, 'CODE_INCORRECT', { remaining_attempts: 1 }),
      ...['expired', 'not_prepared', 'used'].map((reason) => api(422, 'CODE_EXPIRED', { reason })),
      ...['code_reissue', 'code_attempts', 'second_factor_attempts', undefined].map((reason) => api(429, 'TOO_MANY_ATTEMPTS', { reason })),
      api(429, 'RATE_LIMITED'),
      ...['restricted', 'waitlist'].map((reason) => api(403, 'SIGN_UP_NOT_ALLOWED', { reason })),
      ...[
        ['password', 'too_short'],
        ['password', 'too_long'],
        ['password', 'matches_identifier'],
        ['password', 'incorrect_password'],
        ['password', 'required'],
        ['code', 'incorrect_code'],
        ['email_address', 'taken'],
        ['username', 'taken'],
        ['email_address', 'invalid_format'],
        ['username', 'invalid_format'],
        ['identifier', 'too_big'],
        ['other', 'x'],
      ].map(([param, reason]) => api(422, 'VALIDATION_FAILED', { param, reason })),
      api(403, 'USER_BANNED'),
      ...['expired', 'used', 'revoked', 'invalid'].map((reason) => api(400, 'TICKET_INVALID', { reason })),
      api(404, 'NOT_FOUND'),
      ...['too_many_tokens', 'totp_enabled', 'not_enrolled', undefined].map((reason) => api(409, 'CONFLICT', { reason })),
      api(401, 'UNAUTHENTICATED'),
      ...['session_pending', 'mfa_required', 'impersonation', undefined].map((reason) => api(403, 'FORBIDDEN', { reason })),
      api(403, 'ORIGIN_NOT_ALLOWED'),
      ...['sign_count_regressed', 'passkey_disabled', 'unknown_credential', 'verification_failed'].map((reason) =>
        api(422, 'PASSKEY_INVALID', { reason }),
      ),
      new NetworkError('x'),
    ];
    for (const locale of ['en', 'fr', 'de'] as const) {
      const errors = CATALOGS[locale].hosted.errors as Record<string, string>;
      for (const error of cases) {
        const { key } = describeFapiError(error);
        expect(errors[key], `${locale}: ${key}`).toEqual(expect.any(String));
      }
    }
  });
});
