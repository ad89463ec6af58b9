import { customType, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis } from './columns';

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: millis('created_at').notNull(),
});

export const instances = pgTable(
  'instances',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    fapiUrl: text('fapi_url').notNull(),
    publishableKey: text('publishable_key').notNull(),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    /** `platform`: the built-in instance whose users are the console's operators (one per deployment). */
    kind: text('kind', { enum: ['customer', 'platform'] })
      .notNull()
      .default('customer'),
    /** The host the instance's FAPI, hosted pages and OIDC answer on at the root (fapi_url `https://<custom_domain>`); null: `{PUBLIC_URL}/fapi/<id>`. */
    customDomain: text('custom_domain'),
    createdAt: millis('created_at').notNull(),
    /** Set when an operator deleted the instance: every surface answers 404 for it from then on. */
    deletedAt: millis('deleted_at'),
  },
  (t) => [
    uniqueIndex('instances_publishable_key_uq').on(t.publishableKey),
    index('instances_account_idx').on(t.accountId),
    uniqueIndex('instances_custom_domain_uq').on(t.customDomain),
  ],
);

/** The owning instance's id; `cascade`: the row goes with the instance. */
export const instanceRef = (onDelete?: 'cascade') =>
  text('instance_id')
    .notNull()
    .references(() => instances.id, onDelete ? { onDelete } : {});

export const secretKeys = pgTable(
  'secret_keys',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef(),
    name: text('name').notNull(),
    /** SHA-256 of the secret, hex. The secret itself is never stored. */
    digest: text('digest').notNull(),
    /** First characters of the secret, to recognise a key in lists. */
    hint: text('hint').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    createdAt: millis('created_at').notNull(),
    lastUsedAt: millis('last_used_at'),
    revokedAt: millis('revoked_at'),
  },
  (t) => [uniqueIndex('secret_keys_digest_uq').on(t.digest), index('secret_keys_instance_idx').on(t.instanceId)],
);

/** Binary column (uploaded images). */
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/** An instance's logo (branding): the image itself, checked and at most 512 KiB, served by the FAPI with caching. */
export const instanceLogos = pgTable('instance_logos', {
  instanceId: text('instance_id')
    .primaryKey()
    .references(() => instances.id, { onDelete: 'cascade' }),
  contentType: text('content_type').notNull(),
  bytes: bytea('bytes').notNull(),
  /** The first 16 hex digits of the image's SHA-256: the URL changes with the image, so it caches for ever. */
  version: text('version').notNull(),
  updatedAt: millis('updated_at').notNull(),
});
