import type { Reason, ReasonsByDomain } from './http/errors';
import { REASONS as auth } from './auth/reasons';
import { REASONS as email } from './email/reasons';
import { REASONS as http } from './http/reasons';
import { REASONS as instances } from './instances/reasons';
import { REASONS as localization } from './localization/reasons';
import { REASONS as operators } from './operators/reasons';
import { REASONS as organizations } from './organizations/reasons';
import { REASONS as sessions } from './sessions/reasons';
import { REASONS as users } from './users/reasons';
import { REASONS as webhooks } from './webhooks/reasons';
import { REASONS as limits } from './limits/reasons';
import { REASONS as oauth } from './oauth/reasons';
import { REASONS as apikeys } from './apikeys/reasons';
import { REASONS as billing } from './billing/reasons';
import { REASONS as lti } from './lti/reasons';
import { REASONS as waitlist } from './waitlist/reasons';
import { REASONS as social } from './social/reasons';
import { REASONS as sso } from './sso/reasons';
import { REASONS as sms } from './sms/reasons';
import { REASONS as verification } from './verification/reasons';
import { REASONS as passkeys } from './passkeys/reasons';
import { REASONS as portal } from './portal/reasons';

/**
 * Each domain's registered reasons, keyed by its directory; `http`'s are answered everywhere. docs/conventions.md:
 * one table each. Exactly the domains registered in http/errors.ts's ReasonsByDomain (`satisfies` checks both ways).
 */
export const REASONS_BY_DOMAIN = {
  http,
  auth,
  users,
  sessions,
  organizations,
  operators,
  instances,
  localization,
  email,
  webhooks,
  limits,
  oauth,
  apikeys,
  billing,
  lti,
  waitlist,
  social,
  sso,
  sms,
  passkeys,
  verification,
  portal,
} as const satisfies ReasonsByDomain;

export const ALL_REASONS: ReadonlySet<Reason> = new Set(Object.values(REASONS_BY_DOMAIN).flatMap((r) => Object.values(r)));
