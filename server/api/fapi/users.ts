import { z } from 'zod';
import type { Deps } from '../../deps';
import { endpoint } from '../../http/endpoint';
import { auditContextOf } from '../../http/actor';
import { metadataInput } from '../../http/metadata';
import { createApiToken, listApiTokens, ME_SCOPES, revokeApiToken } from '../../users/api-tokens';
import type { SignedInAuth } from './authenticate';
import { limitMfaAttempts, meView } from '../../users/me';
import { resolvePeople } from '../../people/people';
import { beginTotpEnrollment, confirmTotp, disableTotp, regenerateBackupCodes, type MfaProof } from '../../users/mfa';
import { updateUser } from '../../users/users';
import {
  addMyIdentifier,
  assertVerifiedIdentifier,
  attemptMyVerification,
  changeMyPassword,
  deleteMyAccount,
  getMyIdentifier,
  prepareMyVerification,
  prepareReauthentication,
  removeMyIdentifier,
  type IdentifierKindName,
} from '../../users/my-account';
import { apiTokenListSchema, apiTokenSchema, emailAddressSchema, phoneNumberSchema, userSchema, username } from '../../users/schemas';
import { emailAddress, phoneNumber } from '../../email/addresses';
import { connectedAccountSchema, disconnectSocialAccount, listConnectedAccounts } from '../../users/connected-accounts';
import { storedImageResult, USER_UPLOAD, type ImageUpload } from '../../http/images';
import type { FapiAuth } from './authenticate';
import { deleteProfileImage, profileImage, profileImageUploadSchema, setProfileImage } from '../../users/profile-image';

/** FAPI endpoints of the signed-in user: profile, MFA, personal access tokens; mounted by server/api/fapi. */

export const meQuery = z.object({
  session_id: z.string().max(64).optional(),
  publishable_key: z.string().max(512).optional(),
  _is_native: z.string().max(8).optional(),
});

export type MeQuery = z.output<typeof meQuery>;

const meSchema = userSchema
  .omit({ private_metadata: true })
  .extend({
    totp_enabled: z.boolean(),
    backup_code_enabled: z.boolean(),
    create_organization_enabled: z.boolean(),
    delete_self_enabled: z.boolean(),
  })
  .meta({ id: 'Me' });

const name = z.string().trim().max(256).nullable();
export const updateMeBody = z.strictObject({
  first_name: name.optional(),
  last_name: name.optional(),
  username: username.nullable().optional(),
  unsafe_metadata: metadataInput.optional(),
  /** One of the user's verified addresses. */
  primary_email_address_id: z.string().min(1).max(64).optional(),
  /** One of the user's verified phone numbers. */
  primary_phone_number_id: z.string().min(1).max(64).optional(),
});

const code = z.string().trim().min(1).max(64);
const codeBody = z.strictObject({ code });
/** The session's reverification is the proof (the route's guard); a code or password sent as well is checked too. */
const disableBody = z
  .strictObject({ code: code.optional(), password: z.string().min(1).max(256).optional() })
  .refine((b) => b.code === undefined || b.password === undefined, {
    message: 'send code (a current TOTP code) or password, not both',
    path: ['code'],
    params: { reason: 'conflict' },
  });
const optionalCodeBody = z.strictObject({ code: code.optional() });
/** What proves a change of the user's MFA: the session's reverification, and the code or password sent with it. */
const mfaProofOf = (b: { code?: string; password?: string }): MfaProof =>
  b.code !== undefined ? { code: b.code } : b.password !== undefined ? { password: b.password } : { reverified: true };

const scopesInput = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(/[\s,]+/).filter(Boolean) : v),
  z
    .array(z.enum(ME_SCOPES))
    .min(1)
    .max(ME_SCOPES.length * 2),
);

export const createApiTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(128),
  scopes: scopesInput,
  expires_in_seconds: z.coerce
    .number()
    .int()
    .min(60)
    .max(365 * 86400)
    .optional(),
});

