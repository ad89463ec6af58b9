import type { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import type { FapiAuth } from './authenticate';
import { joinWaitlistBody, publicWaitlistEntrySchema } from '../../waitlist/schemas';
import { joinWaitlist } from '../../waitlist/waitlist';

export const waitlist = {
  /** FAPI: anyone joins the list of an instance in waitlist mode. */
  join: endpoint<FapiAuth, z.output<typeof joinWaitlistBody>>({
    summary: 'Join the waitlist (waitlist mode only); the answer is the same whether the address was new, listed or a user’s',
    audit: { unaudited: 'anonymous self-service; the waitlistEntry.created event records a new entry' },
    body: joinWaitlistBody,
    response: publicWaitlistEntrySchema,
    handle: ({ deps, auth, body }) => joinWaitlist(deps, auth.instance, body.email_address),
  }),
};
