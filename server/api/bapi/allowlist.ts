import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import { lightListSchema, pageQuery } from '../../http/pagination';
import type { BapiAuth } from './authenticate';
import { addAllowlistIdentifier, deleteAllowlistIdentifier, listAllowlistIdentifiers } from '../../allowlist/allowlist';

const identifierSchema = z.object({
  object: z.literal('allowlist_identifier'),
  id: z.string(),
  identifier: z.string(),
  identifier_type: z.enum(['email_address', 'domain']),
  instance_id: z.string(),
  invitation_id: z.null(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

/** Accepted for Clerk's list mode; the whole allowlist is one page. */
const listQuery = z.strictObject({ ...pageQuery });

const createBody = z.strictObject({ identifier: z.string().trim().min(1).max(320) });

export const bapiAllowlist = {
  list: endpoint<BapiAuth, never, z.output<typeof listQuery>>({
    summary: 'List the allowlist identifiers of restricted sign-up (at most 1000: one page)',
    query: listQuery,
    response: lightListSchema(identifierSchema),
    handle: ({ deps, auth }) => listAllowlistIdentifiers(deps, auth.instance.id),
  }),
  create: endpoint<BapiAuth, z.output<typeof createBody>>({
    summary: 'Add an email address or domain to the allowlist',
    body: createBody,
    response: identifierSchema,
    audit: { action: 'allowlist_identifier.created', recordedBy: 'domain' },
    handle: ({ deps, auth, body, actor }) => addAllowlistIdentifier(deps, auth.instance.id, body.identifier, auditContextOf(actor)),
  }),
  delete: endpoint<BapiAuth, never, never, 'id'>({
    summary: 'Remove an allowlist identifier',
    response: z.object({ object: z.literal('allowlist_identifier'), id: z.string(), deleted: z.literal(true) }),
    audit: { action: 'allowlist_identifier.deleted', recordedBy: 'domain' },
    handle: ({ deps, auth, params, actor }) => deleteAllowlistIdentifier(deps, auth.instance.id, params.id, auditContextOf(actor)),
  }),
};
