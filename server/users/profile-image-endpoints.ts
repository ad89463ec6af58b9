import { endpoint, bytesResult } from '../http/endpoint';
import type { ImageUpload } from '../http/images';
import type { BapiAuth } from '../api/bapi/authenticate';
import { routeInstance, type ConsoleAuth } from '../api/dashboard/authenticate';
import type { FapiAuth, SignedInAuth } from '../api/fapi/authenticate';
import { meView } from './me';
import { meQuery, meSchema, type MeQuery } from '../api/fapi/users';
import { deleteProfileImage, profileImage, profileImageUploadSchema, setProfileImage } from './profile-image';
import { userSchema } from './schemas';

const UPLOAD = 'PNG, JPEG, WebP or SVG, at most 512 KiB, its bytes checked against the type: JSON {content_type?, data: base64} or multipart/form-data with a `file` part';

/** Set or remove a user's profile image for the BAPI and the dashboard (`params.id` is the user). */
export function profileImageEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    set: endpoint<Auth, ImageUpload>({
      summary: `Set the user’s profile image (${UPLOAD})`,
      multipart: true,
      body: profileImageUploadSchema,
      response: userSchema,
      audit: { action: 'user.profile_image_updated' },
      handle: ({ deps, auth, params, body }) => setProfileImage(deps, instanceOf(auth).id, params.id!, body),
    }),
    remove: endpoint<Auth>({
      summary: 'Remove the user’s profile image',
      response: userSchema,
      audit: { action: 'user.profile_image_deleted' },
      handle: ({ deps, auth, params }) => deleteProfileImage(deps, instanceOf(auth).id, params.id!),
    }),
  };
}

export const bapiProfileImage = profileImageEndpointsFor<BapiAuth>((auth) => auth.instance);
export const dashboardProfileImage = profileImageEndpointsFor<ConsoleAuth>(routeInstance);

export const setMyProfileImageEndpoint = endpoint<SignedInAuth, ImageUpload, MeQuery>({
  summary: `Set the signed-in user’s profile image (${UPLOAD})`,
  multipart: true,
  body: profileImageUploadSchema,
  query: meQuery,
  response: meSchema,
  audit: { action: 'user.profile_image_updated' },
  handle: async ({ deps, auth, body }) => {
    await setProfileImage(deps, auth.instance.id, auth.me.userId, body);
    return meView(deps, auth.instance.id, auth.me.userId);
  },
});

export const deleteMyProfileImageEndpoint = endpoint<SignedInAuth, Record<string, never>, MeQuery>({
  summary: 'Remove the signed-in user’s profile image',
  query: meQuery,
  response: meSchema,
  audit: { action: 'user.profile_image_deleted' },
  handle: async ({ deps, auth }) => {
    await deleteProfileImage(deps, auth.instance.id, auth.me.userId);
    return meView(deps, auth.instance.id, auth.me.userId);
  },
});

/** FAPI, public: a user's profile image at its version (immutable caching, ETag, 304), as the user's `image_url` says. */
export const profileImageEndpoint = endpoint<FapiAuth>({
  summary: 'A user’s profile image (the URL names its version: cached for a year); 304 on a matching If-None-Match',
  response: userSchema.shape.image_url,
  handle: async ({ deps, auth, params, raw }) => {
    const { notModified, row, headers } = await profileImage(deps, auth.instance.id, params.id!, params.version!, raw.header('if-none-match'));
    return notModified ? bytesResult(new Uint8Array(0), row.contentType, headers, 304) : bytesResult(row.bytes, row.contentType, headers);
  },
});