const meWithImpersonatorSchema = meSchema.extend({
  impersonator: z.object({ ref: z.string(), name: z.string().nullable(), email: z.string().nullable() }).nullable(),
});

/** The user as /v1/me answers it, with who impersonates them in an impersonation session (so the banner stays after an update). */
async function meWithImpersonator(deps: Deps, auth: SignedInAuth) {
  const { me } = auth;
  const [person] = me.actor ? await resolvePeople(deps, auth.instance.id, [me.actor]) : [];
  const impersonator = me.actor ? { ref: me.actor, name: person?.name ?? null, email: person?.email ?? null } : null;
  return { ...(await meView(deps, auth.instance, me.userId)), impersonator };
}

const totpEnrollmentSchema = z.object({ object: z.literal('totp'), secret: z.string(), uri: z.string(), verified: z.literal(false) });

// --- Own email addresses, password and account (the hosted profile) ---

const verificationSchema = z.object({
  object: z.literal('verification'),
  status: z.string(),
  strategy: z.string(),
  attempts: z.number().int(),
  expire_at: z.number().int().nullable(),
});

/** Add, verify (prepare + attempt) and remove: the same four endpoints for email addresses and phone numbers. */
function identifierEndpoints<K extends IdentifierKindName>(
  kind: K,
  value: z.ZodType<string>,
  schema: z.ZodType,
  what: { one: string; many: string },
) {
  const channel = kind === 'email_address' ? 'email' : 'SMS';
  const prepareBody: z.ZodType<{ strategy?: string; redirect_url?: string }> =
    kind === 'email_address'
      ? z.strictObject({
          strategy: z.enum(['email_code', 'email_link']).optional(),
          /** email_link: the app's page the link lands on once opened (required then). */
          redirect_url: z.string().max(2048).optional(),
        })
      : z.strictObject({ strategy: z.literal('phone_code').optional() });
  return {
    add: endpoint<SignedInAuth, Record<K, string>, MeQuery>({
      summary: `Add ${what.one} to the signed-in user, unverified (then prepare_verification and attempt_verification)`,
      audit: { action: `user.${kind}_added` },
      body: z.strictObject({ [kind]: value } as Record<K, z.ZodType<string>>) as unknown as z.ZodType<Record<K, string>>,
      query: meQuery,
      status: 201,
      response: schema,
      handle: ({ deps, auth, body }) => addMyIdentifier(deps, auth.instance.id, auth.me.userId, kind, body[kind]),
    }),
    get: endpoint<SignedInAuth, never, MeQuery, 'id'>({
      summary: `One of the signed-in user’s ${what.many}, with its verification (a page waiting for an emailed link polls it)`,
      query: meQuery,
      response: schema,
      handle: ({ deps, auth, params }) => getMyIdentifier(deps, auth.instance.id, auth.me.userId, kind, params.id),
    }),
    prepare: endpoint<SignedInAuth, { strategy?: string; redirect_url?: string }, MeQuery, 'id'>({
      summary:
        kind === 'email_address'
          ? `Send a verification code by email to one of the signed-in user’s unverified ${what.many}; email_link (with redirect_url) emails a link that verifies it once opened`
          : `Send a verification code by ${channel} to one of the signed-in user’s unverified ${what.many}`,
      audit: { unaudited: 'sends a code; the verification itself is audited' },
      body: prepareBody,
      query: meQuery,
      response: z.object({ verification: verificationSchema }).loose(),
      handle: ({ deps, auth, params, body, request }) =>
        prepareMyVerification(
          deps,
          auth.instance,
          auth.me.userId,
          kind,
          params.id,
          request.acceptLanguage,
          body.strategy === 'email_link' ? { redirectUrl: body.redirect_url, ip: request.ip, userAgent: request.userAgent } : undefined,
        ),
    }),
    attempt: endpoint<SignedInAuth, z.output<typeof codeBody>, MeQuery, 'id'>({
      summary: `Verify one of the signed-in user’s ${what.many} with the code sent there`,
      audit: { action: `user.${kind}_verified` },
      body: codeBody,
      query: meQuery,
      response: schema,
      handle: ({ deps, auth, params, body }) => attemptMyVerification(deps, auth.instance.id, auth.me.userId, kind, params.id, body.code),
    }),
    remove: endpoint<SignedInAuth, never, MeQuery, 'id'>({
      summary: `Remove one of the signed-in user’s ${what.many} (never the primary one)`,
      audit: { action: `user.${kind}_removed` },
      query: meQuery,
      response: z.object({ object: z.literal(kind), id: z.string(), deleted: z.literal(true) }),
      handle: ({ deps, auth, params }) => removeMyIdentifier(deps, auth.instance.id, auth.me.userId, kind, params.id),
    }),
  };
}

