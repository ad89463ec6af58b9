import { z } from 'zod';
import { auditContextOf } from '../http/actor';
import type { Deps } from '../deps';
import { endpoint } from '../http/endpoint';
import { instanceContext } from '../instances/instances';
import { rejectCompromisedPassword } from './breached-passwords';
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
import { removeAllMfa } from './mfa';
import { sessionListSchema, userSessionsQuery } from '../sessions/schemas';
import { listSessions } from '../sessions/sessions';
import { USER_UPLOAD, type ImageUpload } from '../http/images';
import { deleteProfileImage, profileImageUploadSchema, setProfileImage } from './profile-image';

/** A password set through the API is checked like one chosen on the FAPI, unless `skip_password_checks`. */
export async function rejectCompromised(deps: Deps, instanceId: string, body: { password?: string; skip_password_checks?: boolean }) {
  if (body.password === undefined || body.skip_password_checks) return;
  await rejectCompromisedPassword(deps, await instanceContext(deps, instanceId), body.password);
}

/**
 * The user endpoints of one surface: `instanceOf` names the instance the caller acts on,
 * `updateBody` what a PATCH may change. `params.id` is the user.
 */
export function userEndpointsFor<Auth>(
  instanceOf: (auth: Auth) => { id: string },
  updateBody: z.ZodType<UpdateUserInput> = updateUserBody,
) {
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
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a user',
      response: userSchema,
      handle: ({ deps, auth, params }) => getUser(deps, instanceOf(auth).id, params.id),
    }),
    update: endpoint<Auth, UpdateUserInput, never, 'id'>({
      summary: 'Update a user (metadata is deep-merged; null deletes a key)',
      body: updateBody,
      response: userSchema,
      audit: { action: 'user.updated', recordedBy: 'domain' },
      handle: async ({ deps, auth, params, body, actor }) => {
        await rejectCompromised(deps, instanceOf(auth).id, body);
        return updateUser(deps, instanceOf(auth).id, params.id, body, auditContextOf(actor));
      },
    }),
    delete: endpoint<Auth, never, never, 'id'>({
      summary: 'Delete a user',
      response: deletedUserSchema,
      audit: { action: 'user.deleted' },
      handle: ({ deps, auth, params }) => deleteUser(deps, instanceOf(auth).id, params.id),
    }),
    ban: endpoint<Auth, never, never, 'id'>({
      summary: 'Ban a user',
      response: userSchema,
      audit: { action: 'user.banned' },
      handle: ({ deps, auth, params }) => setBanned(deps, instanceOf(auth).id, params.id, true),
    }),
    unban: endpoint<Auth, never, never, 'id'>({
      summary: 'Unban a user',
      response: userSchema,
      audit: { action: 'user.unbanned' },
      handle: ({ deps, auth, params }) => setBanned(deps, instanceOf(auth).id, params.id, false),
    }),
    disableMfa: endpoint<Auth, never, never, 'id'>({
      summary: 'Turn off a user’s second factor: delete their TOTP factor and backup codes (answers {user_id}, as Clerk does)',
      response: z.object({ user_id: z.string() }),
      audit: { action: 'user.mfa_disabled', target: 'id' },
      handle: ({ deps, auth, params }) => removeAllMfa(deps, instanceOf(auth).id, params.id),
    }),
    listSessions: endpoint<Auth, never, z.output<typeof userSessionsQuery>, 'id'>({
      summary: 'List a user’s sessions',
      query: userSessionsQuery,
      response: sessionListSchema,
      handle: async ({ deps, auth, params, query }) => {
        const instanceId = instanceOf(auth).id;
        await getUser(deps, instanceId, params.id);
        return listSessions(deps, instanceId, { ...query, user_id: params.id });
      },
    }),
  };
}

/** Set or remove a user's profile image for the BAPI and the dashboard (`params.id` is the user). */
export function profileImageEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    set: endpoint<Auth, ImageUpload, never, 'id'>({
      summary: `Set the user’s profile image (${USER_UPLOAD})`,
      multipart: true,
      body: profileImageUploadSchema,
      response: userSchema,
      audit: { action: 'user.profile_image_updated' },
      handle: ({ deps, auth, params, body }) => setProfileImage(deps, instanceOf(auth).id, params.id, body),
    }),
    remove: endpoint<Auth, never, never, 'id'>({
      summary: 'Remove the user’s profile image',
      response: userSchema,
      audit: { action: 'user.profile_image_deleted' },
      handle: ({ deps, auth, params }) => deleteProfileImage(deps, instanceOf(auth).id, params.id),
    }),
  };
}
