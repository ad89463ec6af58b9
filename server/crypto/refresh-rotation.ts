import type { Cipher } from './cipher';
import { generateSecret } from './secrets';

/**
 * Refresh tokens that rotate on every use, shared by sessions (`rt_`) and the OpenID
 * Provider (`ort_`). The successor is derived from the presented token, so concurrent
 * refreshes (several tabs, a retry) land on the same one; a rotated token presented again
 * within the grace window answers that successor, after it it is reuse (a stolen token):
 * the caller revokes what the token belonged to.
 */

/** Concurrent refreshes within this window get the same successor. */
export const REFRESH_GRACE_MS = 10_000;

/** A kind of rotating refresh token: its prefix and the MAC purpose its successors are derived with. */
export interface RefreshTokenKind {
  prefix: string;
  macPurpose: string;
}

/** A new random refresh token of the kind (shown once; stored as its digest). */
export const newRefreshToken = (kind: RefreshTokenKind) => generateSecret(kind.prefix);

/** The token `token` rotates into: the same for every refresh of it. */
export const successorOf = (cipher: Pick<Cipher, 'mac'>, kind: RefreshTokenKind, token: string) =>
  `${kind.prefix}${cipher.mac(kind.macPurpose, token)}`;

/** A presented token still current, rotated within the grace window, or reused after it. */
export type RotationState = 'current' | 'grace' | 'reused';

export function rotationState(rotatedAt: number | null, now: number): RotationState {
  if (rotatedAt === null) return 'current';
  return now - rotatedAt > REFRESH_GRACE_MS ? 'reused' : 'grace';
}
