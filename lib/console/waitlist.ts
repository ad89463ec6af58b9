/** Shapes of the dashboard API's waitlist answers (server/waitlist/schemas.ts). */
export const WAITLIST_STATUSES = ['pending', 'invited', 'completed', 'rejected'] as const;
export type WaitlistStatus = (typeof WAITLIST_STATUSES)[number];

export type WaitlistEntry = {
  object: 'waitlist_entry';
  id: string;
  email_address: string;
  status: WaitlistStatus;
  invited_at: number | null;
  invitation_expires_at: number | null;
  user_id: string | null;
  created_at: number;
  updated_at: number;
};

/** Whether an entry can be invited (again) or rejected: everything but a completed sign-up. */
export const canInvite = (e: WaitlistEntry) => e.status !== 'completed';
export const canReject = (e: WaitlistEntry) => e.status === 'pending' || e.status === 'invited';