export const myEmailAddresses = identifierEndpoints('email_address', emailAddress, emailAddressSchema, {
  one: 'an email address',
  many: 'email addresses',
});
export const myPhoneNumbers = identifierEndpoints('phone_number', phoneNumber, phoneNumberSchema, {
  one: 'a phone number',
  many: 'phone numbers',
});

const changePasswordBody = z
  .strictObject({
    current_password: z.string().min(1).max(256).optional(),
    code,
    new_password: z.string().min(1).max(1024),
    sign_out_of_other_sessions: z.boolean().default(true),
  })
  .partial({ code: true })
  .refine((b) => b.current_password === undefined || b.code === undefined, {
    message: 'send current_password or code, not both',
    path: ['code'],
    params: { reason: 'conflict' },
  });

export const user = {
  get: endpoint<SignedInAuth, never, MeQuery>({
    summary:
      'The signed-in user (no private metadata); in an impersonation session, who impersonates (an operator by name). A session, or a uat_ token with me:read',
    query: meQuery,
    response: meWithImpersonatorSchema,
    handle: ({ deps, auth }) => meWithImpersonator(deps, auth),
  }),
  update: endpoint<SignedInAuth, z.output<typeof updateMeBody>, MeQuery>({
    summary:
      'Update the signed-in user: names, username, unsafe_metadata (merged); answers as GET /v1/me. A session, or a uat_ token with me:write',
    audit: { action: 'user.updated' },
    body: updateMeBody,
    query: meQuery,
    response: meWithImpersonatorSchema,
    handle: async ({ deps, auth, actor, body }) => {
      const { me } = auth;
      if (body.primary_email_address_id !== undefined)
        await assertVerifiedIdentifier(deps, auth.instance.id, me.userId, 'email_address', body.primary_email_address_id);
      if (body.primary_phone_number_id !== undefined)
        await assertVerifiedIdentifier(deps, auth.instance.id, me.userId, 'phone_number', body.primary_phone_number_id);
      await updateUser(deps, auth.instance.id, me.userId, body, auditContextOf(actor));
      return meWithImpersonator(deps, auth);
    },
  }),
  delete: endpoint<SignedInAuth, never, MeQuery>({
    summary: 'Delete the signed-in user’s account, when the instance allows it (user_settings.actions.delete_self)',
    audit: { action: 'user.deleted' },
    query: meQuery,
    response: z.object({ object: z.literal('user'), id: z.string(), deleted: z.literal(true) }),
    handle: ({ deps, auth }) => deleteMyAccount(deps, auth.instance, auth.me),
  }),
};

