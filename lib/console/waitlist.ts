/** The dashboard API's waitlist entries (types generated from server/waitlist/schemas.ts). */
import type { WaitlistEntry } from '@/lib/generated/dashboard';

export type WaitlistStatus = WaitlistEntry['status'];
export const WAITLIST_STATUSES = ['pending', 'invited', 'completed', 'rejected'] as const satisfies readonly WaitlistStatus[];

export type { WaitlistEntry };

/** Whether an entry can be invited (again) or rejected: everything but a completed sign-up. */
export const canInvite = (e: WaitlistEntry) => e.status !== 'completed';
export const canReject = (e: WaitlistEntry) => e.status === 'pending' || e.status === 'invited';
