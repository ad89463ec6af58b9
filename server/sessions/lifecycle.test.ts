import { describe, expect, it } from 'vitest';
import { SESSION_STATUSES, type SessionStatus } from '../db/schema';
import { isLive, transition, TRANSITIONS, type SessionAction } from './lifecycle';

/**
 * The transition table, written out independently of lifecycle.ts: every allowed
 * (status, action) pair with where it leads and the event it emits. Every pair not
 * listed here must be refused.
 */
const ALLOWED: [SessionStatus, SessionAction, SessionStatus, string | null][] = [
  ['pending', 'activate', 'active', null],
  ['active', 'pend', 'pending', 'session.pending'],
  ['active', 'end', 'ended', 'session.ended'],
  ['pending', 'end', 'ended', 'session.ended'],
  ['active', 'revoke', 'revoked', 'session.revoked'],
  ['pending', 'revoke', 'revoked', 'session.revoked'],
  ['active', 'remove', 'removed', 'session.removed'],
  ['pending', 'remove', 'removed', 'session.removed'],
  ['ended', 'remove', 'removed', 'session.removed'],
  ['active', 'expire', 'expired', null],
  ['pending', 'expire', 'expired', null],
  ['active', 'abandon', 'abandoned', null],
  ['pending', 'abandon', 'abandoned', null],
];

const ACTIONS: SessionAction[] = ['activate', 'pend', 'end', 'revoke', 'remove', 'expire', 'abandon'];

describe('session lifecycle: transition()', () => {
  it('knows exactly these actions', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...ACTIONS].sort());
  });

  it.each(ALLOWED)('%s --%s--> %s (event %s)', (from, action, to, event) => {
    expect(transition(from, action)).toEqual({ to, event });
  });

  const refused = SESSION_STATUSES.flatMap((from) =>
    ACTIONS.filter((action) => !ALLOWED.some(([f, a]) => f === from && a === action)).map((action) => [from, action] as const),
  );

  it('refuses every other pair', () => {
    // 7 statuses × 7 actions, 13 allowed.
    expect(refused).toHaveLength(SESSION_STATUSES.length * ACTIONS.length - ALLOWED.length);
    expect(refused).toHaveLength(36);
  });

  it.each(refused)('refuses %s --%s-->', (from, action) => {
    expect(transition(from, action)).toBeNull();
  });

  it('every entry into pending, revoked, ended and removed emits its event; others emit none', () => {
    const eventFor: Partial<Record<SessionStatus, string>> = {
      pending: 'session.pending',
      revoked: 'session.revoked',
      ended: 'session.ended',
      removed: 'session.removed',
    };
    for (const from of SESSION_STATUSES) {
      for (const action of ACTIONS) {
        const step = transition(from, action);
        if (step) expect(step.event, `${from} --${action}-->`).toBe(eventFor[step.to] ?? null);
      }
    }
  });

  it('terminal statuses allow nothing but the removal of an ended session', () => {
    for (const from of ['revoked', 'removed', 'expired', 'abandoned'] as const) {
      for (const action of ACTIONS) expect(transition(from, action), `${from} --${action}-->`).toBeNull();
    }
  });

  it('isLive: only active and pending', () => {
    expect(SESSION_STATUSES.filter(isLive)).toEqual(['pending', 'active']);
  });
});
