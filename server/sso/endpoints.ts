import { z } from 'zod';
import { endpoint } from '../http/endpoint';
import { deleteConnection, getConnection, updateConnection } from './connections';
import { connectionSchema, updateConnectionBody } from './schemas';

type Out<T extends z.ZodType> = z.output<T>;

/** What a connection change records: the fields sent (never their values, a client secret among them) and whether the IdP is trusted to enforce MFA. */
export const connectionChange = (body: unknown) => {
  const b = (body ?? {}) as { idp_enforces_mfa?: boolean };
  return { fields: Object.keys(b).sort(), ...(b.idp_enforces_mfa !== undefined ? { idp_enforces_mfa: b.idp_enforces_mfa } : {}) };
};

/** `param` names the connection; on console paths `params.id` is its organization (`orgOf` reads the parameters `O`). */
export const crud = <Auth, K extends string, O extends string = never>(
  instanceOf: (auth: Auth) => string,
  param: K,
  orgOf: (params: Record<O, string>) => string | undefined,
) => ({
  get: endpoint<Auth, never, never, K | O>({
    summary: 'An SSO connection (never its client secret)',
    response: connectionSchema,
    handle: ({ deps, auth, params }) => getConnection(deps, instanceOf(auth), params[param], orgOf(params)),
  }),
  update: endpoint<Auth, Out<typeof updateConnectionBody>, never, K | O>({
    summary: 'Update an SSO connection: domains, activation, mappings, IdP settings or metadata, OIDC client (the secret is write-only)',
    audit: { action: 'sso_connection.updated', target: param, details: connectionChange },
    body: updateConnectionBody,
    response: connectionSchema,
    handle: ({ deps, auth, params, body }) => updateConnection(deps, instanceOf(auth), params[param], body, orgOf(params)),
  }),
  delete: endpoint<Auth, never, never, K | O>({
    summary: 'Delete an SSO connection; its users stay, their SSO identities go',
    audit: { action: 'sso_connection.deleted', target: param },
    response: connectionSchema,
    handle: ({ deps, auth, params }) => deleteConnection(deps, instanceOf(auth), params[param], orgOf(params)),
  }),
});
