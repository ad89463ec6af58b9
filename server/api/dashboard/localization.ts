import { z } from 'zod';
import { emailSchema } from '../../email/endpoints';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import { validationError } from '../../http/errors';
import { cursorPageSchema, lightListSchema, pageQuery } from '../../http/pagination';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { catalogLocales, resourceCatalog } from '../../localization/catalog';
import {
  deleteEmailTemplateOverride,
  getEmailTemplate,
  listEmailTemplates,
  previewEmailTemplate,
  saveEmailTemplate,
  templateName,
  testSendEmailTemplate,
} from '../../email/custom-templates';
import { localeInput, SUPPORTED_LANGUAGES } from '../../instances/locales';
import { getUser } from '../../users/users';
import {
  deleteLocalization,
  getLocalization,
  listLocalizations,
  listRevisions,
  localizationView,
  restoreRevision,
  saveLocalization,
  updateLocalization,
} from '../../localization/overrides';

/** Dashboard endpoints of email templates and localizations (server/api/dashboard). */

const instanceOf = (auth: ConsoleAuth) => {
  const i = routeInstance(auth);
  return { id: i.id, name: i.row.name, settings: i.settings };
};

// ── Schemas ──────────────────────────────────────────────────────────────────────────

const variableSchema = z.object({
  name: z.string(),
  type: z.enum(['string', 'number', 'url']),
  required: z.boolean(),
  description: z.string(),
  sample: z.union([z.string(), z.number()]),
});

const contentSchema = z.union([
  z.object({ subject: z.string(), mjml: z.string(), text: z.string().nullable() }),
  z.object({ body: z.string() }),
  z.object({ text: z.string() }),
]);

