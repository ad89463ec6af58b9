/**
 * What a hosted flow remembers between its pages, per instance, in sessionStorage (this
 * tab only): the sign-in or sign-up attempt in progress and when its code was last sent.
 * The attempt itself lives on the server, bound to this browser's client cookie.
 */
/** `strategy`: how a sign-in's code was sent (an email code unless said). */
export type FlowState = {
  id: string;
  identifier: string;
  sentAt?: number;
  resetPassword?: boolean;
  strategy?: 'email_code' | 'phone_code' | 'email_link';
};
export type FlowKind = 'sign_in' | 'sign_up';

const keyOf = (instanceId: string, kind: FlowKind) => `latchkey:${instanceId}:${kind}`;

export function readFlow(instanceId: string, kind: FlowKind): FlowState | null {
  try {
    const raw = window.sessionStorage.getItem(keyOf(instanceId, kind));
    const parsed = raw ? (JSON.parse(raw) as FlowState) : null;
    return parsed && typeof parsed.id === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

export function writeFlow(instanceId: string, kind: FlowKind, state: FlowState) {
  try {
    window.sessionStorage.setItem(keyOf(instanceId, kind), JSON.stringify(state));
  } catch {
    // Storage disabled: the flow still works within this page.
  }
}

export function clearFlow(instanceId: string, kind: FlowKind) {
  try {
    window.sessionStorage.removeItem(keyOf(instanceId, kind));
  } catch {
    // ignore
  }
}

/** Seconds a resend button waits after a code was sent (the server allows one per 30 s). */
export const RESEND_COOLDOWN_SECONDS = 30;
