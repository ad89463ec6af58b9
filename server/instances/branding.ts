import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { instanceLogos } from '../db/schema';
import { AppError, notFound, validationError } from '../http/errors';
import { applicationName } from './branding-settings';
import type { InstanceContext } from './instances';

/**
 * Instance branding: what end users see of the application on the hosted pages, in emails
 * and SMS. The application name (else the instance's name), the primary colour and the
 * support address live in the settings (`branding`); the logo is an uploaded image kept
 * in `instance_logos` and served by the FAPI under a URL that changes with the image.
 */

export const LOGO_MAX_BYTES = 512 * 1024;
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'] as const;
type LogoType = (typeof LOGO_TYPES)[number];

/** The image's own type, read from its first bytes (the declared type must match it). */
function sniff(bytes: Buffer): LogoType | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  const head = bytes.subarray(0, 1024).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(head)) return 'image/svg+xml';
  return null;
}

export const logoUploadSchema = z.strictObject({
  content_type: z.enum(LOGO_TYPES),
  /** The image, base64. */
  data: z.base64().max(Math.ceil((LOGO_MAX_BYTES * 4) / 3) + 4),
});

/** Stores the logo after checking its size and that its bytes are the type it claims. */
export async function setLogo(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, input: z.output<typeof logoUploadSchema>) {
  const bytes = Buffer.from(input.data, 'base64');
  if (bytes.byteLength === 0) throw validationError('data', 'required', 'The image is empty.');
  if (bytes.byteLength > LOGO_MAX_BYTES) throw validationError('data', 'too_large', `The logo must be at most ${LOGO_MAX_BYTES / 1024} KiB.`);
  const actual = sniff(bytes);
  if (actual !== input.content_type) {
    throw validationError('data', 'type_mismatch', actual ? `The image is ${actual}, not ${input.content_type}.` : 'The image is not a PNG, JPEG, WebP or SVG file.');
  }
  const version = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const row = { instanceId, contentType: actual, bytes, version, updatedAt: deps.clock.now() };
  await deps.db.insert(instanceLogos).values(row).onConflictDoUpdate({ target: instanceLogos.instanceId, set: row });
  return { version, content_type: actual, size: bytes.byteLength };
}

export async function deleteLogo(deps: Pick<Deps, 'db'>, instanceId: string) {
  const gone = await deps.db.delete(instanceLogos).where(eq(instanceLogos.instanceId, instanceId)).returning({ version: instanceLogos.version });
  if (gone.length === 0) throw notFound('logo');
}

async function logoVersion(deps: Pick<Deps, 'db'>, instanceId: string): Promise<string | null> {
  const [row] = await deps.db.select({ version: instanceLogos.version }).from(instanceLogos).where(eq(instanceLogos.instanceId, instanceId));
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
 * The logo image for `GET {fapi_url}/v1/branding/logo/:version`: cached for a year (the URL
 * names the version), never sniffed, an SVG sandboxed. An old version is 404.
 */
export async function logoImage(deps: Pick<Deps, 'db'>, instanceId: string, version: string, ifNoneMatch: string | undefined) {
  const [row] = await deps.db.select().from(instanceLogos).where(eq(instanceLogos.instanceId, instanceId));
  if (!row || row.version !== version) throw new AppError('NOT_FOUND', { message: 'No logo with that version.' });
  const etag = `"${row.version}"`;
  const headers = {
    'cache-control': 'public, max-age=31536000, immutable',
    etag,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'cross-origin-resource-policy': 'cross-origin',
  };
  return { notModified: ifNoneMatch === etag, row, headers };
}
