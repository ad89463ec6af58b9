import { AppError, type ErrorCode } from '../http/errors';

/** RFC 7644 §3.12 `scimType` values this surface answers. */
export type ScimType =
  'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers';

/** An error the SCIM protocol renders with this `scimType` (VALIDATION_FAILED renders as 400). */
export const scimError = (code: ErrorCode, scimType: ScimType | null, detail: string) =>
  new AppError(code, { message: detail, meta: scimType ? { scim_type: scimType } : {} });

export const invalidValue = (detail: string) => scimError('VALIDATION_FAILED', 'invalidValue', detail);
