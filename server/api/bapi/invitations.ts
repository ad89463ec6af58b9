import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import { metadataInput } from '../../http/metadata';
import { cursorPageSchema, pageQuery } from '../../http/pagination';
import type { BapiAuth } from './authenticate';
import { INSTANCE_INVITATION_STATUSES } from '../../db/schema';
import { createInstanceInvitation, listInstanceInvitations, revokeInstanceInvitation } from '../../invitations/invitations';
import { emailAddress } from '../../email/addresses';

const invitationSchema = z
  .object({
    object: z.literal('invitation'),
    id: z.string(),
    email_address: z.string(),
    public_metadata: z.record(z.string(), z.unknown()),
    status: z.enum(INSTANCE_INVITATION_STATUSES),
    revoked: z.boolean(),
    url: z.null(),
    redirect_url: z.string().nullable(),
    expires_at: z.number().int().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Invitation' });

const createBody = z.strictObject({
  email_address: emailAddress,
  public_metadata: metadataInput.optional(),
  redirect_url: z
    .string()
    .max(2048)
    .refine((v) => /^https?:\/\/[^\s]+$/.test(v), { message: 'must be an http(s) URL', params: { reason: 'invalid_url' } })
    .meta({ pattern: '^https?://[^\\s]+$' })
    .optional(),
  expires_in_days: z.number().int().min(1).max(365).optional(),
  ignore_existing: z.boolean().optional(),
});

const oneOrMany = <T extends z.ZodType>(t: T) => z.union([t, z.array(t).max(10)]).transform((v) => (Array.isArray(v) ? v : [v]));
const listQuery = z.strictObject({
  ...pageQuery,
  status: oneOrMany(z.enum(INSTANCE_INVITATION_STATUSES)).optional(),
  query: z.string().trim().min(1).max(320).optional(),
});

export const bapiInvitations = {
  create: endpoint<BapiAuth, z.output<typeof createBody>>({
    summary: 'Invite an email address to sign up (admitted by restricted sign-up mode)',
    body: createBody,
    response: invitationSchema,
    audit: { action: 'invitation.created', recordedBy: 'domain' },
    handle: ({ deps, auth, body, actor }) => createInstanceInvitation(deps, auth.instance.id, body, auditContextOf(actor)),
  }),
  list: endpoint<BapiAuth, never, z.output<typeof listQuery>>({
    summary: 'List instance invitations, newest first',
    query: listQuery,
    response: cursorPageSchema(invitationSchema),
    handle: ({ deps, auth, query }) => listInstanceInvitations(deps, auth.instance.id, query),
  }),
  revoke: endpoint<BapiAuth, never, never, 'id'>({
    summary: 'Revoke a pending invitation',
    response: invitationSchema,
    audit: { action: 'invitation.revoked', recordedBy: 'domain' },
    handle: ({ deps, auth, params, actor }) => revokeInstanceInvitation(deps, auth.instance.id, params.id, auditContextOf(actor)),
  }),
};
