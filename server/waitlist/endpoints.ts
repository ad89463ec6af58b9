import type { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import {
  createWaitlistEntryBody,
  inviteWaitlistEntryBody,
  listWaitlistQuery,
  rejectWaitlistEntryBody,
  waitlistEntryListSchema,
  waitlistEntrySchema,
} from './schemas';
import { createWaitlistEntry, getWaitlistEntry, inviteWaitlistEntry, listWaitlistEntries, rejectWaitlistEntry } from './waitlist';

type Instance = { id: string; fapiUrl: string };

/** The waitlist endpoints of a surface that manages an instance's whole list (BAPI, dashboard). */
export function waitlistEndpointsFor<Auth>(instanceOf: (auth: Auth) => Instance) {
  return {
    list: endpoint<Auth, never, z.output<typeof listWaitlistQuery>>({
      summary: 'List waitlist entries, newest first (cursor pagination); filter by status and query (part of the email address)',
      query: listWaitlistQuery,
      response: waitlistEntryListSchema,
      handle: ({ deps, auth, query }) => listWaitlistEntries(deps, instanceOf(auth).id, query),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a waitlist entry',
      response: waitlistEntrySchema,
      handle: ({ deps, auth, params }) => getWaitlistEntry(deps, instanceOf(auth).id, params.id),
    }),
    create: endpoint<Auth, z.output<typeof createWaitlistEntryBody>>({
      summary: 'Add an email address to the waitlist (pending); one already listed is 409',
      audit: { action: 'waitlist_entry.created', recordedBy: 'domain' },
      body: createWaitlistEntryBody,
      response: waitlistEntrySchema,
      handle: ({ deps, auth, body, actor }) => createWaitlistEntry(deps, instanceOf(auth).id, body, auditContextOf(actor)),
    }),
    invite: endpoint<Auth, z.output<typeof inviteWaitlistEntryBody>, never, 'id'>({
      summary: 'Invite a waitlist entry: emails a sign-up link carrying a one-time ticket (again: a new ticket); status invited',
      audit: { action: 'waitlist_entry.invited', recordedBy: 'domain' },
      body: inviteWaitlistEntryBody,
      response: waitlistEntrySchema,
      handle: ({ deps, auth, params, body, actor }) => inviteWaitlistEntry(deps, instanceOf(auth), params.id, body, auditContextOf(actor)),
    }),
    reject: endpoint<Auth, z.output<typeof rejectWaitlistEntryBody>, never, 'id'>({
      summary: 'Reject a waitlist entry (its ticket stops working); status rejected',
      audit: { action: 'waitlist_entry.rejected', recordedBy: 'domain' },
      body: rejectWaitlistEntryBody,
      response: waitlistEntrySchema,
      handle: ({ deps, auth, params, actor }) => rejectWaitlistEntry(deps, instanceOf(auth).id, params.id, auditContextOf(actor)),
    }),
  };
}
