import { and, eq, lte, or, sql } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { EmailDataOf, EmailTemplateName } from '../../emails';
import type { Deps } from '../deps';
import { emails, instanceLogos, instances, users } from '../db/schema';
import { emitEvent } from '../events/events';
import { validationError } from '../http/errors';
import { newId } from '../db/ids';
import { emailAddress } from './addresses';
import { emailView, type EmailRow, type EmailView } from './messages';
import { localeCandidates } from '../instances/locales';
import { builtInEmailFor, resolveEmailTemplate } from '../localization/resolve';
import { instanceSettings } from '../instances/settings';
import { logoUrl } from '../instances/branding';
import { applicationName } from '../instances/branding-settings';
import { fapiUrlFor } from '../instances/custom-domain';
import {
  renderTemplate,
  templateContext,
  TemplateInvalidError,
  type EmailTemplate,
  type EmailTemplateParts,
  type TemplateData,
  type TemplateSchema,
} from '../localization/render';
import { describeDeliveryError } from '../infra/mail-transport';

type MailDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'logger' | 'mailer'>;

/** A failed email is tried again after these delays; after the last, it stays failed. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000] as const;
/** A queued email this old was never delivered (its process stopped): the sweep sends it. */
const STALE_QUEUED_MS = 60_000;

export interface SendEmailInput<N extends EmailTemplateName = EmailTemplateName> {
  instanceId: string;
  to: string;
  template: N;
  /** The template's variables; `app_name` defaults to the instance name. */
  data: EmailDataOf<N>;
  /**
   * The recipient's own locale (BCP 47). Left out, the locale of the user `userId` is
   * used. Resolution: this, then `acceptLanguage`, then the instance's default_locale,
   * then English; each falls back from `fr-CA` to `fr`.
   */
  locale?: string | null;
  /** The Accept-Language of the request that caused the email, if any. */
  acceptLanguage?: string | null;
  userId?: string | null;
  /** Renders this copy instead of the resolved template (an operator's test send). */
  content?: EmailTemplateParts & { locale: string };
}

/** The variables a message was rendered with, as given (absent optional ones left out). */
export function storedData(schema: TemplateSchema, data: TemplateData, name: string): Record<string, string | number> {
  return Object.fromEntries(Object.entries(templateContext(schema, data, name)).filter(([, v]) => v !== ''));
}

const isTransaction = (db: Deps['db']) => db instanceof PgTransaction;

/** The instance's name, default language and the branding every message shows (previews use it too). */
export async function instanceInfo(deps: Pick<Deps, 'db' | 'config'>, instanceId: string) {
  const [row] = await deps.db
    .select({ name: instances.name, settings: instances.settings, customDomain: instances.customDomain, logo: instanceLogos.version })
    .from(instances)
    .leftJoin(instanceLogos, eq(instanceLogos.instanceId, instances.id))
    .where(eq(instances.id, instanceId));
  if (!row) throw new Error(`No instance ${instanceId}`);
  const settings = instanceSettings(row.settings);
  return {
    /** The name end users see (the branding's application name, else the instance's). */
    name: applicationName(row.name, settings),
    defaultLocale: settings.default_locale,
    // What every message shows of the instance's branding (server/instances/branding.ts).
    branding: {
      logo_url: row.logo ? logoUrl(fapiUrlFor(deps.config, instanceId, row.customDomain), row.logo) : '',
      support_email: settings.branding.support_email ?? '',
      brand_color: settings.branding.primary_color ?? '',
    },
    /** The sender of its emails: the branding's, else the server's EMAIL_FROM. */
    emailFrom: settings.branding.email_from ?? deps.config.EMAIL_FROM,
  };
}

