import { z } from 'zod';
import type { LocalizationContent } from '../db/schema';
import { TEMPLATE_LIMITS, validateTemplate, type TemplateProblem } from './render';
import { AppError, validationError } from '../http/errors';
import type { CatalogResource } from './catalog';
import { parseIcu } from './icu';

/** A problem of an override's content: the part (subject, mjml, text, body), where, and what. */
export interface ContentProblem extends Omit<TemplateProblem, 'part'> {
  part: TemplateProblem['part'] | 'body';
}

/** Characters of a hosted-page message override. */
const HOSTED_TEXT_MAX = 2_000;

/**
 * 422 VALIDATION_FAILED with one error entry per problem; each entry's meta carries the
 * part, line and column (1-based) and the kind of problem (`reason`).
 */
export function contentInvalid(problems: ContentProblem[]): AppError {
  const entries = problems.map((p) => ({
    code: 'VALIDATION_FAILED' as const,
    message: `${p.part} ${p.line}:${p.column}: ${p.message}`,
    meta: { param: p.part, reason: p.kind, part: p.part, line: p.line, column: p.column },
  }));
  const [first, ...more] = entries;
  return new AppError('VALIDATION_FAILED', { message: first!.message, meta: first!.meta, more });
}

const emailContent = z.strictObject({
  subject: z.string().max(TEMPLATE_LIMITS.subject * 2),
  mjml: z.string().max(TEMPLATE_LIMITS.mjml * 2),
  text: z
    .string()
    .max(TEMPLATE_LIMITS.text * 2)
    .nullable()
    .optional(),
});
const smsContent = z.strictObject({ body: z.string().max(TEMPLATE_LIMITS.sms * 2) });
const hostedContent = z.strictObject({ text: z.string().max(HOSTED_TEXT_MAX * 2) });

function shape<T>(schema: z.ZodType<T>, value: unknown, kind: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues.find((i) => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!;
  const at = issue.path.length ? `content.${issue.path.join('.')}` : 'content';
  const param = issue.code === 'unrecognized_keys' ? `content.${issue.keys[0]}` : at;
  throw validationError(
    param,
    issue.code === 'unrecognized_keys' ? 'unknown_field' : 'invalid',
    `${param}: ${issue.message} (the content of ${kind} copy)`,
  );
}

function lineColumn(source: string, offset: number) {
  const before = source.slice(0, Math.max(0, offset - 1)).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/**
 * Checks an override's content against its resource — the same validator the mailer
 * compiles with for emails and SMS — and answers it normalised, or throws 422 with
 * every problem.
 */
export async function checkContent(resource: CatalogResource, value: unknown): Promise<LocalizationContent> {
  if (resource.kind === 'email') {
    const c = shape(emailContent, value, 'an email');
    const content = { subject: c.subject, mjml: c.mjml, text: c.text ?? null };
    const problems = await validateTemplate(content, resource.variables);
    if (problems.length) throw contentInvalid(problems);
    return content;
  }
  if (resource.kind === 'sms') {
    const c = shape(smsContent, value, 'an SMS');
    const problems = await validateTemplate({ text: c.body }, resource.variables, { sms: true });
    if (problems.length) throw contentInvalid(problems.map((p) => ({ ...p, part: 'body' as const })));
    return { body: c.body };
  }
  const c = shape(hostedContent, value, 'a hosted-page message');
  const problems: ContentProblem[] = [];
  if (c.text.length > HOSTED_TEXT_MAX) {
    problems.push({
      part: 'text',
      kind: 'too_large',
      line: 1,
      column: 1,
      message: `The text is ${c.text.length} characters; the limit is ${HOSTED_TEXT_MAX}.`,
    });
  } else {
    const parsed = parseIcu(c.text);
    if (parsed.error)
      problems.push({ part: 'text', kind: 'syntax_error', ...lineColumn(c.text, parsed.error.offset), message: parsed.error.message });
    const known = new Set(resource.variables.map((v) => v.name));
    for (const name of parsed.args) {
      if (known.has(name)) continue;
      const at = c.text.search(new RegExp(`\\{\\s*${name}\\b`));
      const available = known.size ? [...known].map((n) => `{${n}}`).join(', ') : 'none';
      problems.push({
        part: 'text',
        kind: 'unknown_variable',
        ...lineColumn(c.text, at + 2),
        message: `Unknown argument "${name}". Available: ${available}.`,
      });
    }
  }
  if (problems.length) throw contentInvalid(problems);
  return { text: c.text };
}
