import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { emails, smsMessages } from '../db/schema';
import { AppError, notFound } from '../http/errors';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';

export type EmailRow = typeof emails.$inferSelect;
export type SmsRow = typeof smsMessages.$inferSelect;

/** The `email` resource, as the API answers it and email.created carries it. */
export function emailView(r: EmailRow) {
  return {
    object: 'email' as const,
    id: r.id,
    user_id: r.userId,
    to: r.to,
    from: r.from,
    template: r.template,
    locale: r.locale,
    subject: r.subject,
    html: r.html,
    text: r.text,
    data: r.data,
    status: r.status,
    delivered_by: r.deliveredBy,
    error: r.error,
    attempts: r.attempts,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type EmailView = ReturnType<typeof emailView>;

/**
 * The `sms` resource. `redact` (the SMS routes of a live instance): the body and the
 * template data, which carry the one-time code, are withheld; the delivery fields stay.
 */
export function smsView(r: SmsRow, opts: { redact?: boolean } = {}) {
  const redact = opts.redact ?? false;
  return {
    object: 'sms' as const,
    id: r.id,
    user_id: r.userId,
    to: r.to,
    from: r.from,
    template: r.template,
    locale: r.locale,
    body: redact ? null : r.body,
    data: redact ? {} : r.data,
    body_redacted: redact,
    status: r.status,
    delivered_by: r.deliveredBy,
    error: r.error,
    error_code: r.errorCode,
    provider_message_id: r.providerMessageId,
    attempts: r.attempts,
    next_attempt_at: r.nextAttemptAt,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type SmsView = ReturnType<typeof smsView>;

export interface MessageQuery {
  limit: number;
  starting_after?: string;
  to?: string;
  user_id?: string;
  template?: string;
}

/** An instance's emails, newest first; `to` matches case-insensitively. */
export async function listEmails(deps: Pick<Deps, 'db'>, instanceId: string, q: MessageQuery) {
  const filters: (SQL | undefined)[] = [eq(emails.instanceId, instanceId)];
  if (q.to !== undefined) filters.push(sql`lower(${emails.to}) = ${q.to.toLowerCase()}`);
  if (q.user_id !== undefined) filters.push(eq(emails.userId, q.user_id));
  if (q.template !== undefined) filters.push(eq(emails.template, q.template));
  return cursorList(q, newestFirst(emails.id), tableRows(deps.db, emails, ...filters), emailView);
}

export async function getEmail(deps: Pick<Deps, 'db'>, instanceId: string, id: string): Promise<EmailView> {
  const [row] = await deps.db
    .select()
    .from(emails)
    .where(and(eq(emails.id, id), eq(emails.instanceId, instanceId)));
  if (!row) throw notFound('email');
  return emailView(row);
}

/** An instance's SMS, newest first; `redact` as smsView's. */
export async function listSms(deps: Pick<Deps, 'db'>, instanceId: string, q: MessageQuery, opts: { redact?: boolean } = {}) {
  const filters: (SQL | undefined)[] = [eq(smsMessages.instanceId, instanceId)];
  if (q.to !== undefined) filters.push(eq(smsMessages.to, q.to));
  if (q.user_id !== undefined) filters.push(eq(smsMessages.userId, q.user_id));
  if (q.template !== undefined) filters.push(eq(smsMessages.template, q.template));
  return cursorList(q, newestFirst(smsMessages.id), tableRows(deps.db, smsMessages, ...filters), (r) => smsView(r, opts));
}

export async function getSms(deps: Pick<Deps, 'db'>, instanceId: string, id: string, opts: { redact?: boolean } = {}): Promise<SmsView> {
  const [row] = await deps.db
    .select()
    .from(smsMessages)
    .where(and(eq(smsMessages.id, id), eq(smsMessages.instanceId, instanceId)));
  if (!row) throw notFound('sms');
  return smsView(row, opts);
}

/**
 * Emails carry one-time codes and links: the APIs show them for test instances only.
 * 403 FORBIDDEN (meta.reason live_instance) otherwise. (SMS are shown everywhere, their
 * text withheld on live instances: an operator follows their delivery.)
 */
export function assertOutboxReadable(environment: 'test' | 'live', what: string): void {
  if (environment !== 'test') {
    throw new AppError('FORBIDDEN', {
      message: `${what} can only be read on test instances: on a live instance they carry one-time codes and links.`,
      meta: { reason: 'live_instance' },
    });
  }
}
