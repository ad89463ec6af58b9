import type { SessionActivity } from '@/lib/session-activity';

/** Shapes of the FAPI answers the hosted pages read (server/auth, server/sessions, server/users). */

export type Environment = {
  object: 'environment';
  instance: { id: string; name: string; environment: 'test' | 'live'; publishable_key: string; fapi_url: string; is_console: boolean };
  user_settings: {
    sign_up: { mode: 'public' | 'restricted' | 'waitlist'; open: boolean; required_fields: string[]; optional_fields: string[] };
    identifiers: string[];
    first_factors: string[];
    second_factors: string[];
    mfa_required: boolean;
    /** Enabled social providers: one button each. */
    social?: { strategy: string; name: string; display_name: string; kind: string }[];
    /** What users may do to their own account on the hosted profile. */
    actions: { delete_self: boolean };
    password_settings?: { min_length: number; require_uppercase: boolean; require_lowercase: boolean; require_digit: boolean; require_symbol: boolean };
  };
  /** What the hosted pages show of the application (instance branding). */
  branding?: { application_name: string; logo_url: string | null; primary_color: string | null; support_email: string | null };
  redirect: { url: string; allowed: boolean } | null;
  /** The hosted pages' language and the instance's overrides of their copy (dotted key → text). */
  localization: { locale: 'en' | 'fr' | 'de'; overrides: Record<string, string> };
};

export type Session = {
  object: 'session';
  id: string;
  user_id: string;
  status: 'active' | 'pending' | 'ended' | 'revoked' | 'removed' | 'expired' | 'abandoned';
  impersonated_by: string | null;
  last_active_at: number;
  expire_at: number;
  abandon_at: number;
  created_at: number;
  latest_activity: SessionActivity | null;
};

export type ClientSession = Session & { tasks: { key: 'setup_mfa' }[] };

export type Client = {
  object: 'client';
  id: string | null;
  sessions: ClientSession[];
  last_active_session_id: string | null;
  session: ClientSession | null;
};

export type Verification = { status: 'unverified' | 'verified' | 'failed' | 'expired'; strategy: string; attempts: number; expire_at: number | null } | null;

export type SignInAttempt = {
  object: 'sign_in_attempt';
  id: string;
  status: 'needs_first_factor' | 'needs_second_factor' | 'needs_new_password' | 'complete' | 'abandoned';
  identifier: string | null;
  supported_first_factors: { strategy: string; safe_identifier?: string | null }[];
  first_factor_verification: Verification;
  created_session_id: string | null;
};

export type SignUpAttempt = {
  object: 'sign_up_attempt';
  id: string;
  status: 'missing_requirements' | 'complete' | 'abandoned';
  email_address: string;
  created_session_id: string | null;
};

export type Envelope<T> = { response: T; client: Client };

export type PhoneNumber = { id: string; phone_number: string; verification: { status: string; strategy: string | null } | null };

export type EmailAddress = { id: string; email_address: string; verification: { status: string; strategy: string | null } | null };

export type Me = {
  object: 'user';
  id: string;
  first_name: string | null;
  last_name: string | null;
  username: string | null;
  primary_email_address_id: string | null;
  email_addresses: EmailAddress[];
  primary_phone_number_id?: string | null;
  phone_numbers?: PhoneNumber[];
  password_enabled: boolean;
  totp_enabled: boolean;
  backup_code_enabled: boolean;
  /** The uploaded profile image ('' without one). */
  image_url?: string;
  has_image?: boolean;
  /** In an impersonation session (GET /v1/me): who impersonates, named when an operator. */
  impersonator?: { ref: string; name: string | null; email: string | null } | null;
  created_at: number;
};

export type MeSession = Session & { current: boolean; this_client: boolean };

export type ApiToken = {
  object: 'api_token';
  id: string;
  name: string;
  scopes: string[];
  status: 'active' | 'expired' | 'revoked';
  expires_at: number | null;
  last_used_at: number | null;
  created_at: number;
};

export type List<T> = { object: 'list'; data: T[]; has_more: boolean };
