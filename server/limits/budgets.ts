import type { Config } from '../config';

/**
 * The per-instance rate-limit budgets (DESIGN.md, "Default limits"). Each holds over any
 * interval of its window (server/infra/limiter.ts). The default is the built-in fixed limit
 * and the ceiling: an instance's policy may only lower a budget, never below 1.
 */
export interface BudgetSpec {
  /** The limiter rule: its keys and the `limit` label of the rejection metric. */
  rule: string;
  windowMs: number;
  /** Whose hits share the budget: a client IP, a secret key, a signed-in user, an organization. */
  per: BudgetSubject;
  description: string;
  defaultLimit(config: Pick<Config, 'BAPI_RATE_LIMIT'>, environment: 'test' | 'live'): number;
}

export const BUDGET_SUBJECTS = ['ip', 'key', 'user', 'organization', 'phone_number', 'country_code'] as const;
export type BudgetSubject = (typeof BUDGET_SUBJECTS)[number];

export const BUDGETS = {
  sign_in_per_ip: {
    rule: 'fapi_sign_in',
    windowMs: 10_000,
    per: 'ip',
    description: 'Sign-ins created (POST /v1/client/sign_ins) per client IP',
    defaultLimit: () => 5,
  },
  sign_up_per_ip: {
    rule: 'fapi_sign_up',
    windowMs: 10_000,
    per: 'ip',
    description: 'Sign-ups created (POST /v1/client/sign_ups) per client IP',
    defaultLimit: () => 5,
  },
  attempts_per_ip: {
    rule: 'fapi_attempt',
    windowMs: 10_000,
    per: 'ip',
    description: 'Password and code attempts (first and second factor, verification, new password) per client IP',
    defaultLimit: () => 3,
  },
  verification_sends_per_ip: {
    rule: 'fapi_verification',
    windowMs: 10_000,
    per: 'ip',
    description: 'Verification-code sends per client IP (the per-address reissue caps apply besides)',
    defaultLimit: () => 5,
  },
  federation_per_ip: {
    rule: 'federation',
    windowMs: 10_000,
    per: 'ip',
    description:
      'Cross-site sign-in steps per client IP: LTI login and launch, SSO ACS and callbacks, social sign-in callbacks (generous: a school or office shares one address)',
    defaultLimit: () => 50,
  },
  // End users choose the addresses and the organization's name, so its mail is theirs to aim: a
  // sending budget like the code sends'. The BAPI and the console are the app's own: not counted.
  invitations_per_user: {
    rule: 'fapi_invitation_user',
    windowMs: 3_600_000,
    per: 'user',
    description: 'Organization invitations a signed-in user sends from the frontend API, over all their organizations',
    defaultLimit: () => 20,
  },
  invitations_per_organization: {
    rule: 'fapi_invitation_organization',
    windowMs: 86_400_000,
    per: 'organization',
    description: 'Organization invitations an organization’s members send from the frontend API',
    defaultLimit: () => 100,
  },
  // SMS pumping (server/sms/pumping.ts): whoever asks, texts to one number and to one country's
  // calling code are bounded, since a fraudster earns from the carrier per message sent.
  sms_per_number: {
    rule: 'sms_number',
    windowMs: 3_600_000,
    per: 'phone_number',
    description: 'SMS sent to one phone number (codes and test sends), whoever asks',
    defaultLimit: () => 10,
  },
  sms_per_country: {
    rule: 'sms_country',
    windowMs: 3_600_000,
    per: 'country_code',
    description: 'SMS sent to the numbers of one country calling code (+44, +1 …), whoever asks (1000 on live instances, 100 on test ones)',
    defaultLimit: (_config, environment) => (environment === 'live' ? 1000 : 100),
  },
  bapi_per_key: {
    rule: 'bapi_key',
    windowMs: 10_000,
    per: 'key',
    description: 'Backend API requests per secret key (1000 on live instances, 100 on test ones, or BAPI_RATE_LIMIT)',
    defaultLimit: (config, environment) => config.BAPI_RATE_LIMIT ?? (environment === 'live' ? 1000 : 100),
  },
} as const satisfies Record<string, BudgetSpec>;

export type BudgetName = keyof typeof BUDGETS;
export const BUDGET_NAMES = Object.keys(BUDGETS) as BudgetName[];
export const MIN_BUDGET = 1;
