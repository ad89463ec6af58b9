import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { instanceRef } from './instances';
import { users } from './users';

/**
 * What an authorization carries from the authorize request to its tokens: the session's `acr`
 * and `amr` (OIDC Core §2), its id (`sid`), and the claims the `claims` parameter asked for
 * by destination (OIDC Core §5.5), with the essential ones.
 */
export interface OAuthAuthorizationContext {
  acr: string;
  amr: string[];
  sid: string | null;
  claims: { userinfo: string[]; id_token: string[] } | null;
}

/**
 * An OAuth application (`oa_`) of an instance: a relying party of the instance's OpenID
 * Provider. Its id is its public `client_id`; a confidential app's secret is kept only as
 * its SHA-256 digest (shown once at creation and rotation).
 */
export const oauthApplications = pgTable(
  'oauth_applications',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    name: text('name').notNull(),
    redirectUris: jsonb('redirect_uris').$type<string[]>().notNull(),
    postLogoutRedirectUris: jsonb('post_logout_redirect_uris').$type<string[]>().notNull(),
    /** A public client (SPA, native app) has no secret and must use PKCE. */
    public: boolean('public').notNull(),
    /** The scopes the app may ask for. */
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    consentScreenEnabled: boolean('consent_screen_enabled').notNull(),
    secretDigest: text('secret_digest'),
    /** The client's public keys (OIDC Core §6.1 signed request objects): a JWKS URL, fetched through the SSRF guard, or the set itself. */
    jwksUri: text('jwks_uri'),
    jwks: jsonb('jwks').$type<{ keys: Record<string, unknown>[] }>(),
    /** Whether the app may use the Device Authorization Grant (RFC 8628): CLIs and TVs, public clients included. */
    deviceFlowEnabled: boolean('device_flow_enabled').notNull().default(false),
    /** OpenID Back-Channel Logout 1.0: where a logout_token is posted when a session the app had ends. */
    backchannelLogoutUri: text('backchannel_logout_uri'),
    backchannelLogoutSessionRequired: boolean('backchannel_logout_session_required').notNull().default(false),
    /** Registered through Dynamic Client Registration (RFC 7591): its registration access token's digest (RFC 7592). */
    registrationTokenDigest: text('registration_token_digest'),
    /** The client metadata it registered with (RFC 7591 §2: client_name, logo_uri, grant_types…), answered again by RFC 7592 reads. */
    registrationMetadata: jsonb('registration_metadata').$type<Record<string, unknown>>(),
    ...timestamps(),
  },
  (t) => [index('oauth_applications_instance_idx').on(t.instanceId, t.id)],
);

/** A user's consent to an app (`ogr_`): the scopes granted, remembered until the user revokes it. */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    applicationId: text('application_id')
      .notNull()
      .references(() => oauthApplications.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('oauth_grants_app_user_uq').on(t.applicationId, t.userId), index('oauth_grants_user_idx').on(t.instanceId, t.userId)],
);

/**
 * What one authorization issued (`oaz_`): the tokens of one code exchange and every refresh
 * after it. Revoking it (code reuse, refresh-token reuse, revocation, a withdrawn consent)
 * makes its refresh tokens useless and its access tokens inactive.
 */
export const oauthAuthorizations = pgTable(
  'oauth_authorizations',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    applicationId: text('application_id')
      .notNull()
      .references(() => oauthApplications.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    /** The sign-in time (ms) the ID tokens of this authorization report as auth_time. */
    authTime: millis('auth_time').notNull(),
    /** How the user signed in and what the request asked for: the ID tokens' acr/amr, the claims parameter's. */
    context: jsonb('context').$type<OAuthAuthorizationContext>(),
    createdAt: millis('created_at').notNull(),
    revokedAt: millis('revoked_at'),
  },
  (t) => [
    index('oauth_authorizations_user_idx').on(t.applicationId, t.userId),
    // Back-channel logout finds the apps a session signed into by the session id (context.sid).
    index('oauth_authorizations_sid_idx').on(sql`(${t.context}->>'sid')`),
  ],
);

