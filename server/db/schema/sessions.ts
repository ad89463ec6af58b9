import { boolean, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { users } from './users';

/** What an LTI launch tells about where the learner came from (kept on the session, shown on BAPI and in the JWT). */
export interface LtiSessionContext {
  platform_id: string;
  issuer: string;
  deployment_id: string;
  context: { id: string; title: string | null; label: string | null } | null;
  resource_link: { id: string; title: string | null };
  roles: string[];
}

/**
 * A verification of a live session in progress (Clerk's reverification, server/auth/reverification.ts):
 * the level asked, how far it got, when it started, and the strategies prepared.
 */
export interface SessionReverification {
  level: 'first_factor' | 'second_factor' | 'multi_factor';
  status: 'needs_first_factor' | 'needs_second_factor' | 'complete';
  started_at: number;
  first_factor_strategy: string | null;
  second_factor_strategy: string | null;
}

export const SESSION_STATUSES = ['pending', 'active', 'ended', 'revoked', 'removed', 'expired', 'abandoned'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** A browser or app: holds sessions; its token travels as a cookie (web) or a bearer header (native). */
export const clients = pgTable(
  'clients',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    tokenDigest: text('token_digest').notNull(),
    lastActiveSessionId: text('last_active_session_id'),
    ...timestamps(),
    revokedAt: millis('revoked_at'),
  },
  (t) => [uniqueIndex('clients_token_uq').on(t.tokenDigest)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id'),
    status: text('status', { enum: SESSION_STATUSES }).notNull(),
    /** RFC 8693 actor of an impersonation session, e.g. `{ sub }`. */
    actor: jsonb('actor').$type<{ sub: string } & Record<string, unknown>>(),
    lastActiveOrganizationId: text('last_active_organization_id'),
    /** The LTI launch that started the session (server/lti): context, roles and resource link; null otherwise. */
    lti: jsonb('lti').$type<LtiSessionContext>(),
    /** The client's latest activity (set at creation and touch); null for headless sessions. */
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    browserName: text('browser_name'),
    browserVersion: text('browser_version'),
    deviceType: text('device_type', { enum: ['desktop', 'mobile', 'tablet', 'unknown'] }),
    osName: text('os_name'),
    isMobile: boolean('is_mobile'),
    lastActiveAt: millis('last_active_at').notNull(),
    expireAt: millis('expire_at').notNull(),
    abandonAt: millis('abandon_at').notNull(),
    /**
     * When the user last proved a first factor on this session: null is its sign-in (created_at);
     * a reverification moves it. Clerk's `fva` claim and `factor_verification_age` read it.
     */
    firstFactorVerifiedAt: millis('first_factor_verified_at'),
    /** How the session was signed into (completeSignIn's way: password, email_code, passkey, oauth_google, …); null before it was recorded. */
    signInWay: text('sign_in_way'),
    /** When a second factor (TOTP or a backup code) was last proved on it: at sign-in or reverification; null: never. */
    secondFactorVerifiedAt: millis('second_factor_verified_at'),
    /** The reverification in progress, if any. */
    reverification: jsonb('reverification').$type<SessionReverification>(),
    ...timestamps(),
  },
  (t) => [
    index('sessions_instance_idx').on(t.instanceId, t.id),
    index('sessions_user_idx').on(t.userId, t.id),
    index('sessions_client_idx').on(t.clientId),
    index('sessions_due_idx').on(t.status, t.expireAt),
    index('sessions_abandon_due_idx').on(t.status, t.abandonAt),
  ],
);

/**
 * Refresh tokens rotate on every use. A rotated token presented again after the grace
 * window revokes its session (reuse detection).
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    digest: text('digest').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    createdAt: millis('created_at').notNull(),
    rotatedAt: millis('rotated_at'),
  },
  (t) => [index('refresh_tokens_session_idx').on(t.sessionId)],
);

/** One-time tickets: actor tokens (impersonation) and sign-in tokens. Stored as digests. */
export const tickets = pgTable(
  'tickets',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    kind: text('kind', { enum: ['actor_token', 'sign_in_token'] }).notNull(),
    digest: text('digest').notNull(),
    userId: text('user_id').notNull(),
    actor: jsonb('actor').$type<{ sub: string } & Record<string, unknown>>(),
    status: text('status', { enum: ['pending', 'accepted', 'revoked'] }).notNull(),
    expiresAt: millis('expires_at').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('tickets_digest_uq').on(t.digest), index('tickets_instance_idx').on(t.instanceId, t.id)],
);
