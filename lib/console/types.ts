/** Shapes of the dashboard API's answers the console reads (server/operators/routes.ts). */
export type Role = 'owner' | 'admin' | 'viewer';

export type ConsoleInfo = { object: 'console'; platform_instance_id: string; publishable_key: string; fapi_url: string; signed_in: boolean };

export type EmailAddress = { id: string; email_address: string; verification: { status: string } | null };
export type PhoneNumber = { id: string; phone_number: string; verification: { status: string } | null };

export type User = {
  object: 'user';
  id: string;
  external_id: string | null;
  first_name: string | null;
  last_name: string | null;
  username: string | null;
  primary_email_address_id: string | null;
  primary_phone_number_id: string | null;
  email_addresses: EmailAddress[];
  phone_numbers: PhoneNumber[];
  password_enabled: boolean;
  two_factor_enabled: boolean;
  public_metadata: Record<string, unknown>;
  private_metadata?: Record<string, unknown>;
  unsafe_metadata: Record<string, unknown>;
  banned: boolean;
  locked: boolean;
  locked_until: number | null;
  last_sign_in_at: number | null;
  created_at: number;
  updated_at: number;
};

export type Account = { object: 'account'; id: string; name: string; role: Role; created_at: number };
export type Me = { object: 'operator'; user: User; accounts: Account[] };

export type Member = {
  object: 'account_membership';
  id: string;
  role: Role;
  user_id: string;
  email_address: string | null;
  first_name: string | null;
  last_name: string | null;
  created_at: number;
};

export type Invitation = {
  object: 'account_invitation';
  id: string;
  email_address: string;
  role: Role;
  status: 'pending' | 'accepted' | 'revoked';
  expires_at: number;
  created_at: number;
};

export type PasswordPolicy = { min_length: number; require_uppercase: boolean; require_lowercase: boolean; require_digit: boolean; require_symbol: boolean };

export type SignInMethods = { password: boolean; email_code: boolean; username: boolean; phone_code: boolean; email_link: boolean; email_link_same_browser: boolean };

export type Settings = {
  session_lifetime_seconds: number;
  session_inactivity_timeout_seconds: number | null;
  session_token_lifetime_seconds: number;
  mfa_required: boolean;
  /** Users may delete their own account from the hosted profile. */
  delete_self_enabled: boolean;
  password_policy: PasswordPolicy;
  sign_in_methods: SignInMethods;
  branding?: { application_name?: string | null; primary_color: string | null; support_email: string | null };
  organizations_enabled: boolean;
  organization_creation_enabled: boolean;
  organization_default_role: string;
  organization_creator_role: string;
  organization_max_allowed_memberships: number;
  /** Extra session JWT claims with {{user.…}} shortcodes. */
  session_token_claims?: Record<string, unknown>;
  allowed_origins: string[];
  redirect_urls: string[];
  sign_up_mode: 'public' | 'restricted' | 'waitlist';
  allowlist: string[];
  username_required: boolean;
  name_required: boolean;
  password_required: boolean;
  /** Emails, SMS and hosted pages in this language when neither the user nor the browser names a supported one. */
  default_locale: string;
  /** The instance's custom domain (its fapi_url is then `https://<custom_domain>`), or null. */
  custom_domain?: string | null;
};

export type Instance = {
  object: 'instance';
  id: string;
  account_id: string;
  name: string;
  environment: 'test' | 'live';
  publishable_key: string;
  fapi_url: string;
  custom_domain?: string | null;
  settings: Settings;
  created_at: number;
};

export type SecretKey = { id: string; name: string; hint: string; scopes: string[]; created_at: number; last_used_at: number | null; revoked_at: number | null };
export type CreatedKey = { id: string; name: string; secret: string; scopes: string[]; created_at: number };

/** A user's session: the same object the hosted pages read. */
export type { Session } from '@/lib/fapi/types';

export type AuditLog = {
  object: 'audit_log';
  id: string;
  actor: string;
  action: string;
  target: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: number;
};

export type Email = { object: 'email'; id: string; to: string; from: string; template: string; subject: string; html: string; text: string; status: string; created_at: number };
export type Sms = { object: 'sms'; id: string; to: string; from: string | null; template: string; body: string; status: string; created_at: number };

export type ActorToken = { id: string; token: string; expires_at?: number; [key: string]: unknown };

export type LightList<T> = { object: 'list'; data: T[]; has_more: boolean };
export type CursorPage<T> = { data: T[]; has_more: boolean; next_cursor: string | null };
