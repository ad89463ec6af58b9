import { CHALLENGE_TTL_MS } from '../../../passkeys/challenges';

/**
 * Latchkey's FAPI resources in the JSON shapes clerk-js parses (its resources' `fromJSON`):
 * plain functions from one JSON value to another, no database. Field names that are the same
 * on both sides pass through; what Clerk has and Latchkey lacks gets Clerk's empty value.
 */
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v.filter(isObject) as Json[]) : []);

const identification = (kind: 'email_address' | 'phone_number', e: Json) => ({
  ...e,
  object: kind,
  verification: isObject(e.verification) ? { attempts: null, expire_at: null, ...e.verification } : null,
  linked_to: [],
  reserved: false,
  matches_sso_connection: false,
});

/** A user as `GET /v1/me` (or the BAPI) answers it → Clerk's user. */
function clerkUser(u: Json) {
  return {
    ...u,
    object: 'user',
    email_addresses: arr(u.email_addresses).map((e) => identification('email_address', e)),
    phone_numbers: arr(u.phone_numbers).map((p) => identification('phone_number', p)),
    primary_web3_wallet_id: null,
    web3_wallets: [],
    external_accounts: [],
    enterprise_accounts: [],
    passkeys: arr(u.passkeys).map(clerkPasskey),
    saml_accounts: [],
    organization_memberships: arr(u.organization_memberships).map(clerkMembership),
    profile_image_id: null,
    image_url: u.image_url || '',
    has_image: Boolean(u.has_image),
    totp_enabled: Boolean(u.totp_enabled ?? u.two_factor_enabled),
    backup_code_enabled: Boolean(u.backup_code_enabled),
    two_factor_enabled: Boolean(u.two_factor_enabled),
    create_organization_enabled: u.create_organization_enabled ?? true,
    create_organizations_limit: null,
    delete_self_enabled: u.delete_self_enabled ?? true,
    legal_accepted_at: null,
  };
}

/** A registered passkey → Clerk's: verified by its registration (clerk-js reads only its name and dates). */
const clerkPasskey = (p: Json) => ({
  object: 'passkey',
  id: p.id,
  name: p.name ?? null,
  last_used_at: p.last_used_at ?? null,
  verification: {
    object: 'verification',
    status: 'verified',
    strategy: 'passkey',
    attempts: null,
    expire_at: null,
    nonce: null,
    message: null,
    error: null,
  },
  created_at: p.created_at,
  updated_at: p.updated_at,
});

/**
 * A passkey registration just prepared → Clerk's unverified passkey: its verification's
 * `nonce` holds the creation options (JSON), which clerk-js hands to the browser before
 * `attempt_verification`. The registration is the session's (one at a time), so its id names
 * no row.
 */
const clerkPendingPasskey = (r: Json) => ({
  object: 'passkey',
  id: PENDING_PASSKEY_ID,
  name: null,
  last_used_at: null,
  verification: {
    object: 'verification',
    status: 'unverified',
    strategy: 'passkey',
    attempts: null,
    expire_at: r.expire_at ?? null,
    nonce: JSON.stringify(r.options),
    message: null,
    error: null,
  },
  // Issued a challenge's lifetime before it expires.
  created_at: Number(r.expire_at) - CHALLENGE_TTL_MS,
  updated_at: Number(r.expire_at) - CHALLENGE_TTL_MS,
});
const PENDING_PASSKEY_ID = 'passkey_registration';

/** The public part of a user that Clerk shows on session lists and account switchers. */
const clerkPublicUserData = (u: Json) => {
  const primary = arr(u.email_addresses).find((e) => e.id === u.primary_email_address_id);
  return {
    first_name: u.first_name ?? null,
    last_name: u.last_name ?? null,
    image_url: u.image_url || '',
    has_image: Boolean(u.has_image),
    identifier: (primary?.email_address as string | undefined) ?? (u.username as string | null) ?? '',
    user_id: u.id,
  };
};

/** Clerk writes its task keys with hyphens. */
const TASK_KEYS: Record<string, string> = { setup_mfa: 'setup-mfa' };

/** A session of the client → Clerk's session, with its user (clerk.user comes from here). */
export function clerkSession(
  s: Json,
  user: Json | null,
  lastActiveToken: string | null = null,
  factorVerificationAge: [number, number] | null = null,
) {
  const tasks = arr(s.tasks).map((t) => ({ key: TASK_KEYS[String(t.key)] ?? t.key }));
  return {
    object: 'session',
    id: s.id,
    status: s.status,
    expire_at: s.expire_at,
    abandon_at: s.abandon_at,
    last_active_at: s.last_active_at,
    last_active_organization_id: s.last_active_organization_id ?? null,
    actor: s.impersonated_by ? { sub: s.impersonated_by } : null,
    user: user ? clerkUser(user) : null,
    public_user_data: user ? clerkPublicUserData(user) : null,
    factor_verification_age: factorVerificationAge,
    tasks: tasks.length ? tasks : null,
    last_active_token: lastActiveToken ? { object: 'token', jwt: lastActiveToken } : null,
    created_at: s.created_at,
    updated_at: s.last_active_at ?? s.created_at,
  };
}

