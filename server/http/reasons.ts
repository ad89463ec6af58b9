/**
 * Every `meta.reason` that body parsing and validation answer with on every surface. Clients
 * branch on these: a reason is never renamed (docs/conventions.md, "Stable reasons"). The last ten are
 * zod's issue codes, answered as they are where no rule names a reason (http/validate.ts).
 */
export const REASONS = {
  body_unreadable: 'body_unreadable',
  invalid_utf8: 'invalid_utf8',
  repeated_parameter: 'repeated_parameter',
  required: 'required',
  unknown_field: 'unknown_field',
  invalid: 'invalid',
  invalid_characters: 'invalid_characters',
  too_deep: 'too_deep',
  too_large: 'too_large',
  // An uploaded image whose bytes are not the type it claims (http/images.ts).
  type_mismatch: 'type_mismatch',
  taken: 'taken',
  not_found: 'not_found',
  invalid_url: 'invalid_url',
  before_since: 'before_since',
  invalid_type: 'invalid_type',
  too_big: 'too_big',
  too_small: 'too_small',
  invalid_format: 'invalid_format',
  not_multiple_of: 'not_multiple_of',
  invalid_union: 'invalid_union',
  invalid_key: 'invalid_key',
  invalid_element: 'invalid_element',
  invalid_value: 'invalid_value',
  custom: 'custom',
  // Database faults (server/db/errors.ts): 503 with Retry-After, and a write that lost a row it refers to.
  database_unavailable: 'database_unavailable',
  database_busy: 'database_busy',
  removed_meanwhile: 'removed_meanwhile',
} as const;

/** The reasons above that are not about the request's input: a client retries (503) or re-reads (409) instead of fixing a field. */
export const DATABASE_FAULT_REASONS: readonly string[] = [REASONS.database_unavailable, REASONS.database_busy, REASONS.removed_meanwhile];
