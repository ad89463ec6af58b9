import { boolean, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';

/**
 * The content of an override, by the kind of its resource: an email's parts, an SMS
 * body, or one hosted-page message.
 */
export type LocalizationContent = { subject: string; mjml: string; text: string | null } | { body: string } | { text: string };

/**
 * Localization overrides: per instance, locale and resource key (`email.<template>`,
 * `sms.<template>`, `hosted.<message key>`). An email template override is the
 * localization of `email.<template>` in a locale: one storage, one validator.
 */
export const localizations = pgTable(
  'localizations',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    locale: text('locale').notNull(),
    resource: text('resource').notNull(),
    content: jsonb('content').$type<LocalizationContent>().notNull(),
    /** A disabled override is kept but the base copy renders. */
    enabled: boolean('enabled').notNull().default(true),
    updatedBy: text('updated_by'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('localizations_uq').on(t.instanceId, t.resource, t.locale),
    index('localizations_instance_idx').on(t.instanceId, t.locale),
  ],
);

/**
 * Every saved version of an override, kept after the override changes or is deleted, so
 * any of them can be restored.
 */
export const localizationRevisions = pgTable(
  'localization_revisions',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    locale: text('locale').notNull(),
    resource: text('resource').notNull(),
    content: jsonb('content').$type<LocalizationContent>().notNull(),
    enabled: boolean('enabled').notNull(),
    /** Who saved it (`operator:<user_id>`). */
    actor: text('actor').notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [index('localization_revisions_resource_idx').on(t.instanceId, t.resource, t.locale, t.id)],
);
