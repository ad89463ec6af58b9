import type { Deps } from '../deps';
import type { RequestOrigin } from '../http/actor';
import { AppError, isAppError } from '../http/errors';
import { enforceBudget, type PolicyInstance } from '../limits/policy';
import type { BudgetName } from '../limits/budgets';
import { callingCodeOf } from './country-codes';
import { REASONS } from './reasons';
import { loadSmsSettings } from './settings';

type PumpingDeps = Pick<Deps, 'db' | 'clock' | 'caches' | 'cacheInvalidation' | 'config' | 'limiter' | 'metrics' | 'logger'>;

/** Who asked for the SMS, for the audit entry of a refusal. */
export interface SmsRequester {
  actor: string;
  request: RequestOrigin;
}

const SYSTEM: SmsRequester = { actor: 'system:sms', request: { ip: null, userAgent: null } };

/**
 * SMS pumping protection, step one: the number's country calling code must be in the
 * instance's allow-list (when it has one). 422 on `param`, reason country_not_allowed.
 */
export async function assertCountryAllowed(deps: Pick<Deps, 'db'>, instanceId: string, phone: string, param: string) {
  const code = callingCodeOf(phone);
  const allowed = (await loadSmsSettings(deps, instanceId))?.allowedCountryCodes ?? [];
  if (code !== null && (allowed.length === 0 || allowed.includes(code))) return;
  throw new AppError('VALIDATION_FAILED', {
    message: code ? `This application does not send SMS to +${code} numbers.` : 'This phone number has no known country calling code.',
    meta: { param, reason: REASONS.country_not_allowed, ...(code ? { country_code: code } : {}) },
  });
}

/**
 * Step two, once the SMS is sure to be asked for: one hit on the number's budget and one on
 * its country's (server/limits/budgets.ts; the instance's rate-limit policy may tighten them).
 * Past either, 429 RATE_LIMITED with Retry-After and meta.reason number_limit / country_limit.
 */
export async function spendSmsBudgets(deps: PumpingDeps, instance: PolicyInstance, phone: string, who: SmsRequester = SYSTEM) {
  const code = callingCodeOf(phone) ?? 'unknown';
  const spend = async (
    budget: BudgetName,
    subject: string,
    reason: typeof REASONS.number_limit | typeof REASONS.country_limit,
    message: string,
  ) => {
    try {
      await enforceBudget(deps, 'sms', instance, budget, subject, who);
    } catch (err) {
      if (!isAppError(err) || err.code !== 'RATE_LIMITED') throw err;
      throw new AppError('RATE_LIMITED', { message, meta: { ...err.meta, reason }, headers: err.headers });
    }
  };
  await spend(
    'sms_per_number',
    `tel:${phone}`,
    REASONS.number_limit,
    'Too many text messages were sent to this phone number; try again later.',
  );
  await spend(
    'sms_per_country',
    `cc:${code}`,
    REASONS.country_limit,
    `Too many text messages were sent to +${code} numbers; try again later.`,
  );
}
