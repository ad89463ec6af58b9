import { eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { instanceLogos } from '../db/schema';
import { notFound } from '../http/errors';
import { acceptImage, imageUploadSchema, versionedImage, type ImageUpload } from '../http/images';
import { applicationName } from './branding-settings';
import { getInstance, type InstanceContext } from './instances';
import { instanceSettings } from './settings';
import { z } from 'zod';

/**
 * Instance branding: what end users see of the application on the hosted pages, in emails
 * and SMS. The application name (else the instance's name), the primary colour and the
 * support address live in the settings (`branding`); the logo is an uploaded image kept
 * in `instance_logos` and served by the FAPI under a URL that changes with the image.
 */

const LOGO_MAX_BYTES = 512 * 1024;
export const logoUploadSchema = imageUploadSchema(LOGO_MAX_BYTES);

/** Stores the logo after checking its size and that its bytes are the type it claims. */
export async function setLogo(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, input: ImageUpload) {
  const { bytes, contentType, version } = acceptImage(input, LOGO_MAX_BYTES, 'logo');
  const row = { instanceId, contentType, bytes, version, updatedAt: deps.clock.now() };
  await deps.db.insert(instanceLogos).values(row).onConflictDoUpdate({ target: instanceLogos.instanceId, set: row });
  return { version, content_type: contentType, size: bytes.byteLength };
}

export async function deleteLogo(deps: Pick<Deps, 'db'>, instanceId: string) {
  const gone = await deps.db
    .delete(instanceLogos)
    .where(eq(instanceLogos.instanceId, instanceId))
    .returning({ version: instanceLogos.version });
  if (gone.length === 0) throw notFound('logo');
}

async function logoVersion(deps: Pick<Deps, 'db'>, instanceId: string): Promise<string | null> {
  const [row] = await deps.db
    .select({ version: instanceLogos.version })
    .from(instanceLogos)
    .where(eq(instanceLogos.instanceId, instanceId));
  return row?.version ?? null;
}

export const logoUrl = (fapiUrl: string, version: string) => `${fapiUrl}/v1/branding/logo/${version}`;

/** What the hosted pages and messages show: the application name, logo URL, primary colour and support address. */
export async function brandingView(deps: Pick<Deps, 'db'>, instance: Pick<InstanceContext, 'id' | 'fapiUrl' | 'settings'>, name: string) {
  const version = await logoVersion(deps, instance.id);
  return {
    application_name: applicationName(name, instance.settings),
    logo_url: version ? logoUrl(instance.fapiUrl, version) : null,
    primary_color: instance.settings.branding.primary_color,
    support_email: instance.settings.branding.support_email,
  };
}

/**
 * The name end users see for an instance (the hosted pages' titles); null for an unknown or
 * deleted one, and for the console's own platform instance (its pages stay Latchkey's).
 */
export async function applicationNameOf(deps: Pick<Deps, 'db'>, instanceId: string): Promise<string | null> {
  const row = await getInstance(deps, instanceId).catch(() => null);
  return row && row.kind !== 'platform' ? applicationName(row.name, instanceSettings(row.settings)) : null;
}

/** The logo image for `GET {fapi_url}/v1/branding/logo/:version` (http/images.ts: versionedImage). */
export async function logoImage(deps: Pick<Deps, 'db'>, instanceId: string, version: string, ifNoneMatch: string | undefined) {
  const [row] = await deps.db.select().from(instanceLogos).where(eq(instanceLogos.instanceId, instanceId));
  return { ...versionedImage(row, version, ifNoneMatch), row: row! };
}

export const brandingSchema = z
  .object({
    application_name: z.string(),
    logo_url: z.string().nullable(),
    primary_color: z.string().nullable(),
    support_email: z.string().nullable(),
  })
  .meta({ id: 'Branding' });