const verification = (v: unknown) =>
  isObject(v)
    ? {
        object: 'verification',
        status: v.status,
        strategy: v.strategy,
        attempts: v.attempts ?? null,
        expire_at: v.expire_at ?? null,
        // A social sign-in that found no user: Clerk names why, and clerk-js transfers it to a sign-up.
        error:
          v.status === 'transferable'
            ? { code: 'external_account_not_found', message: 'The External Account was not found.', long_message: null, meta: {} }
            : null,
        verified_at_client: null,
        external_verification_redirect_url: v.external_verification_redirect_url ?? null,
        // A passkey step's WebAuthn options, as JSON (clerk-js parses it into the browser's call).
        nonce: typeof v.nonce === 'string' ? v.nonce : null,
        message: null,
      }
    : null;

/** Clerk's identifier kind of a sign-in's identifier. */
const identifierKind = (identifier: unknown) =>
  typeof identifier !== 'string'
    ? null
    : identifier.includes('@')
      ? 'email_address'
      : identifier.startsWith('+')
        ? 'phone_number'
        : 'username';

/**
 * A sign-in attempt → Clerk's sign_in. `userEmailId`: the id of the address a code goes to
 * (Clerk's `email_code` factor names it; clerk-js sends it back to prepare the factor).
 */
export function clerkSignIn(a: Json, userEmailId: string | null = null) {
  const factor = (f: Json) => {
    const strategy = String(f.strategy);
    const out: Json = { strategy, safe_identifier: f.safe_identifier ?? null, primary: true };
    if (strategy === 'email_code' || strategy === 'email_link' || strategy === 'reset_password_email_code')
      out.email_address_id = userEmailId ?? `idn_${a.id}`;
    return out;
  };
  const transferable = isObject(a.first_factor_verification) && a.first_factor_verification.status === 'transferable';
  return {
    object: 'sign_in',
    id: a.id,
    // Clerk's transferable sign-in has no identifier of a user of the instance yet.
    status: a.status === 'abandoned' || transferable ? 'needs_identifier' : a.status,
    supported_identifiers: a.supported_identifiers ?? [],
    identifier: a.identifier ?? null,
    supported_first_factors: arr(a.supported_first_factors).map(factor),
    supported_second_factors: a.supported_second_factors ? arr(a.supported_second_factors).map(factor) : null,
    first_factor_verification: verification(a.first_factor_verification),
    second_factor_verification: verification(a.second_factor_verification),
    user_data: null,
    // Clerk names the session once the sign-in is complete (a second factor still due: none yet).
    created_session_id: a.status === 'complete' ? (a.created_session_id ?? null) : null,
    abandon_at: a.abandon_at,
    identifier_kind: identifierKind(a.identifier),
  };
}

/** A sign-up attempt → Clerk's sign_up. */
export function clerkSignUp(a: Json) {
  const v = isObject(a.verifications) ? a.verifications : {};
  const email = verification(v.email_address);
  return {
    object: 'sign_up',
    id: a.id,
    status: a.status,
    required_fields: a.required_fields ?? [],
    optional_fields: a.optional_fields ?? [],
    missing_fields: a.missing_fields ?? [],
    unverified_fields: a.unverified_fields ?? [],
    verifications: {
      email_address: email
        ? {
            ...email,
            status: email.status ?? 'unverified',
            next_action: email.status === 'verified' ? '' : 'needs_attempt',
            supported_strategies: ['email_code'],
          }
        : null,
      phone_number: null,
      web3_wallet: null,
      external_account: verification(v.external_account),
    },
    username: a.username ?? null,
    email_address: a.email_address ?? null,
    phone_number: null,
    web3_wallet: null,
    external_account_strategy: null,
    external_account: null,
    has_password: Boolean(a.password_enabled),
    password_enabled: Boolean(a.password_enabled),
    first_name: a.first_name ?? null,
    last_name: a.last_name ?? null,
    unsafe_metadata: a.unsafe_metadata ?? {},
    public_metadata: {},
    custom_action: false,
    external_id: null,
    created_session_id: a.created_session_id ?? null,
    created_user_id: a.created_user_id ?? null,
    abandon_at: a.abandon_at,
    legal_accepted_at: null,
    locale: null,
  };
}

