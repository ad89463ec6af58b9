import type { SessionStatus } from '../db/schema';
import type { EventType } from '../events/types';

/**
 * The session state machine, in one place.
 *
 * | action   | from              | to        | event           |
 * |----------|-------------------|-----------|-----------------|
 * | activate | pending           | active    | —               |
 * | pend     | active            | pending   | session.pending |
 * | end      | active, pending   | ended     | session.ended   |
 * | revoke   | active, pending   | revoked   | session.revoked |
 * | remove   | active, pending, ended | removed | session.removed |
 * | expire   | active, pending   | expired   | —               |
 * | abandon  | active, pending   | abandoned | —               |
 *
 * A session is created `active`, or `pending` when it awaits a second factor or an
 * MFA-enrollment task (session.created, then session.pending).
 */
export const TRANSITIONS = {
  activate: { from: ['pending'], to: 'active', event: null },
  pend: { from: ['active'], to: 'pending', event: 'session.pending' },
  end: { from: ['active', 'pending'], to: 'ended', event: 'session.ended' },
  revoke: { from: ['active', 'pending'], to: 'revoked', event: 'session.revoked' },
  remove: { from: ['active', 'pending', 'ended'], to: 'removed', event: 'session.removed' },
  expire: { from: ['active', 'pending'], to: 'expired', event: null },
  abandon: { from: ['active', 'pending'], to: 'abandoned', event: null },
} as const satisfies Record<string, { from: readonly SessionStatus[]; to: SessionStatus; event: EventType | null }>;

export type SessionAction = keyof typeof TRANSITIONS;

/** The status an action leads to from `from`, with its event; null when the action is not allowed. */
export function transition(from: SessionStatus, action: SessionAction): { to: SessionStatus; event: EventType | null } | null {
  const t = TRANSITIONS[action];
  return (t.from as readonly SessionStatus[]).includes(from) ? { to: t.to, event: t.event } : null;
}

export const isLive = (s: SessionStatus) => s === 'active' || s === 'pending';
