import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { userImages, users } from '../db/schema';
import { emitEvent } from '../events/events';
import { notFound } from '../http/errors';
import { acceptImage, imageUploadSchema, USER_UPLOAD_MAX_BYTES, versionedImage, type ImageUpload } from '../http/images';
import { pathFapiUrl } from '../instances/custom-domain';
import { getUser } from './users';

/**
 * Profile images: uploaded by the user (FAPI) or for them (BAPI, console), checked by their
 * bytes, kept in `user_images` and served by the FAPI at a URL naming the image's version
 * (the instance's path-based FAPI URL, which a custom domain does not move). The user's
 * `image_url` is that URL; changing or removing the image is a `user.updated`.
 */

export const profileImageUploadSchema = imageUploadSchema(USER_UPLOAD_MAX_BYTES);

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

const imageUrl = (deps: Pick<Deps, 'config'>, instanceId: string, userId: string, version: string) =>
  `${pathFapiUrl(deps.config, instanceId)}/v1/users/${userId}/profile_image/${version}`;

async function setImageUrl(deps: D, instanceId: string, userId: string, url: string | null) {
  await deps.db
    .update(users)
    .set({ imageUrl: url, updatedAt: deps.clock.now() })
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  const view = await getUser(deps, instanceId, userId);
  await emitEvent({ db: deps.db, clock: deps.clock }, instanceId, 'user.updated', view);
  return view;
}

/** Replaces the user's profile image; answers the user. Call inside the route's transaction. */
export async function setProfileImage(deps: D, instanceId: string, userId: string, input: ImageUpload) {
  await getUser(deps, instanceId, userId);
  const { bytes, contentType, version } = acceptImage(input, USER_UPLOAD_MAX_BYTES, 'profile image');
  const row = { userId, instanceId, contentType, bytes, version, updatedAt: deps.clock.now() };
  await deps.db.insert(userImages).values(row).onConflictDoUpdate({ target: userImages.userId, set: row });
  return setImageUrl(deps, instanceId, userId, imageUrl(deps, instanceId, userId, version));
}

/** Removes the user's profile image (404 without one); answers the user. */
export async function deleteProfileImage(deps: D, instanceId: string, userId: string) {
  await getUser(deps, instanceId, userId);
  const gone = await deps.db
    .delete(userImages)
    .where(and(eq(userImages.userId, userId), eq(userImages.instanceId, instanceId)))
    .returning({ version: userImages.version });
  if (gone.length === 0) throw notFound('profile_image');
  return setImageUrl(deps, instanceId, userId, null);
}

/** The image for `GET {fapi_url}/v1/users/:id/profile_image/:version`: public, like the URL it is at. */
export async function profileImage(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  userId: string,
  version: string,
  ifNoneMatch: string | undefined,
) {
  const [row] = await deps.db
    .select()
    .from(userImages)
    .where(and(eq(userImages.userId, userId), eq(userImages.instanceId, instanceId)));
  return { ...versionedImage(row, version, ifNoneMatch), row: row! };
}
