import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis } from './columns';
import { instances } from './instances';

/**
 * The instance's SMS provider (server/sms): the account, the write-only auth token
 * (encrypted with ENCRYPTION_KEY, never shown again), the sender, and the pumping
 * protection's country allow-list. No row, or no credentials: SMS stay in the dev outbox.
 */
export const smsSettings = pgTable('sms_settings', {
  instanceId: text('instance_id')
    .primaryKey()
    .references(() => instances.id, { onDelete: 'cascade' }),
  provider: text('provider').$type<'twilio'>().notNull(),
  accountId: text('account_id'),
  authTokenEncrypted: text('auth_token_encrypted'),
  /** E.164 sender number; or a messaging service (Twilio `MG…`), which picks the sender. */
  fromNumber: text('from_number'),
  messagingServiceId: text('messaging_service_id'),
  /** Null: the provider's own API. */
  apiBaseUrl: text('api_base_url'),
  /** Country calling codes (`1`, `44`) SMS may go to; empty: every country. */
  allowedCountryCodes: jsonb('allowed_country_codes').$type<string[]>().notNull().default([]),
  updatedAt: millis('updated_at').notNull(),
});