const localizationSchema = z
  .object({
    object: z.literal('localization'),
    id: z.string(),
    locale: z.string(),
    resource: z.string(),
    kind: z.enum(['email', 'sms', 'hosted']),
    content: contentSchema,
    enabled: z.boolean(),
    updated_by: z.string().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Localization' });

const revisionSchema = z.object({
  object: z.literal('localization_revision'),
  id: z.string(),
  locale: z.string(),
  resource: z.string(),
  content: contentSchema,
  enabled: z.boolean(),
  actor: z.string(),
  created_at: z.number().int(),
});

const partsSchema = z.object({ locale: z.string(), subject: z.string(), mjml: z.string(), text: z.string().nullable() });

const templateSummarySchema = z.object({
  object: z.literal('email_template'),
  name: z.string(),
  description: z.string(),
  variables: z.array(variableSchema),
  built_in_locales: z.array(z.string()),
  /** built_in: no override; overridden: an enabled override; disabled: overrides, none enabled. */
  state: z.enum(['built_in', 'overridden', 'disabled']),
  overrides: z.array(localizationSchema),
});

const templateDetailSchema = templateSummarySchema
  .extend({
    locale: z.string(),
    base: partsSchema,
    override: localizationSchema.nullable(),
    effective: partsSchema.extend({ source: z.enum(['override', 'built_in']) }),
  })
  .meta({ id: 'EmailTemplate' });

const previewSchema = z.object({
  object: z.literal('email_preview'),
  template: z.string(),
  locale: z.string(),
  subject: z.string(),
  html: z.string(),
  text: z.string(),
});

const catalogSchema = z.object({
  built_in_locales: z.array(z.string()),
  supported_languages: z.array(z.string()),
  resources: z.array(
    z.object({
      key: z.string(),
      kind: z.enum(['email', 'sms', 'hosted']),
      description: z.string(),
      variables: z.array(variableSchema),
      base: z.record(z.string(), contentSchema),
    }),
  ),
});

const localeQuery = z.strictObject({ locale: localeInput.optional() });
const dataValues = z.record(z.string().max(64), z.union([z.string().max(4096), z.number(), z.null()]));

// A test goes to the operator's own address: any recipient field is refused by name.
const noRecipient = z
  .unknown()
  .refine((v) => v === undefined, {
    message: 'the recipient cannot be chosen: a test email goes to your own verified address',
    params: { reason: 'recipient_not_allowed' },
  })
  .optional();

const draftFields = {
  locale: localeInput.optional(),
  subject: z.string().max(10_000).optional(),
  mjml: z.string().max(200_000).optional(),
  text: z.string().max(40_000).nullable().optional(),
  data: dataValues.optional(),
};
const previewBody = z.strictObject(draftFields);
const testSendBody = z.strictObject({
  ...draftFields,
  to: noRecipient,
  cc: noRecipient,
  bcc: noRecipient,
  recipient: noRecipient,
  recipients: noRecipient,
  email_address: noRecipient,
});
const putTemplateBody = z.strictObject({
  locale: localeInput.optional(),
  subject: z.string().max(10_000),
  mjml: z.string().max(200_000),
  text: z.string().max(40_000).nullable().optional(),
  enabled: z.boolean().optional(),
});

const RESOURCE_RE = /^(email|sms|hosted)\.[A-Za-z0-9_.-]{1,200}$/;
const resourceInput = z
  .string()
  .regex(RESOURCE_RE, 'must be a resource key such as email.verification_code, sms.verification_code or hosted.<message key>');

const createLocalizationBody = z.strictObject({
  locale: localeInput,
  resource: resourceInput,
  content: z.record(z.string(), z.unknown()),
  enabled: z.boolean().optional(),
});
const patchLocalizationBody = z.strictObject({ content: z.record(z.string(), z.unknown()).optional(), enabled: z.boolean().optional() });
const listLocalizationsQuery = z.strictObject({
  locale: localeInput.optional(),
  kind: z.enum(['email', 'sms', 'hosted']).optional(),
  resource: resourceInput.optional(),
});
const revisionsQuery = z.strictObject({ ...pageQuery, locale: localeInput.optional() });

/** The locale a template route acts on: the one given, else the instance's default. */
const localeOr = (auth: ConsoleAuth, locale: string | undefined) => locale ?? routeInstance(auth).settings.default_locale;

export const emailTemplates = {
  // ── Email templates ──────────────────────────────────────────────────────────────────
  list: endpoint<ConsoleAuth>({
    summary: 'Every email template with its variable schema, state (built_in, overridden, disabled) and overrides per locale',
    response: lightListSchema(templateSummarySchema),
    handle: ({ deps, auth }) => listEmailTemplates(deps, routeInstance(auth).id),
  }),
  get: endpoint<ConsoleAuth, never, z.output<typeof localeQuery>, 'template'>({
    summary: 'One email template in a locale (default: the instance’s): its base copy, override, and the copy readers get',
    query: localeQuery,
    response: templateDetailSchema,
    handle: ({ deps, auth, params, query }) => {
      const i = routeInstance(auth);
      return getEmailTemplate(deps, i.id, i.settings, templateName(params.template), localeOr(auth, query.locale));
    },
  }),
  put: endpoint<ConsoleAuth, z.output<typeof putTemplateBody>, never, 'template'>({
    summary:
      'Override an email template in a locale (default: the instance’s); validated as the mailer compiles it (422 lists each problem with its part, line and column); the saved version joins the revision history; audited',
    audit: { action: 'email_template.updated', target: 'template' },
    body: putTemplateBody,
    response: templateDetailSchema,
    handle: async ({ deps, auth, actor, params, body }) => {
      const name = templateName(params.template);
      const i = routeInstance(auth);
      const locale = localeOr(auth, body.locale);
      await saveEmailTemplate(deps, i.id, name, { ...body, locale }, auditContextOf(actor));
      return getEmailTemplate(deps, i.id, i.settings, name, locale);
    },
  }),
  delete: endpoint<ConsoleAuth, never, z.output<typeof localeQuery>, 'template'>({
    summary: 'Drop the override of a template in a locale (default: the instance’s): the built-in copy applies again; audited',
    audit: { action: 'email_template.deleted', target: 'template' },
    query: localeQuery,
    response: templateDetailSchema,
    handle: async ({ deps, auth, actor, params, query }) => {
      const name = templateName(params.template);
      const i = routeInstance(auth);
      const locale = localeOr(auth, query.locale);
      await deleteEmailTemplateOverride(deps, i.id, name, locale, auditContextOf(actor));
      return getEmailTemplate(deps, i.id, i.settings, name, locale);
    },
  }),
  preview: endpoint<ConsoleAuth, z.output<typeof previewBody>, never, 'template'>({
    summary:
      'Render an unsaved draft (or, without one, the current template) to subject, HTML and text with sample or given values; sends and writes nothing',
    audit: { unaudited: 'a read sent as POST: compiles a draft, stores and sends nothing' },
    body: previewBody,
    response: previewSchema,
    handle: ({ deps, auth, params, body }) =>
      previewEmailTemplate(deps, instanceOf(auth), templateName(params.template), { ...body, locale: localeOr(auth, body.locale) }),
  }),
  testSend: endpoint<ConsoleAuth, z.output<typeof testSendBody>, never, 'template'>({
    summary:
      'Send a draft (or the current template) to your own verified address — the recipient cannot be chosen; 5 a minute per operator; recorded as an email (email.created)',
    audit: { action: 'email_template.test_sent', target: 'template' },
    body: testSendBody,
    response: emailSchema,
    status: 201,
    handle: async ({ deps, auth, params, body }) => {
      const { to: _to, cc: _cc, bcc: _bcc, recipient: _r, recipients: _rs, email_address: _e, ...draft } = body;
      return testSendEmailTemplate(deps, {
        instance: instanceOf(auth),
        operator: await getUser(deps, auth.platform.id, auth.operatorId!),
        name: templateName(params.template),
        input: { ...draft, locale: localeOr(auth, draft.locale) },
      });
    },
  }),
  listRevisions: endpoint<ConsoleAuth, never, z.output<typeof revisionsQuery>, 'template'>({
    summary: 'Saved versions of a template’s override in a locale (default: the instance’s), newest first',
    query: revisionsQuery,
    response: cursorPageSchema(revisionSchema),
    handle: ({ deps, auth, params, query }) =>
      listRevisions(deps, routeInstance(auth).id, {
        ...query,
        resource: `email.${templateName(params.template)}`,
        locale: localeOr(auth, query.locale),
      }),
  }),
  restoreRevision: endpoint<ConsoleAuth, never, never, 'revisionId' | 'template'>({
    summary: 'Save a revision as the template’s override in its locale again (validated again); audited',
    audit: { action: 'email_template.restored', target: 'template' },
    response: templateDetailSchema,
    handle: async ({ deps, auth, actor, params }) => {
      const name = templateName(params.template);
      const i = routeInstance(auth);
      const restored = await restoreRevision(deps, i.id, params.revisionId, auditContextOf(actor), { resource: `email.${name}` });
      return getEmailTemplate(deps, i.id, i.settings, name, restored.locale);
    },
  }),
};

export const localizationTexts = {
  // ── Localizations ────────────────────────────────────────────────────────────────────
  list: endpoint<ConsoleAuth, never, z.output<typeof listLocalizationsQuery>>({
    summary:
      'Localization overrides (filter by locale, kind, resource) and the resource catalog: every email, SMS and hosted-page key with its base copy per built-in language and its variables',
    query: listLocalizationsQuery,
    response: lightListSchema(localizationSchema).extend({ catalog: catalogSchema }),
    handle: async ({ deps, auth, query }) => ({
      object: 'list' as const,
      data: await listLocalizations(deps, routeInstance(auth).id, query),
      has_more: false,
      catalog: { built_in_locales: catalogLocales(), supported_languages: [...SUPPORTED_LANGUAGES], resources: resourceCatalog() },
    }),
  }),
  create: endpoint<ConsoleAuth, z.output<typeof createLocalizationBody>>({
    summary:
      'Create or replace the override of a resource in a locale; content validated like the base template (email: subject, mjml, text; sms: body; hosted: text); audited',
    audit: { action: 'localization.created' },
    body: createLocalizationBody,
    response: localizationSchema,
    handle: async ({ deps, auth, actor, body }) =>
      (await saveLocalization(deps, routeInstance(auth).id, body, auditContextOf(actor))).localization,
  }),
  update: endpoint<ConsoleAuth, z.output<typeof patchLocalizationBody>, never, 'localizationId'>({
    summary: 'Edit an override’s content or enabled flag; audited',
    audit: { action: 'localization.updated', target: 'localizationId' },
    body: patchLocalizationBody,
    response: localizationSchema,
    handle: ({ deps, auth, actor, params, body }) => {
      if (body.content === undefined && body.enabled === undefined)
        throw validationError('body', 'empty', 'Give content, enabled or both.');
      return updateLocalization(deps, routeInstance(auth).id, params.localizationId, body, auditContextOf(actor));
    },
  }),
  delete: endpoint<ConsoleAuth, never, never, 'localizationId'>({
    summary: 'Remove an override: the base copy renders again; audited',
    audit: { action: 'localization.deleted', target: 'localizationId' },
    response: z.object({ object: z.literal('localization'), id: z.string(), deleted: z.literal(true) }),
    handle: async ({ deps, auth, actor, params }) => {
      const instanceId = routeInstance(auth).id;
      await getLocalization(deps, instanceId, params.localizationId);
      const row = await deleteLocalization(deps, instanceId, params.localizationId, auditContextOf(actor));
      return { object: 'localization' as const, id: localizationView(row).id, deleted: true as const };
    },
  }),
};
