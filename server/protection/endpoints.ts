import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { userSchema } from '../users/schemas';
import { lockUser, unlockUser } from './lockout';
import { getAttackProtection, getRiskBasedMfa, updateAttackProtection, updateRiskBasedMfa } from './policy';
import {
  attackProtectionPatch,
  attackProtectionViewSchema,
  riskBasedMfaPatch,
  riskBasedMfaViewSchema,
} from '../instances/protection-settings';

/** The attack protection and risk-based MFA endpoints of one surface (BAPI, dashboard); only the caller's instance differs. */
export function protectionEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    getAttackProtection: endpoint<Auth>({
      summary: 'User lockout and breached-password settings',
      response: attackProtectionViewSchema,
      handle: ({ deps, auth }) => getAttackProtection(deps, instanceOf(auth).id),
    }),
    updateAttackProtection: endpoint<Auth, z.output<typeof attackProtectionPatch>>({
      summary: 'Change user lockout and breached-password settings (any subset of fields)',
      body: attackProtectionPatch,
      response: attackProtectionViewSchema,
      audit: { action: 'attack_protection.updated', recordedBy: 'domain' },
      handle: ({ deps, auth, body, actor }) => updateAttackProtection(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    getRiskBasedMfa: endpoint<Auth>({
      summary: 'Risk-based MFA settings',
      response: riskBasedMfaViewSchema,
      handle: ({ deps, auth }) => getRiskBasedMfa(deps, instanceOf(auth).id),
    }),
    updateRiskBasedMfa: endpoint<Auth, z.output<typeof riskBasedMfaPatch>>({
      summary: 'Turn risk-based MFA on or off',
      body: riskBasedMfaPatch,
      response: riskBasedMfaViewSchema,
      audit: { action: 'risk_based_mfa.updated', recordedBy: 'domain' },
      handle: ({ deps, auth, body, actor }) => updateRiskBasedMfa(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    lockUser: endpoint<Auth, never, never, 'id'>({
      summary:
        'Lock a user until unlocked: every sign-in step answers 403 USER_LOCKED, even with lockout protection off (a no-op when so locked)',
      response: userSchema,
      audit: { action: 'user.locked' },
      handle: ({ deps, auth, params }) => lockUser(deps, instanceOf(auth).id, params.id),
    }),
    unlockUser: endpoint<Auth, never, never, 'id'>({
      summary: 'End a user’s lockout after failed sign-in attempts, or an operator’s lock (a no-op when not locked)',
      response: userSchema,
      audit: { action: 'user.unlocked' },
      handle: ({ deps, auth, params }) => unlockUser(deps, instanceOf(auth).id, params.id),
    }),
  };
}
