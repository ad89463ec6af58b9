import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import type { BapiAuth } from '../api/bapi/authenticate';
import { routeInstance, type ConsoleAuth } from '../api/dashboard/authenticate';
import type { FapiAuth } from '../api/fapi/authenticate';
import {
  bulkInviteBody,
  createWaitlistEntryBody,
  inviteWaitlistEntryBody,
  joinWaitlistBody,
  listWaitlistQuery,
  publicWaitlistEntrySchema,
  rejectWaitlistEntryBody,
  waitlistEntryLightListSchema,
  waitlistEntryListSchema,
  waitlistEntrySchema,
} from './schemas';
import {
  createWaitlistEntry,
  getWaitlistEntry,
  inviteWaitlistEntries,
  inviteWaitlistEntry,
  joinWaitlist,
  listWaitlistEntries,
  rejectWaitlistEntry,
} from './waitlist';

type Instance = { id: string; fapiUrl: string };

/** The waitlist endpoints of a surface that manages an instance's whole list (BAPI, dashboard). */
function waitlistEndpointsFor<Auth>(instanceOf: (auth: Auth) => Instance) {
  return {
    list: endpoint<Auth, never, z.output<typeof listWaitlistQuery>>({
      summary: 'List waitlist entries, newest first (cursor pagination); filter by status and query (part of the email address)',
      query: listWaitlistQuery,
      response: waitlistEntryListSchema,
      handle: ({ deps, auth, query }) => listWaitlistEntries(deps, instanceOf(auth).id, query),
    }),
    get: endpoint<Auth>({
      summary: 'Get a waitlist entry',
      response: waitlistEntrySchema,
      handle: ({ deps, auth, params }) => getWaitlistEntry(deps, instanceOf(auth).id, params.id!),
    }),
    create: endpoint<Auth, z.output<typeof createWaitlistEntryBody>>({
      summary: 'Add an email address to the waitlist (pending); one already listed is 409',
      audit: { action: 'waitlist_entry.created', recordedBy: 'domain' },
      body: createWaitlistEntryBody,
      response: waitlistEntrySchema,
      handle: ({ deps, auth, body, actor }) => createWaitlistEntry(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    invite: endpoint<Auth, z.output<typeof inviteWaitlistEntryBody>>({
      summary: 'Invite a waitlist entry: emails a sign-up link carrying a one-time ticket (again: a new ticket); status invited',
      audit: { action: 'waitlist_entry.invited', recordedBy: 'domain' },
      body: inviteWaitlistEntryBody,
      response: waitlistEntrySchema,
      handle: ({ deps, auth, params, body, actor }) => inviteWaitlistEntry(deps, instanceOf(auth), params.id!, body, auditContextOf(actor)),
    }),
    reject: endpoint<Auth, z.output<typeof rejectWaitlistEntryBody>>({
      summary: 'Reject a waitlist entry (its ticket stops working); status rejected',
      audit: { action: 'waitlist_entry.rejected', recordedBy: 'domain' },
      body: rejectWaitlistEntryBody,
      response: waitlistEntrySchema,
      handle: ({ deps, auth, params, actor }) => rejectWaitlistEntry(deps, instanceOf(auth).id, params.id!, auditContextOf(actor)),
    }),
  };
}

/** BAPI: the key's instance. */
export const bapiWaitlist = waitlistEndpointsFor<BapiAuth>((auth) => auth.instance);

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

/** FAPI: anyone joins the list of an instance in waitlist mode. */
export const joinWaitlistEndpoint = endpoint<FapiAuth, z.output<typeof joinWaitlistBody>>({
  summary: 'Join the waitlist (waitlist mode only); the answer is the same whether the address was new, listed or a user’s',
  audit: { unaudited: 'anonymous self-service; the waitlistEntry.created event records a new entry' },
  body: joinWaitlistBody,
  response: publicWaitlistEntrySchema,
  handle: ({ deps, auth, body }) => joinWaitlist(deps, auth.instance, body.email_address),
});
