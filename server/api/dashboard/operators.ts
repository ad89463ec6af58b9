import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../../deps';
import { audit } from '../../audit/audit';
import { OPERATOR_ROLES, accounts, secretKeys } from '../../db/schema';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import { AppError, notFound } from '../../http/errors';
import { lightListSchema } from '../../http/pagination';
import {
  createAccount,
  createInstance,
  deleteInstance,
  instanceView,
  renameAccount,
  renameInstance,
  settingsView,
  updateInstanceSettings,
  type Instance,
} from '../../instances/instances';
import { instanceSettingsSchema, settingsPatchSchema } from '../../instances/settings';
import { createSecretKey, listSecretKeys, revokeSecretKey } from '../../keys/secret-keys';
import { ACTOR_TOKEN_TTL, actorTokenSchema } from '../bapi/sessions';
import { createTicket } from '../../sessions/tickets';
import { userSchema } from '../../users/schemas';
import { emailAddress } from '../../email/addresses';
import { getUser } from '../../users/users';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { assertSettingsRoles } from '../../organizations/roles';
import {
  acceptOperatorInvitation,
  accountInstances,
  addOperatorMembership,
  changeMembership,
  completeSetup,
  createOperatorInvitation,
  listOperatorInvitations,
  listMembers,
  operatorAccounts,
  revokeOperatorInvitation,
} from '../../operators/operators';

/** Endpoints of the dashboard API (server/api/dashboard): the console's data calls. */

const operatorId = (auth: ConsoleAuth) => {
  if (!auth.operatorId) throw new AppError('UNAUTHENTICATED', { message: 'Sign in to the console first.' });
  return auth.operatorId;
};

const accountOf = (auth: ConsoleAuth) => {
  if (!auth.account) throw notFound('account');
  return auth.account;
};

// ── Console bootstrap ────────────────────────────────────────────────────────────────

const consoleSchema = z.object({
  object: z.literal('console'),
  platform_instance_id: z.string(),
  publishable_key: z.string(),
  fapi_url: z.string(),
  signed_in: z.boolean(),
});

const name = z.string().trim().min(1).max(256);
const password = z.string().min(8).max(256);

const setupBody = z.strictObject({
  token: z.string().min(1).max(256),
  email_address: emailAddress,
  password,
  first_name: name.optional(),
  last_name: name.optional(),
  account_name: name.optional(),
});

const accountSchema = z.object({
  object: z.literal('account'),
  id: z.string(),
  name: z.string(),
  role: z.enum(OPERATOR_ROLES),
  created_at: z.number().int(),
});
const operatorSchema = userSchema.omit({ private_metadata: true });
const meSchema = z.object({ object: z.literal('operator'), user: operatorSchema, accounts: z.array(accountSchema) });

async function operatorMe(deps: Deps, platformId: string, userId: string) {
  const { private_metadata: _hidden, ...user } = await getUser(deps, platformId, userId);
  return { object: 'operator' as const, user, accounts: await operatorAccounts(deps, userId) };
}

const acceptBody = z.strictObject({
  token: z.string().min(1).max(256),
  password: password.optional(),
  first_name: name.optional(),
  last_name: name.optional(),
});

const createAccountBody = z.strictObject({ name });

const renameBody = z.strictObject({ name });

const memberSchema = z.object({
  object: z.literal('account_membership'),
  id: z.string(),
  role: z.enum(OPERATOR_ROLES),
  user_id: z.string(),
  email_address: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  created_at: z.number().int(),
});

const invitationSchema = z.object({
  object: z.literal('account_invitation'),
  id: z.string(),
  account_id: z.string(),
  email_address: z.string(),
  role: z.enum(OPERATOR_ROLES),
  status: z.enum(['pending', 'accepted', 'revoked']),
  invited_by: z.string(),
  expires_at: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

const inviteBody = z.strictObject({ email_address: emailAddress, role: z.enum(OPERATOR_ROLES).default('viewer') });

const memberBody = z.strictObject({ role: z.enum(OPERATOR_ROLES) });

async function memberView(deps: Deps, auth: ConsoleAuth, membershipId: string) {
  const list = await listMembers(deps, auth.platform.id, accountOf(auth).id);
  const found = list.data.find((m) => m.id === membershipId);
  if (!found) throw notFound('membership');
  return found;
}

// ── Instances, settings and keys ─────────────────────────────────────────────────────

/** What settingsView answers: every setting with its default, and the custom domain. */
const settingsSchema = instanceSettingsSchema.extend({ custom_domain: z.string().nullable() });
const instanceSchema = z.object({
  object: z.literal('instance'),
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  environment: z.enum(['test', 'live']),
  publishable_key: z.string(),
  fapi_url: z.string(),
  custom_domain: z.string().nullable(),
  settings: settingsSchema,
  created_at: z.number().int(),
});

const instanceDetail = (row: Instance) => {
  const { instance_id, ...rest } = instanceView(row);
  return { object: 'instance' as const, id: instance_id, account_id: row.accountId, ...rest, settings: settingsView(row) };
};

const createInstanceBody = z.strictObject({ name, environment: z.enum(['test', 'live']).default('test') });

const secretKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  hint: z.string(),
  scopes: z.array(z.string()),
  created_at: z.number().int(),
  last_used_at: z.number().int().nullable(),
  revoked_at: z.number().int().nullable(),
});

