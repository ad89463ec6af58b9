import { z } from 'zod';
import { AppError, type ErrorEntry } from './errors';

function entry(issue: z.core.$ZodIssue, root: string): ErrorEntry[] {
  const base = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => {
      const param = [base, k].filter(Boolean).join('.') || root;
      return { code: 'VALIDATION_FAILED', message: `${param} is not a known field.`, meta: { param, reason: 'unknown_field' } };
    });
  }
  const param = base || root;
  const reason = issue.code === 'invalid_type' && issue.input === undefined ? 'required' : issue.code;
  const message = reason === 'required' ? `${param} is required.` : `${param}: ${issue.message}`;
  return [{ code: 'VALIDATION_FAILED', message, meta: { param, reason } }];
}

/** Parses input with a zod schema; every problem becomes one 422 entry naming its field. */
export function validate<T extends z.ZodType>(schema: T, input: unknown, root = 'body'): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const entries = result.error.issues.flatMap((i) => entry(i, root)).slice(0, 20);
  const [first, ...more] = entries;
  throw new AppError('VALIDATION_FAILED', { message: first!.message, meta: first!.meta, more });
}
