import { z } from 'zod';
import type { BapiAuth } from '../keys/bapi-auth';
import { auditContextOf } from '../http/actor';
import type { Deps } from '../deps';
import { endpoint, streamResult } from '../http/endpoint';
import { exportUsersCsv } from './export';
import { instanceContext } from '../instances/instances';
import { rejectCompromisedPassword } from '../protection/breached';
import { routeInstance, type ConsoleAuth } from '../operators/console-auth';
import {
  createUserBody,
  deletedUserSchema,
  listUsersQuery,
  updateUserBody,
  userListSchema,
  userSchema,
  type UpdateUserInput,
} from './schemas';
import { createUser, deleteUser, getUser, listUsers, setBanned, updateUser } from './users';

/** A password set through the API is checked like one chosen on the FAPI, unless `skip_password_checks`. */
async function rejectCompromised(deps: Deps, instanceId: string, body: { password?: string; skip_password_checks?: boolean }) {
  if (body.password === undefined || body.skip_password_checks) return;
  await rejectCompromisedPassword(deps, await instanceContext(deps, instanceId), body.password);
}

/**
 * The user endpoints of one surface: `instanceOf` names the instance the caller acts on,
 * `updateBody` what a PATCH may change. `params.id` is the user.
 */
export function userEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string }, updateBody: z.ZodType<UpdateUserInput> = updateUserBody) {
  return {
    create: endpoint<Auth, z.output<typeof createUserBody>>({
      summary: 'Create a user',
      body: createUserBody,
      response: userSchema,
      audit: { action: 'user.created', recordedBy: 'domain' },
      handle: async ({ deps, auth, body, actor }) => {
        await rejectCompromised(deps, instanceOf(auth).id, body);
        return createUser(deps, instanceOf(auth).id, body, { audit: auditContextOf(actor) });
      },
    }),
    list: endpoint<Auth, never, z.output<typeof listUsersQuery>>({
      summary: 'List users, newest first (cursor pagination)',
      query: listUsersQuery,
      response: userListSchema,
      handle: ({ deps, auth, query }) => listUsers(deps, instanceOf(auth).id, query),
    }),
    get: endpoint<Auth>({
      summary: 'Get a user',
      response: userSchema,
      handle: ({ deps, auth, params }) => getUser(deps, instanceOf(auth).id, params.id!),
    }),
    update: endpoint<Auth, UpdateUserInput>({
      summary: 'Update a user (metadata is deep-merged; null deletes a key)',
      body: updateBody,
      response: userSchema,
      audit: { action: 'user.updated', recordedBy: 'domain' },
      handle: async ({ deps, auth, params, body, actor }) => {
        await rejectCompromised(deps, instanceOf(auth).id, body);
        return updateUser(deps, instanceOf(auth).id, params.id!, body, auditContextOf(actor));
      },
    }),
    delete: endpoint<Auth>({
      summary: 'Delete a user',
      response: deletedUserSchema,
      audit: { action: 'user.deleted' },
      handle: ({ deps, auth, params }) => deleteUser(deps, instanceOf(auth).id, params.id!),
    }),
    ban: endpoint<Auth>({
      summary: 'Ban a user',
      response: userSchema,
      audit: { action: 'user.banned' },
      handle: ({ deps, auth, params }) => setBanned(deps, instanceOf(auth).id, params.id!, true),
    }),
    unban: endpoint<Auth>({
      summary: 'Unban a user',
      response: userSchema,
      audit: { action: 'user.unbanned' },
      handle: ({ deps, auth, params }) => setBanned(deps, instanceOf(auth).id, params.id!, false),
    }),
  };
}

/** The console edits names, username, external_id and metadata only. */
const fields = updateUserBody.shape;
const consoleUpdateUserBody = z.strictObject({
  first_name: fields.first_name,
  last_name: fields.last_name,
  username: fields.username,
  external_id: fields.external_id,
  public_metadata: fields.public_metadata,
  private_metadata: fields.private_metadata,
  unsafe_metadata: fields.unsafe_metadata,
});

export const bapiUsers = userEndpointsFor<BapiAuth>((auth) => auth.instance);
export const dashboardUsers = userEndpointsFor<ConsoleAuth>(routeInstance, consoleUpdateUserBody);
/** The FAPI's route-types test mounts this BAPI endpoint where it must not compile. */
export const getUserEndpoint = bapiUsers.get;

const { limit: _limit, starting_after: _after, ...exportFilters } = listUsersQuery.shape;
const exportUsersQuery = z.strictObject(exportFilters);

/** Dashboard: the filtered user list as a streamed CSV file (admins; the export is audited). */
export const exportUsersEndpoint = endpoint<ConsoleAuth, never, z.output<typeof exportUsersQuery>>({
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
});
