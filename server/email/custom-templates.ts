import { instanceInfo } from './mailer';
import { EMAIL_TEMPLATES, type EmailTemplateName } from '../../emails';
import type { Deps } from '../deps';
import { sendEmail } from './mailer';
import { renderTemplate, sampleData, validateTemplate, type EmailTemplateParts, type TemplateData } from '../localization/render';
import { AppError, notFound, validationError } from '../http/errors';
import { enforceLimit } from '../limits/rate-limit';
import type { InstanceSettings } from '../instances/settings';
import { localeCandidates } from '../instances/locales';
import {
  deleteLocalization,
  findLocalization,
  listLocalizations,
  saveLocalization,
  type LocalizationView,
} from '../localization/overrides';
import type { AuditContext } from '../http/actor';
import { builtInEmailFor, resolveEmailTemplate } from '../localization/resolve';
import { contentInvalid } from '../localization/validate';

/**
 * Email templates as the dashboard shows them: each built-in with its variable schema
 * and its overrides. An override of a template in a locale is the localization of the
 * resource `email.<template>` in that locale (server/localization/overrides.ts): PUT
 * /email_templates/:template and POST /localizations write the same row, validated by the
 * same code the mailer compiles with.
 */

export const TEST_SEND_LIMIT = { name: 'email_test_send', limit: 5, windowMs: 60_000 };

export function templateName(raw: string): EmailTemplateName {
  if (!Object.prototype.hasOwnProperty.call(EMAIL_TEMPLATES, raw)) throw notFound('email template');
  return raw as EmailTemplateName;
}

/** built_in: no override; overridden: an enabled override in some locale; disabled: overrides, all disabled. */
const stateOf = (overrides: LocalizationView[]) =>
  overrides.length === 0 ? ('built_in' as const) : overrides.some((o) => o.enabled) ? ('overridden' as const) : ('disabled' as const);

function summary(name: EmailTemplateName, overrides: LocalizationView[]) {
  const def = EMAIL_TEMPLATES[name];
  return {
    object: 'email_template' as const,
    name,
    description: def.description,
    variables: def.variables.map((v) => ({ ...v })),
    built_in_locales: Object.keys(def.locales),
    state: stateOf(overrides),
    overrides,
  };
}

export async function listEmailTemplates(deps: Pick<Deps, 'db'>, instanceId: string) {
  const all = await listLocalizations(deps, instanceId, { kind: 'email' });
  return {
    object: 'list' as const,
    data: (Object.keys(EMAIL_TEMPLATES) as EmailTemplateName[]).map((name) =>
      summary(
        name,
        all.filter((o) => o.resource === `email.${name}`),
      ),
    ),
    has_more: false,
  };
}

/** One template in one locale: its base copy there, the override (if any), and what a reader of that locale gets. */
export async function getEmailTemplate(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  settings: InstanceSettings,
  name: EmailTemplateName,
  locale: string,
) {
  const overrides = await listLocalizations(deps, instanceId, { resource: `email.${name}` });
  const base = builtInEmailFor(name, localeCandidates({ userLocale: locale }));
  const effective = await resolveEmailTemplate(
    deps,
    instanceId,
    name,
    localeCandidates({ userLocale: locale, instanceDefault: settings.default_locale }),
  );
  return {
    ...summary(name, overrides),
    locale,
    base: { locale: base.locale, subject: base.subject, mjml: base.mjml, text: base.text ?? null },
    override: overrides.find((o) => o.locale === locale) ?? null,
    effective: {
      source: effective.source,
      locale: effective.template.locale,
      subject: effective.template.subject,
      mjml: effective.template.mjml,
      text: effective.template.text ?? null,
    },
  };
}

export async function saveEmailTemplate(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  name: EmailTemplateName,
  input: { locale: string; subject: string; mjml: string; text?: string | null; enabled?: boolean },
  ctx: AuditContext,
) {
  return saveLocalization(
    deps,
    instanceId,
    {
      locale: input.locale,
      resource: `email.${name}`,
      content: { subject: input.subject, mjml: input.mjml, text: input.text ?? null },
      enabled: input.enabled,
    },
    ctx,
  );
}

export async function deleteEmailTemplateOverride(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  name: EmailTemplateName,
  locale: string,
  ctx: AuditContext,
) {
  const row = await findLocalization(deps, instanceId, `email.${name}`, locale);
  if (!row) throw notFound('email template override');
  return deleteLocalization(deps, instanceId, row.id, ctx);
}