const createKeyBody = z.strictObject({
  name: z.string().trim().max(256).optional(),
  scopes: z.union([z.literal('*'), z.array(z.string().max(64)).min(1).max(64)]).default('*'),
});

// ── Impersonation (the BAPI's is /v1/actor_tokens) ───────────────────────────────────

const impersonateBody = z.strictObject({
  expires_in_seconds: z.number().int().min(30).max(ACTOR_TOKEN_TTL.max).default(ACTOR_TOKEN_TTL.default),
});

export const operatorConsole = {
  info: endpoint<ConsoleAuth>({
    summary: 'What the console needs to sign in: the platform instance’s publishable key and FAPI URL',
    response: consoleSchema,
    handle: async ({ auth }) => ({
      object: 'console' as const,
      platform_instance_id: auth.platform.id,
      publishable_key: auth.platform.publishableKey,
      fapi_url: auth.platform.fapiUrl,
      signed_in: auth.operatorId !== null,
    }),
  }),
  setup: endpoint<ConsoleAuth, z.output<typeof setupBody>>({
    summary: 'Claim the console with the one-time setup token: the first operator, their account, and a console session (cookie)',
    audit: { action: 'console.setup_completed', recordedBy: 'domain' },
    body: setupBody,
    response: meSchema,
    status: 201,
    handle: async ({ deps, auth, body }) => {
      const done = await completeSetup(deps, auth.platform, body, auth.request);
      auth.setConsoleCookie(done.clientToken);
      return operatorMe(deps, auth.platform.id, done.user.id);
    },
  }),
  acceptInvitation: endpoint<ConsoleAuth, z.output<typeof acceptBody>>({
    summary: 'Accept an operator invitation: as the signed-in operator, or as a new operator (password required), signed in',
    audit: { action: 'account_invitation.accepted', recordedBy: 'domain' },
    body: acceptBody,
    response: meSchema,
    handle: async ({ deps, auth, body }) => {
      const done = await acceptOperatorInvitation(deps, auth.platform, { ...body, operatorId: auth.operatorId }, auth.request);
      if (done.signedIn) auth.setConsoleCookie(done.signedIn.clientToken);
      return operatorMe(deps, auth.platform.id, done.userId);
    },
  }),
  // ── Operator and accounts ────────────────────────────────────────────────────────────
  getMe: endpoint<ConsoleAuth>({
    summary: 'The signed-in operator and their accounts with roles',
    response: meSchema,
    handle: ({ deps, auth }) => operatorMe(deps, auth.platform.id, operatorId(auth)),
  }),
};

export const consoleAccounts = {
  create: endpoint<ConsoleAuth, z.output<typeof createAccountBody>>({
    summary: 'Create an account owned by the signed-in operator',
    audit: { action: 'account.created' },
    body: createAccountBody,
    response: accountSchema,
    status: 201,
    handle: async ({ deps, auth, body, actor }) => {
      const id = operatorId(auth);
      const account = await deps.db.transaction(async (tx) => {
        const d = { ...deps, db: tx };
        const created = await createAccount(d, body.name);
        await addOperatorMembership(d, created.id, id, 'owner');
        await audit(d, { instanceId: null, action: 'account.created', target: created.id, ...auditContextOf(actor) });
        return created;
      });
      return { object: 'account' as const, id: account.id, name: account.name, role: 'owner' as const, created_at: account.createdAt };
    },
  }),
  get: endpoint<ConsoleAuth>({
    summary: 'An account and the operator’s role in it',
    response: accountSchema,
    handle: async ({ deps, auth }) => {
      const { id, role } = accountOf(auth);
      const [row] = await deps.db.select().from(accounts).where(eq(accounts.id, id));
      if (!row) throw notFound('account');
      return { object: 'account' as const, id: row.id, name: row.name, role, created_at: row.createdAt };
    },
  }),
  update: endpoint<ConsoleAuth, z.output<typeof renameBody>>({
    summary: 'Rename an account',
    audit: { action: 'account.updated', target: 'accountId' },
    body: renameBody,
    response: accountSchema,
    handle: async ({ deps, auth, body }) => {
      const { id, role } = accountOf(auth);
      const row = await renameAccount(deps, id, body.name);
      return { object: 'account' as const, id: row.id, name: row.name, role, created_at: row.createdAt };
    },
  }),
};

