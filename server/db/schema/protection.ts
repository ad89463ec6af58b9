import { index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis } from './columns';
import { users } from './users';

/**
 * One failed first- or second-factor attempt against a lockout subject: `user:<id>` for an
 * identifier that names a user, `identifier:<lower-cased identifier>` for one that names
 * nobody (so an unknown account locks exactly like a real one). Rows older than the
 * lockout window are pruned as new ones arrive; a lockout or a completed sign-in clears them.
 */
export const signInFailures = pgTable(
  'sign_in_failures',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    subject: text('subject').notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [index('sign_in_failures_subject_idx').on(t.instanceId, t.subject, t.createdAt)],
);

/** Lockouts of identifiers that name nobody (a user's lockout lives on the user row). */
export const identifierLockouts = pgTable(
  'identifier_lockouts',
  {
    instanceId: text('instance_id').notNull(),
    subject: text('subject').notNull(),
    lockedUntil: millis('locked_until').notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.subject] })],
);

export const KNOWN_DEVICE_KINDS = ['client', 'network', 'country'] as const;
export type KnownDeviceKind = (typeof KNOWN_DEVICE_KINDS)[number];

/**
 * What a user has completed a sign-in from (risk-based MFA): a client (the `__client`
 * cookie or native token), a network (/24 of IPv4, /48 of IPv6) or a country (GeoIP).
 */
export const knownDevices = pgTable(
  'known_devices',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: KNOWN_DEVICE_KINDS }).notNull(),
    value: text('value').notNull(),
    firstSeenAt: millis('first_seen_at').notNull(),
    lastSeenAt: millis('last_seen_at').notNull(),
  },
  (t) => [uniqueIndex('known_devices_uq').on(t.userId, t.kind, t.value)],
);
