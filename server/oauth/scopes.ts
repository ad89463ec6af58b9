/** The scopes the provider itself understands; an app may also list its own API scopes. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
/** The claims each OIDC scope releases (OpenID Connect Core §5.4). */
export const SCOPE_CLAIMS: Record<string, readonly string[]> = {
  openid: ['sub'],
  profile: ['name', 'given_name', 'family_name', 'preferred_username', 'picture', 'updated_at'],
  email: ['email', 'email_verified'],
};

export const CLAIMS_SUPPORTED = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'azp', ...SCOPE_CLAIMS.profile!, ...SCOPE_CLAIMS.email!];

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
export const SCOPE_TOKEN_RE = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;

/** Scopes a client asks for at the token endpoint that name a user, and so never go to client_credentials. */
export const USER_SCOPES: ReadonlySet<string> = new Set(OIDC_SCOPES);

/** A space-delimited scope parameter as a list without duplicates, in the order given. */
export const parseScope = (scope: string | undefined): string[] => [...new Set((scope ?? '').split(' ').filter(Boolean))];
