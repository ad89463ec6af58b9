import { z } from 'zod';
import type { BapiAuth } from '../keys/bapi-auth';
import { endpoint } from '../http/endpoint';
import {
  createUserBody,
  deletedUserSchema,
  listUsersQuery,
  updateUserBody,
  userListSchema,
  userSchema,
} from './schemas';
import { createUser, deleteUser, getUser, listUsers, setBanned, updateUser } from './users';

export const createUserEndpoint = endpoint<BapiAuth, z.output<typeof createUserBody>>({
  summary: 'Create a user',
  body: createUserBody,
  response: userSchema,
  handle: ({ deps, auth, body }) => createUser(deps, auth.instance.id, body),
});

export const listUsersEndpoint = endpoint<BapiAuth, never, z.output<typeof listUsersQuery>>({
  summary: 'List users, newest first (cursor pagination)',
  query: listUsersQuery,
  response: userListSchema,
  handle: ({ deps, auth, query }) => listUsers(deps, auth.instance.id, query),
});

export const getUserEndpoint = endpoint<BapiAuth>({
  summary: 'Get a user',
  response: userSchema,
  handle: ({ deps, auth, params }) => getUser(deps, auth.instance.id, params.id!),
});

export const updateUserEndpoint = endpoint<BapiAuth, z.output<typeof updateUserBody>>({
  summary: 'Update a user (metadata is deep-merged; null deletes a key)',
  body: updateUserBody,
  response: userSchema,
  handle: ({ deps, auth, params, body }) => updateUser(deps, auth.instance.id, params.id!, body),
});

export const deleteUserEndpoint = endpoint<BapiAuth>({
  summary: 'Delete a user',
  response: deletedUserSchema,
  handle: ({ deps, auth, params }) => deleteUser(deps, auth.instance.id, params.id!),
});

export const banUserEndpoint = endpoint<BapiAuth>({
  summary: 'Ban a user',
  response: userSchema,
  handle: ({ deps, auth, params }) => setBanned(deps, auth.instance.id, params.id!, true),
});

export const unbanUserEndpoint = endpoint<BapiAuth>({
  summary: 'Unban a user',
  response: userSchema,
  handle: ({ deps, auth, params }) => setBanned(deps, auth.instance.id, params.id!, false),
});
