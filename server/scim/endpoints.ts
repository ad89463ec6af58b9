import { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { setGroupRole } from './admin';
import { directoryGroupSchema, scimTokenSchema, setGroupRoleBody } from './schemas';
import { revokeScimToken } from './tokens';

type Out<T extends z.ZodType> = z.output<T>;

/** `param` names the token (or group); on console paths `params.id` is its organization. */
export const revoke = <Auth, K extends string>(instanceOf: (auth: Auth) => string, param: K) =>
  endpoint<Auth, never, never, 'id' | K>({
    summary: 'Revoke a SCIM token: the directory’s next request is 401',
    audit: { action: 'scim_token.revoked', target: param },
    response: scimTokenSchema,
    handle: ({ deps, auth, params }) => revokeScimToken(deps, instanceOf(auth), params[param], param === 'id' ? undefined : params.id),
  });

export const mapGroup = <Auth, K extends string>(instanceOf: (auth: Auth) => string, param: K) =>
  endpoint<Auth, Out<typeof setGroupRoleBody>, never, 'id' | K>({
    summary: 'Map a directory group to an organization role (null unmaps it); members get the highest role of their mapped groups',
    audit: { action: 'scim_group.role_mapped', target: param, recordedBy: 'domain' },
    body: setGroupRoleBody,
    response: directoryGroupSchema,
    handle: ({ deps, auth, actor, params, body }) =>
      setGroupRole(deps, instanceOf(auth), params[param], body.role, auditContextOf(actor), param === 'id' ? undefined : params.id),
  });
