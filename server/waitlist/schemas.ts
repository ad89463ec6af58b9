import { z } from 'zod';
import { cursorPageSchema, lightListSchema, pageQuery } from '../http/pagination';
import { emailAddress } from '../email/addresses';
import { MAX_BULK_INVITE } from './waitlist';

const status = z.enum(['pending', 'invited', 'completed', 'rejected']);

export const joinWaitlistBody = z.strictObject({ email_address: emailAddress });
export const createWaitlistEntryBody = z.strictObject({ email_address: emailAddress });

const expiresInDays = z.number().int().min(1).max(90).meta({ description: 'How long the sign-up ticket is valid, in days (default 30).' });
export const inviteWaitlistEntryBody = z.strictObject({ expires_in_days: expiresInDays.optional() });
export const bulkInviteBody = z.strictObject({
  ids: z.array(z.string().min(1).max(64)).min(1).max(MAX_BULK_INVITE),
  expires_in_days: expiresInDays.optional(),
});

export const rejectWaitlistEntryBody = z.strictObject({});

export const listWaitlistQuery = z.strictObject({
  ...pageQuery,
  status: status.optional(),
  query: z.string().trim().min(1).max(320).optional().meta({ description: 'Part of the email address, or an entry id.' }),
});

export const waitlistEntrySchema = z
  .object({
    object: z.literal('waitlist_entry'),
    id: z.string(),
    email_address: z.string(),
    status,
    invited_at: z.number().int().nullable(),
    invitation_expires_at: z.number().int().nullable(),
    user_id: z.string().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'WaitlistEntry' });

/** The FAPI's answer to joining: the same whoever else is on the list. */
export const publicWaitlistEntrySchema = z
  .object({ object: z.literal('waitlist_entry'), email_address: z.string(), status: z.literal('pending') })
  .meta({ id: 'PublicWaitlistEntry' });

export const waitlistEntryListSchema = cursorPageSchema(waitlistEntrySchema);
export const waitlistEntryLightListSchema = lightListSchema(waitlistEntrySchema);
