import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';

export const SIGN_IN_STATUSES = ['needs_first_factor', 'needs_second_factor', 'needs_new_password', 'complete', 'abandoned'] as const;
export type SignInStatus = (typeof SIGN_IN_STATUSES)[number];

/**
 * A FAPI sign-in attempt, bound to the client that created it. `user_id` is null when
 * the identifier names nobody: the attempt then behaves like any other and always fails,
 * so callers cannot tell (see server/auth/sign-ins.ts).
 */
export const signInAttempts = pgTable(
  'sign_in_attempts',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    clientId: text('client_id').notNull(),
    identifier: text('identifier').notNull(),
    userId: text('user_id'),
    status: text('status', { enum: SIGN_IN_STATUSES }).notNull(),
    /** The first factor that succeeded (password, email_code, reset_password_email_code). */
    firstFactorStrategy: text('first_factor_strategy'),
    secondFactorStrategy: text('second_factor_strategy'),
    /** Failed second-factor attempts; past the cap the attempt is abandoned. */
    secondFactorFailures: integer('second_factor_failures').notNull().default(0),
    /** Why risk-based MFA asked for a second factor (new_device, new_network, new_country); null when it did not. */
    riskReasons: jsonb('risk_reasons').$type<string[]>(),
    /** Where the step-up email code goes when risk-based MFA asked and the user has no TOTP; else null. */
    stepUpAddress: text('step_up_address'),
    /** The session it created: pending while a second factor is due, then active. */
    sessionId: text('session_id'),
    abandonAt: millis('abandon_at').notNull(),
    ...timestamps(),
  },
  (t) => [index('sign_in_attempts_client_idx').on(t.clientId)],
);

export const SIGN_UP_STATUSES = ['missing_requirements', 'complete', 'abandoned'] as const;
/** A FAPI sign-up attempt: the future user's fields until the email address is verified. */
export const signUpAttempts = pgTable(
  'sign_up_attempts',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    clientId: text('client_id').notNull(),
    /** Null for a phone sign-up: then `phone_number` is the identifier. */
    emailAddress: text('email_address'),
    /** A phone sign-up's number (E.164), verified by an SMS code. */
    phoneNumber: text('phone_number'),
    username: text('username'),
    firstName: text('first_name'),
    lastName: text('last_name'),
    /** argon2id digest of the chosen password, hashed at creation; never the password. */
    passwordDigest: text('password_digest'),
    unsafeMetadata: jsonb('unsafe_metadata').$type<Record<string, unknown>>().notNull().default({}),
    /** The language chosen at sign-up (BCP 47), given to the user it creates. */
    locale: text('locale'),
    status: text('status', { enum: SIGN_UP_STATUSES }).notNull(),
    emailVerifiedAt: millis('email_verified_at'),
    phoneVerifiedAt: millis('phone_verified_at'),
    createdUserId: text('created_user_id'),
    createdSessionId: text('created_session_id'),
    abandonAt: millis('abandon_at').notNull(),
    ...timestamps(),
  },
  (t) => [index('sign_up_attempts_client_idx').on(t.clientId)],
);

export const VERIFICATION_PURPOSES = [
  'sign_up',
  'sign_up_link',
  'sign_in',
  'sign_in_phone',
  'sign_in_link',
  'reset_password',
  'domain_affiliation',
  'second_factor',
  'email_verification',
  'email_verification_link',
  'phone_verification',
  'reauthentication',
] as const;
export type VerificationPurpose = (typeof VERIFICATION_PURPOSES)[number];
export const VERIFICATION_STATUSES = ['pending', 'verified', 'locked', 'superseded'] as const;
/**
 * One-time codes sent by email. Only an HMAC of the code is kept. Every issue is a row,
 * also for addresses that name nobody (nothing is sent then), so the reissue caps per
 * address (1 / 30 s, 5 / hour) count the same either way.
 */
export const verificationCodes = pgTable(
  'verification_codes',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    /** The sign-in or sign-up attempt the code belongs to. */
    attemptId: text('attempt_id').notNull(),
    purpose: text('purpose', { enum: VERIFICATION_PURPOSES }).notNull(),
    /** Lower-cased address the code went (or would have gone) to: the key of the caps. */
    address: text('address').notNull(),
    digest: text('digest').notNull(),
    status: text('status', { enum: VERIFICATION_STATUSES }).notNull(),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    expiresAt: millis('expires_at').notNull(),
    ...timestamps(),
  },
  (t) => [
    index('verification_codes_address_idx').on(t.instanceId, t.address, t.createdAt),
    index('verification_codes_attempt_idx').on(t.attemptId),
  ],
);