export const accountMembers = {
  list: endpoint<ConsoleAuth>({
    summary: 'The operators of an account',
    response: lightListSchema(memberSchema),
    handle: ({ deps, auth }) => listMembers(deps, auth.platform.id, accountOf(auth).id),
  }),
  update: endpoint<ConsoleAuth, z.output<typeof memberBody>, never, 'membershipId'>({
    summary: 'Change an operator’s role in the account (an account keeps at least one owner)',
    audit: { action: 'account_membership.updated', target: 'membershipId' },
    body: memberBody,
    response: memberSchema,
    handle: async ({ deps, auth, actor, params, body }) => {
      await changeMembership(deps, accountOf(auth).id, params.membershipId, body.role, auditContextOf(actor));
      return memberView(deps, auth, params.membershipId);
    },
  }),
  remove: endpoint<ConsoleAuth, never, never, 'membershipId'>({
    summary: 'Remove an operator from the account (not the last owner)',
    audit: { action: 'account_membership.removed', target: 'membershipId' },
    response: z.object({ object: z.literal('account_membership'), id: z.string(), deleted: z.literal(true) }),
    handle: async ({ deps, auth, actor, params }) => {
      await changeMembership(deps, accountOf(auth).id, params.membershipId, null, auditContextOf(actor));
      return { object: 'account_membership' as const, id: params.membershipId, deleted: true as const };
    },
  }),
};

export const operatorInvitations = {
  list: endpoint<ConsoleAuth>({
    summary: 'Pending operator invitations of an account',
    response: lightListSchema(invitationSchema),
    handle: ({ deps, auth }) => listOperatorInvitations(deps, accountOf(auth).id),
  }),
  create: endpoint<ConsoleAuth, z.output<typeof inviteBody>>({
    summary:
      'Invite an operator by email (template `invitation`); the answer carries the accept link once; an inviter grants at most their own role',
    audit: { action: 'account_invitation.created' },
    body: inviteBody,
    response: invitationSchema.extend({ url: z.string().describe('The accept link, in this answer only (it carries the token)') }),
    status: 201,
    handle: async ({ deps, auth, body }) => {
      const id = operatorId(auth);
      const account = accountOf(auth);
      const me = await getUser(deps, auth.platform.id, id);
      const inviterName = [me.first_name, me.last_name].filter(Boolean).join(' ') || null;
      return createOperatorInvitation(
        deps,
        auth.platform,
        {
          accountId: account.id,
          emailAddress: body.email_address,
          role: body.role,
          inviterId: id,
          inviterRole: account.role,
          inviterName,
        },
        auth.request,
      );
    },
  }),
  revoke: endpoint<ConsoleAuth, never, never, 'invitationId'>({
    summary: 'Revoke a pending invitation',
    audit: { action: 'account_invitation.revoked', target: 'invitationId' },
    response: invitationSchema,
    handle: ({ deps, auth, actor, params }) =>
      revokeOperatorInvitation(deps, accountOf(auth).id, params.invitationId, auditContextOf(actor)),
  }),
};

