import type { OAuthAuthorizationContext } from '../db/schema';

/**
 * How the user actually signed in, as OIDC Core §2 reports it: `amr` (RFC 8176 values) from the
 * session's way in and whether a second factor was proved on it, `acr` one of
 * ACR_VALUES: `2` when more than one factor was proved (a second factor, or a passkey, which is
 * a device held and its user verification at once), else `1`. A way that proves nothing
 * Latchkey can name (a social or SSO provider, an LTI platform, a sign-in token, a sign-up)
 * adds no `amr` value of its own.
 */
export const ACR_VALUES = ['1', '2'] as const;

function firstFactorAmr(way: string | null): string[] {
  switch (way) {
    case 'password':
      return ['pwd'];
    case 'email_code':
    case 'email_link':
    case 'reset_password_email_code':
      return ['otp'];
    case 'phone_code':
      return ['sms'];
    case 'passkey':
      // A passkey is the device (a hardware-secured or synced key) and the user's verification on it.
      return ['hwk', 'user', 'mfa'];
    default:
      return [];
  }
}

export function authenticationOf(session: {
  signInWay: string | null;
  secondFactorVerifiedAt: number | null;
}): Pick<OAuthAuthorizationContext, 'acr' | 'amr'> {
  const amr = firstFactorAmr(session.signInWay);
  if (session.secondFactorVerifiedAt !== null) amr.push('otp', 'mfa');
  const unique = [...new Set(amr)];
  return { acr: unique.includes('mfa') ? '2' : '1', amr: unique };
}