/** The locales to try for a message, per the resolution order (see SendEmailInput.locale). */
export async function candidatesFor(
  deps: Pick<Deps, 'db'>,
  input: { instanceId: string; locale?: string | null; acceptLanguage?: string | null; userId?: string | null },
  defaultLocale: string,
) {
  let userLocale = input.locale;
  if (userLocale === undefined && input.userId) {
    const [u] = await deps.db
      .select({ locale: users.locale })
      .from(users)
      .where(and(eq(users.id, input.userId), eq(users.instanceId, input.instanceId)));
    userLocale = u?.locale ?? null;
  }
  return localeCandidates({ userLocale, acceptLanguage: input.acceptLanguage, instanceDefault: defaultLocale });
}

/** The instance's name and branding fill what the caller left out (`app_name`, `logo_url`, `support_email`, `brand_color`). */
export function withBranding(
  data: object,
  instance: { name: string; branding: { logo_url: string; support_email: string; brand_color: string } },
): TemplateData {
  const d = data as TemplateData;
  const fill: TemplateData = { app_name: instance.name, ...instance.branding };
  return {
    ...Object.fromEntries(Object.entries(fill).filter(([k]) => d[k] === undefined || d[k] === null || d[k] === '')),
    ...Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined && v !== null && v !== '')),
  };
}

/**
 * Renders an email — the instance's override in the resolved locale, else the built-in
 * copy (server/localization/resolve.ts) — records it and emits email.created in one transaction, then
 * delivers it: by SMTP when `deps.mailer` is set, else it stays in the dev outbox
 * (delivered at once). Delivery failures do not throw: the email is `failed` with its
 * error and retried by retryQueuedEmails.
 *
 * Called with `deps.db` already a transaction, the email is written in that transaction
 * but not sent (a rollback must not leave a sent email behind): call deliverEmail after
 * the commit, or the retry sweep sends it within a minute or two.
 */
