import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { organizationLogos } from '../db/schema';
import { notFound } from '../http/errors';
import { acceptImage, imageUploadSchema, USER_UPLOAD_MAX_BYTES, versionedImage, type ImageUpload } from '../http/images';
import { pathFapiUrl } from '../instances/custom-domain';
import { loadOrganization } from './organization-view';
import { updateOrganization } from './organizations';

/**
 * Organization logos: uploaded by an admin (FAPI, Clerk's `organization.setLogo`), checked by
 * their bytes with a profile image's bounds, kept in `organization_logos` and served by the
 * FAPI at a public URL naming the image's version (the instance's path-based FAPI URL). The
 * organization's `image_url` is that URL; changing or removing the logo is an
 * `organization.updated`.
 */

export const organizationLogoUploadSchema = imageUploadSchema(USER_UPLOAD_MAX_BYTES);

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

const logoUrl = (deps: Pick<Deps, 'config'>, instanceId: string, organizationId: string, version: string) =>
  `${pathFapiUrl(deps.config, instanceId)}/v1/organization_logos/${organizationId}/${version}`;

/** Replaces the organization's logo; answers the organization. */
export async function setOrganizationLogo(deps: D, instanceId: string, idOrSlug: string, input: ImageUpload) {
  const { bytes, contentType, version } = acceptImage(input, USER_UPLOAD_MAX_BYTES, 'logo');
  return deps.db.transaction(async (tx) => {
    const org = await loadOrganization(tx, instanceId, idOrSlug, { lock: true });
    const row = { organizationId: org.id, instanceId, contentType, bytes, version, updatedAt: deps.clock.now() };
    await tx.insert(organizationLogos).values(row).onConflictDoUpdate({ target: organizationLogos.organizationId, set: row });
    return updateOrganization({ db: tx, clock: deps.clock }, instanceId, org.id, { image_url: logoUrl(deps, instanceId, org.id, version) });
  });
}

/** Removes the organization's logo (404 without one); answers the organization. */
export async function deleteOrganizationLogo(deps: D, instanceId: string, idOrSlug: string) {
  return deps.db.transaction(async (tx) => {
    const org = await loadOrganization(tx, instanceId, idOrSlug, { lock: true });
    const gone = await tx
      .delete(organizationLogos)
      .where(eq(organizationLogos.organizationId, org.id))
      .returning({ version: organizationLogos.version });
    if (gone.length === 0) throw notFound('logo');
    return updateOrganization({ db: tx, clock: deps.clock }, instanceId, org.id, { image_url: null });
  });
}

/** The image for `GET {fapi_url}/v1/organization_logos/:id/:version`: public, like the URL it is at. */
export async function organizationLogoImage(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  organizationId: string,
  version: string,
  ifNoneMatch: string | undefined,
) {
  const [row] = await deps.db
    .select()
    .from(organizationLogos)
    .where(and(eq(organizationLogos.organizationId, organizationId), eq(organizationLogos.instanceId, instanceId)));
  return { ...versionedImage(row, version, ifNoneMatch), row: row! };
}