/** An organization → Clerk's (a member's view: never private metadata). */
function clerkOrganization(o: Json) {
  const { private_metadata: _hidden, ...org } = o;
  return {
    ...org,
    object: 'organization',
    image_url: o.image_url || '',
    has_image: Boolean(o.has_image),
    members_count: o.members_count ?? 0,
    pending_invitations_count: o.pending_invitations_count ?? 0,
    admin_delete_enabled: true,
    max_allowed_memberships: o.max_allowed_memberships ?? 0,
  };
}

/** A membership → Clerk's, with its organization (clerk.organization is the active one's). */
function clerkMembership(m: Json) {
  const { private_metadata: _hidden, ...membership } = m;
  return {
    ...membership,
    object: 'organization_membership',
    organization: isObject(m.organization) ? clerkOrganization(m.organization) : null,
  };
}

/** An invitation to an organization (an admin's list, or the invitee's own). */
const clerkInvitation = (i: Json) => ({ ...i, role_name: i.role_name ?? null, public_metadata: i.public_metadata ?? {} });

/** A domain: Clerk calls its email-code verification the "affiliation" one. */
function clerkDomain(d: Json) {
  const v = isObject(d.verification) ? d.verification : {};
  const verification = {
    status: v.status ?? 'unverified',
    strategy: v.strategy ?? null,
    attempts: null,
    expire_at: null,
    verified_at: v.verified_at ?? null,
  };
  return { ...d, verification, affiliation_verification: verification, total_pending_invitations: 0, total_pending_suggestions: 0 };
}

/** A role: Clerk lists its permissions as objects (Latchkey names them by key). */
const clerkRole = (r: Json) => ({
  ...r,
  permissions: (Array.isArray(r.permissions) ? r.permissions : []).map((key) => ({
    object: 'permission',
    id: key,
    key,
    name: key,
    description: '',
    type: typeof key === 'string' && key.startsWith('org:sys_') ? 'system' : 'user',
    created_at: r.created_at,
    updated_at: r.updated_at,
  })),
});

/** A session verification (reverification) → Clerk's, with the session it verifies in Clerk's shape. */
export function clerkSessionVerification(v: Json, session: unknown) {
  const factor = (f: Json) => ({ ...f, safe_identifier: f.safe_identifier ?? null, primary: f.primary ?? true });
  return {
    object: 'session_verification',
    id: v.id,
    status: v.status,
    level: v.level,
    session,
    supported_first_factors: arr(v.supported_first_factors).map(factor),
    supported_second_factors: v.supported_second_factors ? arr(v.supported_second_factors).map(factor) : null,
    first_factor_verification: verification(v.first_factor_verification),
    second_factor_verification: verification(v.second_factor_verification),
    created_at: v.started_at,
    updated_at: v.started_at,
  };
}

/** A user's SSO connection → Clerk's enterprise connection (Clerk names providers `saml_custom`, `oidc_custom`). */
const clerkEnterpriseConnection = (c: Json) => ({
  ...c,
  provider: `${String(c.provider)}_custom`,
  logo_public_url: null,
  sync_user_attributes: true,
  disable_additional_identifications: false,
  // Latchkey links an SSO identity to a user by their verified address, never from the profile.
  allow_organization_account_linking: false,
  custom_attributes: [],
  saml_connection: null,
  oauth_config: null,
});

/** Any Latchkey resource → Clerk's, by its `object`; others pass through. */
export function clerkResource(v: unknown): unknown {
  if (!isObject(v)) return v;
  switch (v.object) {
    case 'sign_in_attempt':
      return clerkSignIn(v);
    case 'sign_up_attempt':
      return clerkSignUp(v);
    case 'user':
      return clerkUser(v);
    case 'email_address':
    case 'phone_number':
      return identification(v.object, v);
    case 'organization':
      return clerkOrganization(v);
    case 'organization_membership':
      return clerkMembership(v);
    case 'organization_invitation':
      return clerkInvitation(v);
    // Accepting an invitation: Clerk answers the invitation (the membership reaches clerk-js with the client).
    case 'organization_invitation_acceptance':
      return isObject(v.invitation) ? clerkInvitation(v.invitation) : v;
    case 'role':
      return clerkRole(v);
    // Clerk calls a rejected request to join `revoked`.
    case 'organization_membership_request':
      return v.status === 'rejected' ? { ...v, status: 'revoked' } : v;
    case 'passkey':
      return v.deleted ? v : clerkPasskey(v);
    case 'passkey_registration':
      return clerkPendingPasskey(v);
    case 'enterprise_connection':
      return clerkEnterpriseConnection(v);
    case 'organization_domain':
      return v.deleted ? v : clerkDomain(v);
    // TOTP enrollment has one secret per user: Clerk's resource id names none.
    case 'totp':
      return { id: 'totp', backup_codes: null, created_at: null, updated_at: null, ...v };
    case 'backup_codes':
      return { object: 'backup_code', id: 'backup_code', codes: v.backup_codes, created_at: null, updated_at: null };
    default:
      return v;
  }
}
