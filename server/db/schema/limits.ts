import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { instanceRef, instances } from './instances';

/** An instance's tightened rate-limit budgets (budget name → hits per window); a missing budget is at its default. */
export const rateLimitPolicies = pgTable('rate_limit_policies', {
  instanceId: text('instance_id')
    .primaryKey()
    .references(() => instances.id, { onDelete: 'cascade' }),
  budgets: jsonb('budgets').$type<Record<string, number>>().notNull(),
  updatedAt: millis('updated_at').notNull(),
});

export const NETWORK_ACL_ACTIONS = ['allow', 'deny'] as const;
export type NetworkAclAction = (typeof NETWORK_ACL_ACTIONS)[number];

/** An IP allow or deny rule of an instance (`acl_`), applied to the surfaces it names. */
export const networkAcls = pgTable(
  'network_acls',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    action: text('action', { enum: NETWORK_ACL_ACTIONS }).notNull(),
    /** Canonical CIDR (host bits cleared), IPv4 or IPv6. */
    cidr: text('cidr').notNull(),
    surfaces: jsonb('surfaces').$type<string[]>().notNull(),
    description: text('description').notNull().default(''),
    ...timestamps(),
  },
  (t) => [index('network_acls_instance_idx').on(t.instanceId, t.id)],
);
