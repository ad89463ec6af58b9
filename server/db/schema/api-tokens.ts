import { index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis } from './columns';
import { users } from './users';

/**
 * Personal access tokens: a signed-in user mints them for their own me-surface. The
 * secret (`uat_…`) is shown once and stored only as its SHA-256; the id is `pat_…`.
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    digest: text('digest').notNull(),
    /** The session that minted it. */
    sessionId: text('session_id'),
    expiresAt: millis('expires_at'),
    lastUsedAt: millis('last_used_at'),
    revokedAt: millis('revoked_at'),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [uniqueIndex('api_tokens_digest_uq').on(t.digest), index('api_tokens_user_idx').on(t.userId, t.id)],
);
