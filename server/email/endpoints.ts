import { z } from 'zod';
import { EMAIL_TEMPLATE_NAMES, SMS_TEMPLATE_NAMES } from '../../emails';
import { endpoint } from '../http/endpoint';
import { cursorPageSchema, pageQuery } from '../http/pagination';
import { emailAddress, phoneNumber } from './addresses';
import { SMS_STATUSES } from '../db/schema';
import { assertOutboxReadable, getEmail, getSms, listEmails, listSms } from './messages';

const status = z.enum(['queued', 'delivered', 'failed']);

export const emailSchema = z
  .object({
    object: z.literal('email'),
    id: z.string(),
    user_id: z.string().nullable(),
    to: z.string(),
    from: z.string(),
    template: z.string(),
    locale: z.string(),
    subject: z.string(),
    html: z.string(),
    text: z.string(),
    /** The template variables it was rendered with. */
    data: z.record(z.string(), z.unknown()),
    status,
    /** `smtp` when SMTP_URL is set, else `outbox` (kept here, not sent). */
    delivered_by: z.enum(['smtp', 'outbox']),
    error: z.string().nullable(),
    attempts: z.number().int(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Email' });

export const smsSchema = z
  .object({
    object: z.literal('sms'),
    id: z.string(),
    user_id: z.string().nullable(),
    to: z.string(),
    from: z.string().nullable(),
    template: z.string(),
    locale: z.string(),
    body: z
      .string()
      .nullable()
      .meta({ description: 'The text sent; null on a live instance, where it carries a one-time code (body_redacted).' }),
    /** The template variables it was rendered with; empty when the body is withheld. */
    data: z.record(z.string(), z.unknown()),
    body_redacted: z
      .boolean()
      .meta({ description: 'True on a live instance: the body and data are withheld, the delivery fields are not.' }),
    status: z
      .enum(SMS_STATUSES)
      .meta({ description: 'queued (not yet accepted by the provider; retried), sent, delivered, undelivered or failed' }),
    delivered_by: z.enum(['outbox', 'twilio']),
    error: z.string().nullable(),
    /** The provider's error code (Twilio's 21211, 30003…) or ours (http_503, timeout). */
    error_code: z.string().nullable(),
    provider_message_id: z.string().nullable(),
    attempts: z.number().int(),
    next_attempt_at: z.number().int().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Sms' });

export const listEmailsQuery = z.strictObject({
  ...pageQuery,
  to: emailAddress.optional(),
  user_id: z.string().min(1).max(64).optional(),
  template: z.enum(EMAIL_TEMPLATE_NAMES as [string, ...string[]]).optional(),
});

export const listSmsQuery = z.strictObject({
  ...pageQuery,
  to: phoneNumber.optional(),
  user_id: z.string().min(1).max(64).optional(),
  template: z.enum(SMS_TEMPLATE_NAMES as [string, ...string[]]).optional(),
});

type Environment = Parameters<typeof assertOutboxReadable>[0];

/**
 * The outbox of the instance `instanceOf` names for a surface's caller. Emails: test
 * instances only. SMS: every instance, so a live operator follows delivery; on a live
 * instance without their text (it carries codes). `params.id` is the email or SMS.
 */
export function messageEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string; environment: Environment }) {
  const outbox = (auth: Auth, what: string) => {
    const instance = instanceOf(auth);
    assertOutboxReadable(instance.environment, what);
    return instance.id;
  };
  const redactionOf = (auth: Auth) => ({ redact: instanceOf(auth).environment !== 'test' });
  return {
    listEmails: endpoint<Auth, never, z.output<typeof listEmailsQuery>>({
      summary: 'List sent emails (the dev outbox), newest first; filter by to, user_id, template. Test instances only',
      query: listEmailsQuery,
      response: cursorPageSchema(emailSchema),
      handle: async ({ deps, auth, query }) => listEmails(deps, outbox(auth, 'Emails'), query),
    }),
    getEmail: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a sent email. Test instances only',
      response: emailSchema,
      handle: async ({ deps, auth, params }) => getEmail(deps, outbox(auth, 'Emails'), params.id),
    }),
    listSms: endpoint<Auth, never, z.output<typeof listSmsQuery>>({
      summary:
        'List sent SMS with their delivery status, newest first; filter by to, user_id, template. On a live instance the body and data are withheld (body_redacted)',
      query: listSmsQuery,
      response: cursorPageSchema(smsSchema),
      handle: async ({ deps, auth, query }) => listSms(deps, instanceOf(auth).id, query, redactionOf(auth)),
    }),
    getSms: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a sent SMS with its delivery status. On a live instance the body and data are withheld (body_redacted)',
      response: smsSchema,
      handle: async ({ deps, auth, params }) => getSms(deps, instanceOf(auth).id, params.id, redactionOf(auth)),
    }),
  };
}
