import { eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { instances } from '../db/schema';
import type { VerificationPurpose } from '../db/schema';
import { deliverEmail, sendEmail } from '../email/mailer';
import { sendSms } from '../sms/send';
import { renderTemplate } from '../localization/render';
import { builtInEmailTemplate } from '../localization/built-in-templates';
import { localeCandidates } from '../instances/locales';
import { resolveEmailTemplate } from '../localization/resolve';
import { VERIFICATION_CODE_TTL_MS, issueCode } from './codes';
import { deliverSmsAfterCommit } from '../sms/delivery';
import { assertCountryAllowed, spendSmsBudgets } from '../sms/pumping';

type D = Deps;

const TEMPLATE = {
  sign_up: 'verification_code',
  sign_up_link: 'verification_link',
  sign_in: 'verification_code',
  sign_in_phone: 'verification_code',
  sign_in_link: 'sign_in_link',
  reset_password: 'password_reset_code',
  domain_affiliation: 'verification_code',
  second_factor: 'verification_code',
  email_verification: 'verification_code',
  email_verification_link: 'verification_link',
  phone_verification: 'verification_code',
  reauthentication: 'verification_code',
} as const satisfies Record<VerificationPurpose, string>;

/**
 * Issues a code (reissue caps apply) and emails it, in one transaction: the code row,
 * the `email` row and email.created commit together; SMTP delivery follows the commit.
 * `to` null (an identifier that names nobody) issues and counts a code but sends
 * nothing, so the answer is the same; the email is still rendered, and SMTP delivery
 * never holds up the answer, so the timing is alike too.
 */
export async function sendCode(
  deps: D,
  input: {
    instanceId: string;
    attemptId: string;
    purpose: VerificationPurpose;
    address: string;
    to: string | null;
    userId?: string | null;
    /** See SendEmailInput: the recipient's locale (else the user's), then Accept-Language. */
    locale?: string | null;
    acceptLanguage?: string | null;
    /** A link (purposes `…_link`): the URL that carries the secret. */
    linkUrl?: (secret: string) => string;
    /** A link: when, from where and on what device it was asked for (risk.ts describeRequest). */
    requested?: { time: string; location: string; device: string };
  },
) {
  const { email, row } = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const { code, row } = await issueCode(d, { ...input, link: input.linkUrl !== undefined });
    const expires_in_minutes = VERIFICATION_CODE_TTL_MS / 60_000;
    const data = input.linkUrl ? { url: input.linkUrl(code), expires_in_minutes, ...input.requested } : { code, expires_in_minutes };
    if (!input.to) {
      // The same lookups and render as a real send, so the answer takes as long.
      const { template } = await resolveEmailTemplate(
        d,
        input.instanceId,
        TEMPLATE[input.purpose],
        localeCandidates({ acceptLanguage: input.acceptLanguage }),
      );
      await renderTemplate(template, { ...data, app_name: 'Latchkey' }).catch(() =>
        renderTemplate(builtInEmailTemplate(TEMPLATE[input.purpose]), data),
      );
      return { email: null, row };
    }
    const email = await sendEmail(d, {
      instanceId: input.instanceId,
      to: input.to,
      template: TEMPLATE[input.purpose],
      data: data as never,
      userId: input.userId ?? null,
      ...(input.locale ? { locale: input.locale } : {}),
      acceptLanguage: input.acceptLanguage ?? null,
    });
    return { email, row };
  });
  if (email && email.status === 'queued') {
    // After the commit, off the request's path; a failure is retried by the mail sweep.
    deliverEmail(deps, email.id).catch((err: unknown) =>
      deps.logger.warn({ err, email_id: email.id }, 'verification code delivery failed'),
    );
  }
  return row;
}

/**
 * Issues a code (reissue caps apply) and texts it, in one transaction; the provider gets it
 * after the commit (server/sms/delivery.ts), or it stays in the dev outbox when the instance
 * has none. SMS pumping protection applies whether or not anybody gets the code, so the
 * answer is the same: the country allow-list (422 country_not_allowed on `param`), then the
 * per-number and per-country budgets (each request for a code counts), then the reissue caps.
 */
export async function sendSmsCode(
  deps: D,
  input: {
    instanceId: string;
    attemptId: string;
    purpose: VerificationPurpose;
    phone: string;
    /** The user the code is for; null: nobody yet (a sign-up) or nobody at all (a sign-in for a number nobody has). */
    userId: string | null;
    /** Whether the SMS goes out; default: when `userId` names a user. A sign-up texts a number no user has yet. */
    send?: boolean;
    /** The field a refused country is reported on. */
    param?: string;
    locale?: string | null;
    acceptLanguage?: string | null;
  },
) {
  await assertCountryAllowed(deps, input.instanceId, input.phone, input.param ?? 'phone_number');
  const [instance] = await deps.db
    .select({ id: instances.id, environment: instances.environment })
    .from(instances)
    .where(eq(instances.id, input.instanceId));
  // Before the transaction: the budgets read the policy and audit a refusal on their own connection.
  await spendSmsBudgets(deps, instance!, input.phone);
  const { row, sms } = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const { code, row } = await issueCode(d, {
      instanceId: input.instanceId,
      attemptId: input.attemptId,
      purpose: input.purpose,
      address: input.phone,
    });
    if (!(input.send ?? input.userId !== null)) return { row, sms: null };
    const sms = await sendSms(d, {
      instanceId: input.instanceId,
      to: input.phone,
      template: 'verification_code',
      data: { code, expires_in_minutes: VERIFICATION_CODE_TTL_MS / 60_000 },
      userId: input.userId,
      ...(input.locale ? { locale: input.locale } : {}),
      acceptLanguage: input.acceptLanguage ?? null,
    });
    return { row, sms };
  });
  deliverSmsAfterCommit(deps, sms);
  return row;
}