export const consoleInstances = {
  list: endpoint<ConsoleAuth>({
    summary: 'The instances of an account, oldest first',
    response: lightListSchema(instanceSchema),
    handle: async ({ deps, auth }) => ({
      object: 'list' as const,
      data: (await accountInstances(deps, accountOf(auth).id)).map(instanceDetail),
      has_more: false,
    }),
  }),
  create: endpoint<ConsoleAuth, z.output<typeof createInstanceBody>>({
    summary: 'Create an instance (test or live) in the account',
    audit: { action: 'instance.created' },
    body: createInstanceBody,
    response: instanceSchema,
    status: 201,
    handle: async ({ deps, auth, body, actor }) => {
      const accountId = accountOf(auth).id;
      return deps.db.transaction(async (tx) => {
        const d = { ...deps, db: tx };
        const row = await createInstance(d, { accountId, name: body.name, environment: body.environment });
        await audit(d, {
          instanceId: row.id,
          action: 'instance.created',
          target: row.id,
          details: { account_id: accountId, environment: row.environment },
          ...auditContextOf(actor),
        });
        return instanceDetail(row);
      });
    },
  }),
  get: endpoint<ConsoleAuth>({
    summary: 'An instance: publishable key, FAPI URL and settings',
    response: instanceSchema,
    handle: async ({ auth }) => instanceDetail(routeInstance(auth).row),
  }),
  update: endpoint<ConsoleAuth, z.output<typeof renameBody>>({
    summary: 'Rename an instance',
    audit: { action: 'instance.updated', target: 'instanceId' },
    body: renameBody,
    response: instanceSchema,
    handle: async ({ deps, auth, body }) => instanceDetail(await renameInstance(deps, routeInstance(auth).id, body.name)),
  }),
  delete: endpoint<ConsoleAuth>({
    summary:
      'Delete an instance: every surface answers 404 for it, its secret keys and SCIM tokens are revoked, its custom domain is freed',
    audit: { action: 'instance.deleted', target: 'instanceId' },
    response: z.object({ object: z.literal('instance'), id: z.string(), deleted: z.literal(true) }),
    handle: async ({ deps, auth }) => {
      const row = await deleteInstance(deps, routeInstance(auth).id);
      return { object: 'instance' as const, id: row.id, deleted: true as const };
    },
  }),
  updateSettings: endpoint<ConsoleAuth, z.output<typeof settingsPatchSchema>>({
    summary:
      'Change instance settings (sign-up mode, session lifetime and inactivity, MFA, allowed origins, redirect URLs, custom domain…)',
    audit: { action: 'instance.settings_updated', target: 'instanceId' },
    body: settingsPatchSchema,
    response: settingsSchema,
    handle: async ({ deps, auth, body, actor }) => {
      await assertSettingsRoles(deps, routeInstance(auth).id, body);
      return updateInstanceSettings(deps, routeInstance(auth).id, body, auditContextOf(actor));
    },
  }),
};

export const instanceKeys = {
  list: endpoint<ConsoleAuth>({
    summary: 'Secret keys of an instance (a hint only; the secret is never shown again)',
    response: lightListSchema(secretKeySchema),
    handle: async ({ deps, auth }) => ({
      object: 'list' as const,
      data: (await listSecretKeys(deps, routeInstance(auth).id)).sort((a, b) => (a.id < b.id ? -1 : 1)),
      has_more: false,
    }),
  }),
  create: endpoint<ConsoleAuth, z.output<typeof createKeyBody>>({
    summary: 'Create a scoped secret key; the secret is in this response only',
    audit: { action: 'secret_key.created' },
    body: createKeyBody,
    response: z.object({ id: z.string(), name: z.string(), secret: z.string(), scopes: z.array(z.string()), created_at: z.number().int() }),
    status: 201,
    handle: ({ deps, auth, actor, body }) =>
      createSecretKey(deps, { instanceId: routeInstance(auth).id, scopes: body.scopes, name: body.name }, auditContextOf(actor)),
  }),
  revoke: endpoint<ConsoleAuth, never, never, 'keyId'>({
    summary: 'Revoke a secret key',
    audit: { action: 'secret_key.revoked', target: 'keyId' },
    response: z.object({ id: z.string(), revoked_at: z.number().int().nullable() }),
    handle: async ({ deps, auth, actor, params }) => {
      const instance = routeInstance(auth);
      const [key] = await deps.db
        .select({ id: secretKeys.id })
        .from(secretKeys)
        .where(and(eq(secretKeys.id, params.keyId), eq(secretKeys.instanceId, instance.id)));
      if (!key) throw notFound('secret key');
      return revokeSecretKey(deps, key.id, auditContextOf(actor));
    },
  }),
};

export const impersonation = {
  start: endpoint<ConsoleAuth, z.output<typeof impersonateBody>, never, 'id'>({
    summary: 'Impersonate a user: an actor token (actor sub `operator:<user_id>`) a FAPI sign-in redeems; audited',
    audit: { action: 'impersonation.actor_token_created', target: 'id' },
    body: impersonateBody,
    response: actorTokenSchema.extend({ token: z.string() }),
    status: 201,
    handle: ({ deps, auth, actor, params, body }) =>
      createTicket(
        deps,
        routeInstance(auth).id,
        { kind: 'actor_token', userId: params.id, actor: { sub: actor.ref }, expiresInSeconds: body.expires_in_seconds },
        auditContextOf(actor),
      ).catch((e: unknown) => {
        // The user is in the path here: a missing one is 404, as on every other user route.
        if (e instanceof AppError && e.code === 'VALIDATION_FAILED' && e.meta.param === 'user_id') throw notFound('user');
        throw e;
      }),
  }),
};
