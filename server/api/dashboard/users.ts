import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint, streamResult } from '../../http/endpoint';
import { exportUsersCsv } from '../../users/export';
import { routeInstance, type ConsoleAuth } from './authenticate';
import {
  apiTokenListSchema,
  apiTokenSchema,
  emailAddressSchema,
  phoneNumberSchema,
  listUsersQuery,
  updateUserBody,
  userSchema,
} from '../../users/schemas';
import { emailAddress, phoneNumber } from '../../email/addresses';
import { getUser } from '../../users/users';
import { listApiTokens, revokeApiToken } from '../../users/api-tokens';
import { addUserIdentifier, removeUserIdentifier, setUserPassword, verifyUserIdentifier } from '../../users/operator-account';
import type { IdentifierKindName } from '../../users/my-account';
import { rejectCompromised, userEndpointsFor } from '../../users/endpoints';
import { profileImageEndpointsFor } from '../../users/endpoints';

/** The console edits names, username, external_id, the primary email address and phone number, and metadata (the password has its own route). */
const fields = updateUserBody.shape;
const consoleUpdateUserBody = z.strictObject({
  first_name: fields.first_name,
  last_name: fields.last_name,
  username: fields.username,
  external_id: fields.external_id,
  primary_email_address_id: fields.primary_email_address_id,
  primary_phone_number_id: fields.primary_phone_number_id,
  public_metadata: fields.public_metadata,
  private_metadata: fields.private_metadata,
  unsafe_metadata: fields.unsafe_metadata,
});

export const dashboardUsers = userEndpointsFor<ConsoleAuth>(routeInstance, consoleUpdateUserBody);
const { limit: _limit, starting_after: _after, ...exportFilters } = listUsersQuery.shape;
const exportUsersQuery = z.strictObject(exportFilters);

/** An operator's add: the address or number, verified at once when `verified` (default false: the user verifies it). */
function identifierEndpoints<K extends IdentifierKindName>(
  kind: K,
  value: z.ZodType<string>,
  schema: z.ZodType,
  what: { one: string; many: string },
) {
  const addBody = z.strictObject({ [kind]: value, verified: z.boolean().optional() } as Record<K, z.ZodType<string>> & {
    verified: z.ZodOptional<z.ZodBoolean>;
  });
  type AddBody = Record<K, string> & { verified?: boolean };
  const idParam = (kind === 'email_address' ? 'email_address_id' : 'phone_number_id') as `${K}_id`;
  return {
    add: endpoint<ConsoleAuth, AddBody, never, 'id'>({
      summary: `Add ${what.one} to a user, unverified or (verified: true) verified on the operator’s word, primary when the user has none`,
      audit: { action: `user.${kind}_added`, target: 'id' },
      body: addBody as unknown as z.ZodType<AddBody>,
      status: 201,
      response: schema,
      handle: ({ deps, auth, params, body }) =>
        addUserIdentifier(deps, routeInstance(auth).id, params.id, kind, body[kind], body.verified ?? false),
    }),
    verify: endpoint<ConsoleAuth, never, never, 'id' | `${K}_id`>({
      summary: `Mark one of a user’s ${what.many} verified (strategy admin); a verified one is left as it is`,
      audit: { action: `user.${kind}_verified`, target: 'id' },
      response: schema,
      handle: ({ deps, auth, params }) => verifyUserIdentifier(deps, routeInstance(auth).id, params.id, kind, params[idParam]),
    }),
    remove: endpoint<ConsoleAuth, never, never, 'id' | `${K}_id`>({
      summary: `Remove one of a user’s ${what.many} (never the primary one: 409 primary_identifier)`,
      audit: { action: `user.${kind}_removed`, target: 'id' },
      response: z.object({ object: z.literal(kind), id: z.string(), deleted: z.literal(true) }),
      handle: ({ deps, auth, params }) => removeUserIdentifier(deps, routeInstance(auth).id, params.id, kind, params[idParam]),
    }),
  };
}

const setPasswordBody = z.strictObject({
  password: updateUserBody.shape.password.unwrap(),
  skip_password_checks: z.boolean().optional(),
  /** Revoke every live session of the user (and bump sessions_version). */
  sign_out_of_all_sessions: z.boolean().optional(),
});

/** Dashboard only: what the console's user page changes beyond the user PATCH. `params.id` is the user. */
export const dashboardUserAccount = {
  emailAddresses: identifierEndpoints('email_address', emailAddress, emailAddressSchema, {
    one: 'an email address',
    many: 'email addresses',
  }),
  phoneNumbers: identifierEndpoints('phone_number', phoneNumber, phoneNumberSchema, { one: 'a phone number', many: 'phone numbers' }),
  setPassword: endpoint<ConsoleAuth, z.output<typeof setPasswordBody>, never, 'id'>({
    summary: 'Set or reset a user’s password (checked like the BAPI’s unless skip_password_checks), optionally signing them out everywhere',
    body: setPasswordBody,
    response: userSchema,
    audit: { action: 'user.updated', recordedBy: 'domain' },
    handle: async ({ deps, auth, params, body, actor }) => {
      await rejectCompromised(deps, routeInstance(auth).id, body);
      return setUserPassword(deps, routeInstance(auth).id, params.id, body, auditContextOf(actor));
    },
  }),
  listApiTokens: endpoint<ConsoleAuth, never, never, 'id'>({
    summary: 'A user’s unrevoked personal access tokens (no secrets; light envelope: at most 50)',
    response: apiTokenListSchema,
    handle: async ({ deps, auth, params }) => {
      const instanceId = routeInstance(auth).id;
      await getUser(deps, instanceId, params.id);
      return listApiTokens(deps, instanceId, params.id);
    },
  }),
  revokeApiToken: endpoint<ConsoleAuth, never, never, 'id' | 'token_id'>({
    summary: 'Revoke one of a user’s personal access tokens (a revoked one is a no-op)',
    response: apiTokenSchema,
    audit: { action: 'api_token.revoked', recordedBy: 'domain' },
    handle: ({ deps, auth, params, actor }) =>
      revokeApiToken(deps, routeInstance(auth).id, params.id, params.token_id, auditContextOf(actor)),
  }),
};

export const dashboardProfileImage = profileImageEndpointsFor<ConsoleAuth>(routeInstance);

export const userExport = {
  /** Dashboard: the filtered user list as a streamed CSV file (admins; the export is audited). */
  download: endpoint<ConsoleAuth, never, z.output<typeof exportUsersQuery>>({
    summary: 'Export the users matching the list filters as CSV, streamed page by page (in the list order)',
    audit: { action: 'users.exported', recordedBy: 'domain' },
    query: exportUsersQuery,
    response: z.unknown(),
    handle: async ({ deps, auth, query, actor }) => {
      const instance = routeInstance(auth);
      const stream = await exportUsersCsv(deps, instance.id, query, auditContextOf(actor));
      return streamResult(stream, 'text/csv; charset=utf-8', {
        'content-disposition': `attachment; filename="users-${instance.id}.csv"`,
        'cache-control': 'no-store',
      });
    },
  }),
};
