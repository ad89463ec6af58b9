import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../messages';
import { DATABASE_FAULT_REASONS, REASONS as HTTP_REASONS } from '../server/http/reasons';
import { ALL_REASONS } from '../server/reasons';
import { ApiError } from './api-client';
import { humanizeParam, validationCopy, VALIDATION_KEYS } from './validation-copy';

const invalid = (meta: Record<string, unknown>) => new ApiError(422, 'VALIDATION_FAILED', 'raw validator text', meta);

describe('VALIDATION_FAILED as copy', () => {
  it('says what is wrong from meta.reason and the bound the server names', () => {
    expect(validationCopy(invalid({ param: 'email_address', reason: 'required' }))).toEqual({
      key: 'required',
      param: 'email_address',
      values: {},
    });
    expect(validationCopy(invalid({ param: 'password', reason: 'too_small', min_length: 8 }))).toEqual({
      key: 'tooShort',
      param: 'password',
      values: { min: 8 },
    });
    expect(validationCopy(invalid({ param: 'name', reason: 'too_big', max_length: 256 }))).toEqual({
      key: 'tooLong',
      param: 'name',
      values: { max: 256 },
    });
    expect(validationCopy(invalid({ param: 'max_allowed_memberships', reason: 'too_small', minimum: 0 }))?.key).toBe('tooSmall');
    expect(validationCopy(invalid({ param: 'email_address', reason: 'invalid_format' }))?.key).toBe('invalidEmail');
    expect(validationCopy(invalid({ param: 'url', reason: 'private_address' }))?.key).toBe('privateAddress');
    expect(validationCopy(invalid({ param: 'url', reason: 'private_address', enable_with: 'ALLOW_PRIVATE_TARGETS=1' }))).toEqual({
      key: 'privateAddressTest',
      param: 'url',
      values: { setting: 'ALLOW_PRIVATE_TARGETS=1' },
    });
  });

  it('gives every reason of request validation a message; a domain reason without one keeps the server’s message', () => {
    for (const reason of Object.values(HTTP_REASONS).filter((r) => !DATABASE_FAULT_REASONS.includes(r)))
      expect(VALIDATION_KEYS, reason).toContain(validationCopy(invalid({ param: 'x', reason }))?.key);
    for (const reason of ALL_REASONS) {
      const copy = validationCopy(invalid({ param: 'x', reason }));
      if (copy) expect(VALIDATION_KEYS).toContain(copy.key);
    }
    expect(validationCopy(invalid({ param: 'saml', reason: 'metadata_unreachable' }))).toBeUndefined();
    expect(validationCopy(new ApiError(409, 'CONFLICT', 'x'))).toBeUndefined();
    for (const reason of DATABASE_FAULT_REASONS)
      expect(validationCopy(new ApiError(503, 'SERVICE_UNAVAILABLE', 'x', { reason }))).toBeUndefined();
  });

  it('names every message and field label in each language', () => {
    for (const catalog of Object.values(CATALOGS)) {
      const common = catalog.common as unknown as { validation: Record<string, string>; fields: Record<string, string> };
      expect(Object.keys(common.validation).sort()).toEqual([...VALIDATION_KEYS].sort());
      expect(Object.keys(common.fields).length).toBeGreaterThan(20);
    }
  });

  it('turns a field without a label into words', () => {
    expect(humanizeParam('event_types')).toBe('Event types');
    expect(humanizeParam('saml.idp_metadata_url')).toBe('Idp metadata url');
    expect(humanizeParam('redirect_uris.0')).toBe('Redirect uris');
  });
});