export interface DraftInput {
  locale: string;
  subject?: string;
  mjml?: string;
  text?: string | null;
  data?: TemplateData;
}

/**
 * The template a preview or test send renders: the draft when one is given (validated
 * like a save), else what a reader of `locale` gets now.
 */
async function draftOrEffective(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  settings: InstanceSettings,
  name: EmailTemplateName,
  input: DraftInput,
) {
  const def = EMAIL_TEMPLATES[name];
  const isDraft = input.subject !== undefined || input.mjml !== undefined || input.text !== undefined;
  if (!isDraft) {
    const t = (
      await resolveEmailTemplate(
        deps,
        instanceId,
        name,
        localeCandidates({ userLocale: input.locale, instanceDefault: settings.default_locale }),
      )
    ).template;
    return { locale: t.locale, parts: { subject: t.subject, mjml: t.mjml, text: t.text ?? null } };
  }
  if (input.subject === undefined) throw validationError('subject', 'required', 'subject is required with a draft.');
  if (input.mjml === undefined) throw validationError('mjml', 'required', 'mjml is required with a draft.');
  const parts: EmailTemplateParts = { subject: input.subject, mjml: input.mjml, text: input.text ?? null };
  const problems = await validateTemplate(parts, def.variables);
  if (problems.length) throw contentInvalid(problems);
  return { locale: input.locale, parts };
}

/** Sample values, then the instance's name and branding (as the mailer fills them), then what was given. */
function dataFor(name: EmailTemplateName, appName: string, branding: TemplateData, given: TemplateData | undefined): TemplateData {
  const variables = EMAIL_TEMPLATES[name].variables;
  const known = new Set<string>(variables.map((v) => v.name));
  for (const key of Object.keys(given ?? {})) {
    if (!known.has(key)) throw validationError(`data.${key}`, 'unknown_variable', `data.${key} is not a variable of ${name}.`);
  }
  return { ...sampleData(variables), app_name: appName, ...branding, ...given };
}

const badData = (err: unknown) => {
  if (err instanceof TypeError) return validationError('data', 'invalid', err.message.replace(/^[^:]+: /, 'data: '));
  return err;
};

/** Renders a draft (or the current template) with sample or given values. Sends and writes nothing. */
export async function previewEmailTemplate(
  deps: Pick<Deps, 'db' | 'config'>,
  instance: { id: string; name: string; settings: InstanceSettings },
  name: EmailTemplateName,
  input: DraftInput,
) {
  const { locale, parts } = await draftOrEffective(deps, instance.id, instance.settings, name, input);
  const info = await instanceInfo(deps, instance.id);
  const data = dataFor(name, info.name, info.branding, input.data);
  const rendered = await renderTemplate({ name, locale, variables: EMAIL_TEMPLATES[name].variables, ...parts }, data).catch(
    (e: unknown) => {
      throw badData(e);
    },
  );
  return { object: 'email_preview' as const, template: name, locale, ...rendered };
}

/** The operator as users/users.ts's getUser answers: their addresses, which are verified, which is primary. */
export interface TestRecipient {
  id: string;
  primary_email_address_id: string | null;
  email_addresses: { id: string; email_address: string; verification: { status: string } | null }[];
}

/**
 * Renders a draft (or the current template) and sends it to the operator's own verified
 * address, recorded as an email of the instance (email.created, the outbox). At most
 * TEST_SEND_LIMIT per operator.
 */
export async function testSendEmailTemplate(
  deps: Deps,
  args: {
    instance: { id: string; name: string; settings: InstanceSettings };
    operator: TestRecipient;
    name: EmailTemplateName;
    input: DraftInput;
  },
) {
  const { instance, operator, name, input } = args;
  const verified = operator.email_addresses.filter((e) => e.verification?.status === 'verified');
  const to = verified.find((e) => e.id === operator.primary_email_address_id) ?? verified[0];
  if (!to) {
    throw new AppError('CONFLICT', {
      message: 'Verify your own email address first: test emails go only there.',
      meta: { reason: 'no_verified_email_address' },
    });
  }
  const { locale, parts } = await draftOrEffective(deps, instance.id, instance.settings, name, input);
  const info = await instanceInfo(deps, instance.id);
  const data = dataFor(name, info.name, info.branding, input.data);
  await enforceLimit(deps, 'dashboard', TEST_SEND_LIMIT, operator.id);
  return sendEmail(deps, {
    instanceId: instance.id,
    to: to.email_address,
    template: name,
    data: data as never,
    content: { ...parts, locale },
  }).catch((e: unknown) => {
    throw badData(e);
  });
}
