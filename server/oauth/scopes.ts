/** The scopes the provider itself understands; an app may also list its own API scopes. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'] as const;
/** The claims each OIDC scope releases (OpenID Connect Core §5.4), from the user's data (oauth/claims.ts). */
export const SCOPE_CLAIMS: Record<string, readonly string[]> = {
  openid: ['sub'],
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** Every user claim the provider can release (by scope or by the `claims` parameter). */
export const USER_CLAIMS: ReadonlySet<string> = new Set(Object.values(SCOPE_CLAIMS).flat());

export const CLAIMS_SUPPORTED = ['iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'azp', 'acr', 'amr', 'sid', ...USER_CLAIMS];

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
export const SCOPE_TOKEN_RE = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;

/** Scopes a client asks for at the token endpoint that name a user, and so never go to client_credentials. */
export const USER_SCOPES: ReadonlySet<string> = new Set(OIDC_SCOPES);

/** A space-delimited scope parameter as a list without duplicates, in the order given. */
export const parseScope = (scope: string | undefined): string[] => [...new Set((scope ?? '').split(' ').filter(Boolean))];
