import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { users } from './users';

/**
 * A user's TOTP factor (at most one). The secret is encrypted with ENCRYPTION_KEY; it is
 * `pending` from enrollment until a first code confirms it, then `verified`.
 * `last_used_step` is the newest 30-second step a code was accepted for: a code is never
 * accepted twice (replay), nor one older than the last accepted.
 */
export const totpFactors = pgTable('totp_factors', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  instanceId: text('instance_id').notNull(),
  secretEncrypted: text('secret_encrypted').notNull(),
  status: text('status', { enum: ['pending', 'verified'] }).notNull(),
  lastUsedStep: integer('last_used_step'),
  ...timestamps(),
  verifiedAt: millis('verified_at'),
});

/** Single-use backup codes, stored only as keyed digests (HMAC under ENCRYPTION_KEY). */
export const backupCodes = pgTable(
  'backup_codes',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    digest: text('digest').notNull(),
    usedAt: millis('used_at'),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.digest] }), index('backup_codes_user_idx').on(t.userId)],
);
