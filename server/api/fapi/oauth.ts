import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import type { SignedInAuth } from './authenticate';
import { auditContextOf } from '../../http/actor';
import { grantSchema, listUserGrants, revokeUserGrant } from '../../oauth/grants';

export const myGrants = {
  list: endpoint<SignedInAuth>({
    summary: 'The apps the signed-in user has allowed (OAuth consents)',
    response: z.object({ object: z.literal('list'), data: z.array(grantSchema), has_more: z.boolean() }),
    handle: ({ deps, auth }) => listUserGrants(deps, auth.instance.id, auth.me.userId),
  }),
  revoke: endpoint<SignedInAuth, never, never, 'id'>({
    summary: 'Withdraw a consent: the app’s tokens for this user stop working',
    audit: { action: 'oauth_grant.revoked', recordedBy: 'domain' },
    response: z.object({ object: z.literal('oauth_grant'), id: z.string(), deleted: z.literal(true) }),
    handle: ({ deps, auth, params, actor }) => revokeUserGrant(deps, auth.instance.id, auth.me.userId, params.id, auditContextOf(actor)),
  }),
};
