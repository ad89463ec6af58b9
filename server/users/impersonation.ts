import { AppError } from '../http/errors';
import type { Me } from './me';
import { REASONS } from './reasons';

/**
 * An impersonation session (redeemed from an actor token) may look and act within the app
 * as the user, never change how the account is signed into: identifiers, factors, password,
 * sessions, connected accounts, credentials (docs/backend-api.md, "Impersonation"). The FAPI route table
 * names what each route refuses (FapiGuard.impersonation), so the rule lives in one place.
 */
export interface ImpersonationRule {
  /** What the route does, for the message: "An impersonation session cannot <refused>." */
  refused: string;
  /** Refused only when the body sends one of these fields (PATCH /v1/me: the identifiers, not the names). */
  whenBodyHas?: readonly string[];
}

/** The refusal of `rule` for `me`; `sentFields` null before the body is read (rules naming fields wait for it). */
export function refuseImpersonation(
  rule: ImpersonationRule | undefined,
  me: Pick<Me, 'actor'> | undefined,
  sentFields: readonly string[] | null,
) {
  if (!rule || !me?.actor) return;
  if (rule.whenBodyHas && !(sentFields && rule.whenBodyHas.some((f) => sentFields.includes(f)))) return;
  throw new AppError('FORBIDDEN', { message: `An impersonation session cannot ${rule.refused}.`, meta: { reason: REASONS.impersonation } });
}
