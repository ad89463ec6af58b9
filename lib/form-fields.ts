/**
 * Which field of a form an API error belongs under. The server names the parameter a
 * VALIDATION_FAILED entry is about in `meta.param`, as a dotted path into the request body:
 * a top-level field (`email_address`), a nested one (`password_policy.min_length`,
 * `branding.primary_color`), a list entry (`allowed_origins.2`), a key inside metadata
 * (`public_metadata.plan`). A form's field owns the parameter it names and everything
 * inside it; when several do (`branding` and `branding.primary_color`), the deepest wins.
 * Matching is by whole segments: `password` does not own `password_digest`.
 */
export function fieldOfParam<F extends string>(fields: readonly F[], param: string | undefined): F | undefined {
  if (!param) return undefined;
  let owner: F | undefined;
  for (const field of fields) {
    if ((param === field || param.startsWith(`${field}.`)) && (owner === undefined || field.length > owner.length)) owner = field;
  }
  return owner;
}

/**
 * The first error under each field of a form (a 422 names each invalid field in its own
 * entry); errors that no field owns are left out.
 */
export function errorsByField<F extends string, E>(
  fields: readonly F[],
  errors: readonly E[],
  paramOf: (error: E) => string | undefined,
): Map<F, E> {
  const byField = new Map<F, E>();
  for (const error of errors) {
    const field = fieldOfParam(fields, paramOf(error));
    if (field !== undefined && !byField.has(field)) byField.set(field, error);
  }
  return byField;
}
