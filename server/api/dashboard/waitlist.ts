import type { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { bulkInviteBody, waitlistEntryLightListSchema } from '../../waitlist/schemas';
import { inviteWaitlistEntries } from '../../waitlist/waitlist';
import { waitlistEndpointsFor } from '../../waitlist/endpoints';

/** Dashboard: the route's instance, plus the console's bulk invite; audit names the operator. */
export const dashboardWaitlist = {
  ...waitlistEndpointsFor<ConsoleAuth>(routeInstance),
  inviteMany: endpoint<ConsoleAuth, z.output<typeof bulkInviteBody>>({
    summary: 'Invite up to 100 waitlist entries at once, all or none',
    audit: { action: 'waitlist_entry.invited', recordedBy: 'domain' },
    body: bulkInviteBody,
    response: waitlistEntryLightListSchema,
    handle: ({ deps, auth, body, actor }) => inviteWaitlistEntries(deps, routeInstance(auth), body, auditContextOf(actor)),
  }),
};