export async function sendEmail<N extends EmailTemplateName>(deps: MailDeps, input: SendEmailInput<N>): Promise<EmailView> {
  const to = emailAddress.safeParse(input.to);
  if (!to.success) throw validationError('to', 'invalid', 'The recipient is not a valid email address.');
  const instance = await instanceInfo(deps, input.instanceId);
  const data = withBranding(input.data, instance);
  const candidates = await candidatesFor(deps, input, instance.defaultLocale);
  let template: EmailTemplate;
  let rendered;
  if (input.content) {
    const { locale, ...parts } = input.content;
    template = { ...builtInEmailFor(input.template, [locale]), ...parts, locale };
    rendered = await renderTemplate(template, data);
  } else {
    const resolved = await resolveEmailTemplate(deps, input.instanceId, input.template, candidates);
    template = resolved.template;
    try {
      rendered = await renderTemplate(template, data);
    } catch (err) {
      // Overrides are validated when saved; should one still fail, the built-in copy goes out.
      if (resolved.source !== 'override' || !(err instanceof TemplateInvalidError)) throw err;
      deps.logger.warn(
        { template: template.name, locale: template.locale, localization_id: resolved.localizationId, err: err.message },
        'email template override failed; sent the built-in copy',
      );
      template = builtInEmailFor(input.template, candidates);
      rendered = await renderTemplate(template, data);
    }
  }
  const smtp = deps.mailer !== null;
  const now = deps.clock.now();
  const row: EmailRow = {
    id: newId('email'),
    instanceId: input.instanceId,
    userId: input.userId ?? null,
    to: to.data,
    from: instance.emailFrom,
    template: template.name,
    locale: template.locale,
    subject: rendered.subject,
    html: rendered.html,
    text: rendered.text,
    data: storedData(template.variables, data, template.name),
    status: smtp ? 'queued' : 'delivered',
    deliveredBy: smtp ? 'smtp' : 'outbox',
    error: null,
    attempts: smtp ? 0 : 1,
    nextAttemptAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const view = emailView(row);
  await deps.db.transaction(async (tx) => {
    await tx.insert(emails).values(row);
    await emitEvent({ db: tx, clock: deps.clock }, input.instanceId, 'email.created', view);
  });
  if (!smtp || isTransaction(deps.db)) return view;
  return (await attemptDelivery(deps, row)) ?? view;
}

/**
 * Delivers one recorded email now (after the commit that wrote it, or to send a failed
 * one again). Answers the email as it stands afterwards.
 */
export async function deliverEmail(deps: MailDeps, emailId: string): Promise<EmailView | null> {
  const [row] = await deps.db.select().from(emails).where(eq(emails.id, emailId));
  if (!row) return null;
  if (row.status === 'delivered') return emailView(row);
  return (await attemptDelivery(deps, row)) ?? emailView((await deps.db.select().from(emails).where(eq(emails.id, emailId)))[0]!);
}

/** After the commit that wrote them: hands queued emails to SMTP (the retry sweep sends any failure later). */
export function deliverAfterCommit(deps: MailDeps, sent: readonly (EmailView | null)[], what: string) {
  for (const e of sent) {
    if (e && e.status === 'queued') {
      deliverEmail(deps, e.id).catch((err: unknown) => deps.logger.warn({ err, email_id: e.id }, `${what} email delivery failed`));
    }
  }
}

/**
 * Claims the row (attempts is its version: of two nodes, one wins), sends, records the
 * outcome. Null when another delivery claimed it first.
 */
async function attemptDelivery(deps: MailDeps, row: EmailRow): Promise<EmailView | null> {
  const claimedAt = deps.clock.now();
  const [claimed] = await deps.db
    .update(emails)
    .set({ attempts: sql`${emails.attempts} + 1`, status: 'queued', nextAttemptAt: null, updatedAt: claimedAt })
    .where(and(eq(emails.id, row.id), eq(emails.attempts, row.attempts), eq(emails.status, row.status)))
    .returning();
  if (!claimed) return null;

  let outcome: Partial<EmailRow>;
  if (!deps.mailer) {
    outcome = { status: 'delivered', deliveredBy: 'outbox', error: null };
  } else {
    try {
      await deps.mailer.send({
        from: claimed.from,
        to: claimed.to,
        subject: claimed.subject,
        html: claimed.html,
        text: claimed.text,
        // Its own id, so mail clients do not thread one code under another.
        headers: { 'X-Entity-Ref-ID': claimed.id },
      });
      outcome = { status: 'delivered', deliveredBy: 'smtp', error: null };
      deps.logger.debug({ email_id: claimed.id, attempts: claimed.attempts }, 'email delivered');
    } catch (err) {
      const error = describeDeliveryError(err, deps.config.SMTP_URL);
      const delay = RETRY_DELAYS_MS[claimed.attempts - 1];
      outcome = { status: 'failed', deliveredBy: 'smtp', error, nextAttemptAt: delay === undefined ? null : deps.clock.now() + delay };
      deps.logger.warn({ email_id: claimed.id, attempts: claimed.attempts, error, retry: delay !== undefined }, 'email delivery failed');
    }
  }
  const [done] = await deps.db
    .update(emails)
    .set({ ...outcome, updatedAt: deps.clock.now() })
    .where(and(eq(emails.id, claimed.id), eq(emails.attempts, claimed.attempts)))
    .returning();
  return emailView(done ?? { ...claimed, ...outcome });
}

/**
 * The retry sweep: sends queued emails older than a minute (their process stopped before
 * sending) and failed ones whose next attempt is due. Run it every 30–60 s.
 */
export async function retryQueuedEmails(deps: MailDeps, opts: { limit?: number } = {}) {
  const now = deps.clock.now();
  const due = await deps.db
    .select()
    .from(emails)
    .where(
      or(
        and(eq(emails.status, 'queued'), lte(emails.updatedAt, now - STALE_QUEUED_MS)),
        and(eq(emails.status, 'failed'), lte(emails.nextAttemptAt, now)),
      ),
    )
    .orderBy(emails.id)
    .limit(opts.limit ?? 50);
  const result = { attempted: 0, delivered: 0, failed: 0 };
  for (const row of due) {
    const after = await attemptDelivery(deps, row);
    if (!after) continue;
    result.attempted++;
    if (after.status === 'delivered') result.delivered++;
    else result.failed++;
  }
  return result;
}