/** Authorization codes: single use, short-lived, stored as their SHA-256 digest. */
export const oauthCodes = pgTable('oauth_codes', {
  digest: text('digest').primaryKey(),
  instanceId: text('instance_id').notNull(),
  applicationId: text('application_id')
    .notNull()
    .references(() => oauthApplications.id, { onDelete: 'cascade' }),
  userId: text('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  redirectUri: text('redirect_uri').notNull(),
  scope: text('scope').notNull(),
  nonce: text('nonce'),
  codeChallenge: text('code_challenge'),
  authTime: millis('auth_time').notNull(),
  context: jsonb('context').$type<OAuthAuthorizationContext>(),
  expiresAt: millis('expires_at').notNull(),
  /** Set by the exchange; a second exchange revokes this authorization. */
  authorizationId: text('authorization_id'),
  usedAt: millis('used_at'),
});

/** Refresh tokens (`ort_…`), rotated on every use; a rotated one presented again revokes its authorization. */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    digest: text('digest').primaryKey(),
    authorizationId: text('authorization_id')
      .notNull()
      .references(() => oauthAuthorizations.id, { onDelete: 'cascade' }),
    createdAt: millis('created_at').notNull(),
    expiresAt: millis('expires_at').notNull(),
    rotatedAt: millis('rotated_at'),
  },
  (t) => [index('oauth_refresh_tokens_authorization_idx').on(t.authorizationId)],
);

/** Access tokens revoked before their expiry (RFC 7009), by `jti`; kept until they would have expired. */
export const oauthRevokedTokens = pgTable('oauth_revoked_tokens', {
  jti: text('jti').primaryKey(),
  instanceId: text('instance_id').notNull(),
  expiresAt: millis('expires_at').notNull(),
});

/**
 * A Device Authorization Grant request (RFC 8628): the device_code (kept as its SHA-256 digest)
 * the device polls with, and the short user_code (its digest too) the user enters on the
 * verification page. `status` moves from pending to approved or denied once, and to used
 * when the device collects its tokens.
 */
export const oauthDeviceCodes = pgTable(
  'oauth_device_codes',
  {
    digest: text('digest').primaryKey(),
    instanceId: text('instance_id').notNull(),
    applicationId: text('application_id')
      .notNull()
      .references(() => oauthApplications.id, { onDelete: 'cascade' }),
    userCodeDigest: text('user_code_digest').notNull(),
    scope: text('scope').notNull(),
    status: text('status').$type<'pending' | 'approved' | 'denied' | 'used'>().notNull(),
    /** Seconds the device waits between polls; raised by 5 on each poll that came too soon (slow_down). */
    interval: integer('interval').notNull(),
    lastPolledAt: millis('last_polled_at'),
    /** Set on approval: who approved, when they signed in, how. */
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    authTime: millis('auth_time'),
    context: jsonb('context').$type<OAuthAuthorizationContext>(),
    authorizationId: text('authorization_id'),
    createdAt: millis('created_at').notNull(),
    expiresAt: millis('expires_at').notNull(),
  },
  (t) => [uniqueIndex('oauth_device_codes_user_code_uq').on(t.instanceId, t.userCodeDigest)],
);

/**
 * A back-channel logout to deliver (`obl_`, OpenID Back-Channel Logout 1.0): one per application
 * and ended session, queued in the transaction that ended the session, delivered by the
 * webhook worker with retries (the same outbox pattern as webhook messages).
 */
export const oauthLogoutDeliveries = pgTable(
  'oauth_logout_deliveries',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    applicationId: text('application_id')
      .notNull()
      .references(() => oauthApplications.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    /** The logout token's `sub` (kept without a reference: the user may be deleted before delivery). */
    userId: text('user_id').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: millis('next_attempt_at'),
    lockedUntil: millis('locked_until'),
    lastError: text('last_error'),
    createdAt: millis('created_at').notNull(),
    updatedAt: millis('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('oauth_logout_deliveries_app_session_uq').on(t.applicationId, t.sessionId),
    index('oauth_logout_deliveries_due_idx').on(t.status, t.nextAttemptAt),
  ],
);

/**
 * An initial access token (`oiat_`, RFC 7591 §3): lets its bearer register OAuth applications at
 * `POST /oauth2/register`. Created by an operator, kept as its SHA-256 digest, shown once.
 */
export const oauthInitialAccessTokens = pgTable(
  'oauth_initial_access_tokens',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    name: text('name').notNull(),
    digest: text('digest').notNull(),
    expiresAt: millis('expires_at'),
    /** How many registrations it allows (null: no limit until it expires or is revoked); 1 is single use. */
    maxUses: integer('max_uses'),
    useCount: integer('use_count').notNull().default(0),
    revokedAt: millis('revoked_at'),
    lastUsedAt: millis('last_used_at'),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('oauth_initial_access_tokens_digest_uq').on(t.digest),
    index('oauth_initial_access_tokens_instance_idx').on(t.instanceId, t.id),
  ],
);