export const myTotp = {
  create: endpoint<SignedInAuth, Record<string, never>, MeQuery>({
    summary: 'Start TOTP enrollment: a new secret and its otpauth:// URI (a pending session with the setup_mfa task may call it)',
    audit: { action: 'mfa.totp_enrollment_started' },
    query: meQuery,
    response: totpEnrollmentSchema,
    handle: async ({ deps, auth }) => {
      const { me } = auth;
      return beginTotpEnrollment(deps, auth.instance, me.userId);
    },
  }),
  confirm: endpoint<SignedInAuth, z.output<typeof codeBody>, MeQuery>({
    summary: 'Confirm TOTP enrollment with a current code; answers the 10 backup codes once and activates a setup_mfa-pending session',
    audit: { action: 'mfa.totp_enabled' },
    body: codeBody,
    query: meQuery,
    response: z.object({ object: z.literal('totp'), verified: z.literal(true), backup_codes: z.array(z.string()) }),
    handle: async ({ deps, auth, actor, body }) => {
      const { me } = auth;
      await limitMfaAttempts(deps, auth.instance.id, me.userId);
      return confirmTotp(deps, auth.instance, me.userId, body.code, me.sessionId, auditContextOf(actor));
    },
  }),
  delete: endpoint<SignedInAuth, z.output<typeof disableBody>, MeQuery>({
    summary: 'Disable TOTP and drop the backup codes, for a session verified within the instance’s reverification window',
    audit: { action: 'mfa.totp_disabled' },
    body: disableBody,
    query: meQuery,
    response: z.object({ object: z.literal('totp'), deleted: z.literal(true) }),
    handle: async ({ deps, auth, body }) => {
      const { me } = auth;
      await limitMfaAttempts(deps, auth.instance.id, me.userId);
      return disableTotp(deps, auth.instance, me.userId, mfaProofOf(body));
    },
  }),
};

export const myBackupCodes = {
  regenerate: endpoint<SignedInAuth, z.output<typeof optionalCodeBody>, MeQuery>({
    summary:
      'New backup codes (the old ones stop working), for a session verified within the instance’s reverification window; answered once',
    audit: { action: 'mfa.backup_codes_regenerated' },
    body: optionalCodeBody,
    query: meQuery,
    response: z.object({ object: z.literal('backup_codes'), backup_codes: z.array(z.string()) }),
    handle: async ({ deps, auth, body }) => {
      const { me } = auth;
      await limitMfaAttempts(deps, auth.instance.id, me.userId);
      return regenerateBackupCodes(deps, auth.instance.id, me.userId, body.code !== undefined ? { code: body.code } : { reverified: true });
    },
  }),
};

export const myApiTokens = {
  create: endpoint<SignedInAuth, z.output<typeof createApiTokenBody>, MeQuery>({
    summary: 'Mint a personal access token (uat_) for the signed-in user; session only, never another token; the secret is shown once',
    audit: { action: 'api_token.created' },
    body: createApiTokenBody,
    query: meQuery,
    status: 201,
    response: apiTokenSchema.extend({ token: z.string() }),
    handle: async ({ deps, auth, body, actor }) => {
      const { me } = auth;
      return createApiToken(
        deps,
        auth.instance.id,
        { userId: me.userId, sessionId: me.sessionId!, name: body.name, scopes: body.scopes, expiresInSeconds: body.expires_in_seconds },
        auditContextOf(actor),
      );
    },
  }),
  list: endpoint<SignedInAuth, never, MeQuery>({
    summary: 'The signed-in user’s unrevoked personal access tokens (no secrets)',
    query: meQuery,
    response: apiTokenListSchema,
    handle: async ({ deps, auth }) => {
      const { me } = auth;
      return listApiTokens(deps, auth.instance.id, me.userId);
    },
  }),
  revoke: endpoint<SignedInAuth, Record<string, never>, MeQuery, 'id'>({
    summary: 'Revoke one of the signed-in user’s personal access tokens',
    audit: { action: 'api_token.revoked' },
    query: meQuery,
    response: apiTokenSchema,
    handle: async ({ deps, auth, params, actor }) => {
      const { me } = auth;
      return revokeApiToken(deps, auth.instance.id, me.userId, params.id, auditContextOf(actor));
    },
  }),
};

