import { ApiError } from './api-client';

/**
 * VALIDATION_FAILED as copy in the UI's language: which message of `common.validation` says
 * what is wrong with the field `meta.param` names (its label from `common.fields`), chosen
 * from `meta.reason` and the bounds the server adds (min_length, maximum…). Every reason
 * of request validation (http/reasons.ts: zod's codes, required, too_small…) and the common
 * domain ones (taken, private_address, the password rules…) have copy here.
 */
export type ValidationCopy = { key: ValidationKey; param: string; values: Record<string, string | number> };

export const VALIDATION_KEYS = [
  'required',
  'tooShort',
  'tooLong',
  'tooSmall',
  'tooBig',
  'tooFew',
  'tooMany',
  'tooLarge',
  'invalid',
  'invalidEmail',
  'invalidUrl',
  'invalidCharacters',
  'taken',
  'notFound',
  'reserved',
  'unknownField',
  'unknownValue',
  'httpsRequired',
  'privateAddress',
  'privateAddressTest',
  'schemeNotAllowed',
  'credentialsNotAllowed',
  'passwordNeedsUppercase',
  'passwordNeedsLowercase',
  'passwordNeedsDigit',
  'passwordNeedsSymbol',
  'passwordMatchesIdentifier',
  'passwordCompromised',
  'beforeSince',
  'publicEmailDomain',
  'lowContrast',
  'unverified',
  'typeMismatch',
  'txtRecordNotFound',
] as const;
type ValidationKey = (typeof VALIDATION_KEYS)[number];

const num = (meta: Record<string, unknown>, key: string) => (typeof meta[key] === 'number' ? (meta[key] as number) : undefined);

const BY_REASON: Record<string, ValidationKey> = {
  required: 'required',
  identifier_required: 'required',
  empty: 'required',
  invalid_url: 'invalidUrl',
  invalid_characters: 'invalidCharacters',
  taken: 'taken',
  duplicate: 'taken',
  domain_taken: 'taken',
  not_found: 'notFound',
  reserved: 'reserved',
  unknown_field: 'unknownField',
  unknown_event_type: 'unknownValue',
  unknown_permission: 'unknownValue',
  unknown_role: 'unknownValue',
  unknown_resource: 'unknownValue',
  unsupported_locale: 'unknownValue',
  too_deep: 'tooLarge',
  too_large: 'tooLarge',
  https_required: 'httpsRequired',
  scheme_not_allowed: 'schemeNotAllowed',
  credentials_not_allowed: 'credentialsNotAllowed',
  missing_uppercase: 'passwordNeedsUppercase',
  missing_lowercase: 'passwordNeedsLowercase',
  missing_digit: 'passwordNeedsDigit',
  missing_symbol: 'passwordNeedsSymbol',
  matches_identifier: 'passwordMatchesIdentifier',
  password_compromised: 'passwordCompromised',
  before_since: 'beforeSince',
  public_email_domain: 'publicEmailDomain',
  txt_record_not_found: 'txtRecordNotFound',
  low_contrast: 'lowContrast',
  unverified: 'unverified',
  type_mismatch: 'typeMismatch',
};

function keyOf(
  reason: string,
  param: string,
  meta: Record<string, unknown>,
): { key: ValidationKey; values: Record<string, string | number> } | undefined {
  const minLength = num(meta, 'min_length');
  const maxLength = num(meta, 'max_length');
  if (reason === 'too_small' || reason === 'too_short') {
    if (minLength !== undefined) return { key: 'tooShort', values: { min: minLength } };
    if (num(meta, 'min_items') !== undefined) return { key: 'tooFew', values: { min: num(meta, 'min_items')! } };
    if (num(meta, 'minimum') !== undefined) return { key: 'tooSmall', values: { min: num(meta, 'minimum')! } };
    return { key: 'invalid', values: {} };
  }
  if (reason === 'too_big' || reason === 'too_long') {
    if (maxLength !== undefined) return { key: 'tooLong', values: { max: maxLength } };
    if (num(meta, 'max_items') !== undefined) return { key: 'tooMany', values: { max: num(meta, 'max_items')! } };
    if (num(meta, 'maximum') !== undefined) return { key: 'tooBig', values: { max: num(meta, 'maximum')! } };
    return { key: 'tooLarge', values: {} };
  }
  if (reason === 'private_address') {
    const setting = typeof meta.enable_with === 'string' ? meta.enable_with : undefined;
    return setting ? { key: 'privateAddressTest', values: { setting } } : { key: 'privateAddress', values: {} };
  }
  if (BY_REASON[reason]) return { key: BY_REASON[reason], values: {} };
  if (!SHAPE_REASONS.has(reason)) return undefined;
  if (/(^|\.|_)email(_address)?$/.test(param)) return { key: 'invalidEmail', values: {} };
  return { key: 'invalid', values: {} };
}

/**
 * The reasons that only say a value has the wrong shape (zod's own codes among them): their
 * server text is a validator's ("name: Invalid input…"), so they always get our copy. A
 * domain's own reason without copy here keeps the server's message, which names the problem.
 */
const SHAPE_REASONS = new Set([
  'invalid',
  'body_unreadable',
  'invalid_utf8',
  'repeated_parameter',
  'invalid_type',
  'invalid_format',
  'invalid_union',
  'invalid_key',
  'invalid_element',
  'invalid_value',
  'not_multiple_of',
  'custom',
  'malformed',
]);

/** The copy of one VALIDATION_FAILED error; undefined for any other error, and for a domain reason whose server message is the copy. */
export function validationCopy(error: unknown): ValidationCopy | undefined {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') return undefined;
  const param = error.param ?? 'body';
  const reason = typeof error.meta.reason === 'string' ? error.meta.reason : 'invalid';
  const copy = keyOf(reason, param, error.meta);
  return copy && { param, ...copy };
}

/** A field's name when the catalog has no label for it: `event_types` → "Event types", `saml.idp_metadata_url` → "Idp metadata url". */
export function humanizeParam(param: string): string {
  const last =
    param
      .split('.')
      .filter((p) => !/^\d+$/.test(p))
      .pop() ?? param;
  const words = last.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
