import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';
import { instanceRef } from './instances';

/**
 * A named JWT template (`jtmp_`), Clerk's `session.getToken({ template })`: claims (the
 * session token template's JSON with `{{user.…}}` shortcodes, server/instances/claims-template.ts),
 * a lifetime and an allowed clock skew. Minted tokens are signed with the instance's session
 * signing key (server/sessions/jwt-templates.ts).
 */
export const jwtTemplates = pgTable(
  'jwt_templates',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    name: text('name').notNull(),
    claims: jsonb('claims').$type<Record<string, unknown>>().notNull(),
    /** Seconds a minted token lives. */
    lifetime: integer('lifetime').notNull(),
    /** Seconds `nbf` is set before `iat`. */
    allowedClockSkew: integer('allowed_clock_skew').notNull(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('jwt_templates_instance_name_uq').on(t.instanceId, t.name),
    index('jwt_templates_instance_idx').on(t.instanceId, t.id),
  ],
);
export type JwtTemplateRow = typeof jwtTemplates.$inferSelect;