export const myPassword = {
  prepareReauthentication: endpoint<SignedInAuth, Record<string, never>, MeQuery>({
    summary: 'Email a code to the signed-in user’s primary address, to change the password without the current one',
    audit: { unaudited: 'sends a code; the password change is audited' },
    body: z.strictObject({}),
    query: meQuery,
    response: verificationSchema,
    handle: ({ deps, auth, request }) => {
      return prepareReauthentication(deps, auth.instance, auth.me.userId, request.acceptLanguage);
    },
  }),
  change: endpoint<SignedInAuth, z.output<typeof changePasswordBody>, MeQuery>({
    summary:
      'Change the signed-in user’s password, proved by the current password or a code from change_password/prepare; other sessions end unless sign_out_of_other_sessions is false',
    audit: { action: 'user.password_changed', recordedBy: 'domain' },
    body: changePasswordBody,
    query: meQuery,
    response: meSchema,
    handle: async ({ deps, auth, body, actor }) => {
      const { me } = auth;
      await limitMfaAttempts(deps, auth.instance.id, me.userId);
      await changeMyPassword(deps, auth.instance, me, body, auditContextOf(actor));
      return meView(deps, auth.instance, me.userId);
    },
  }),
};

export const myConnectedAccounts = {
  list: endpoint<SignedInAuth, never, MeQuery>({
    summary: 'The signed-in user’s connected accounts: social providers and enterprise SSO identities',
    query: meQuery,
    response: z.object({ object: z.literal('list'), data: z.array(connectedAccountSchema), has_more: z.boolean() }),
    handle: async ({ deps, auth }) => ({
      object: 'list' as const,
      data: await listConnectedAccounts(deps, auth.instance.id, auth.me.userId),
      has_more: false,
    }),
  }),
  disconnect: endpoint<SignedInAuth, never, MeQuery, 'id'>({
    summary: 'Disconnect one of the signed-in user’s social accounts (enterprise SSO identities belong to the organization: 404)',
    audit: { action: 'user.external_account_removed' },
    query: meQuery,
    response: z.object({ object: z.literal('connected_account'), id: z.string(), deleted: z.literal(true) }),
    handle: ({ deps, auth, params }) => disconnectSocialAccount(deps, auth.instance.id, auth.me.userId, params.id),
  }),
};

export const myProfileImage = {
  set: endpoint<SignedInAuth, ImageUpload, MeQuery>({
    summary: `Set the signed-in user’s profile image (${USER_UPLOAD})`,
    multipart: true,
    body: profileImageUploadSchema,
    query: meQuery,
    response: meSchema,
    audit: { action: 'user.profile_image_updated' },
    handle: async ({ deps, auth, body }) => {
      await setProfileImage(deps, auth.instance.id, auth.me.userId, body);
      return meView(deps, auth.instance, auth.me.userId);
    },
  }),
  delete: endpoint<SignedInAuth, Record<string, never>, MeQuery>({
    summary: 'Remove the signed-in user’s profile image',
    query: meQuery,
    response: meSchema,
    audit: { action: 'user.profile_image_deleted' },
    handle: async ({ deps, auth }) => {
      await deleteProfileImage(deps, auth.instance.id, auth.me.userId);
      return meView(deps, auth.instance, auth.me.userId);
    },
  }),
};

export const profileImages = {
  /** FAPI, public: a user's profile image at its version (immutable caching, ETag, 304), as the user's `image_url` says. */
  get: endpoint<FapiAuth, never, never, 'id' | 'version'>({
    summary: 'A user’s profile image (the URL names its version: cached for a year); 304 on a matching If-None-Match',
    response: userSchema.shape.image_url,
    handle: async ({ deps, auth, params, raw }) => {
      return storedImageResult(await profileImage(deps, auth.instance.id, params.id, params.version, raw.header('if-none-match')));
    },
  }),
};
