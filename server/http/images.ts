import { createHash } from 'node:crypto';
import { z } from 'zod';
import { bytesResult } from './endpoint';
import { AppError, validationError } from './errors';

/**
 * Uploaded images (instance logos, profile images): checked by their own bytes, kept in the
 * database, served under a URL that names their version so that browsers cache them for ever.
 */

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** The image's own type, read from its first bytes (a declared type must match it). */
function sniffImage(bytes: Buffer): ImageType | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  const head = bytes
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(head)) return 'image/svg+xml';
  return null;
}

/** What a user uploads (a profile image, an organization's logo): under the request body's 1 MiB once base64-encoded. */
export const USER_UPLOAD_MAX_BYTES = 512 * 1024;
/** How an upload route takes a user's image (its summary says it). */
export const USER_UPLOAD =
  'PNG, JPEG, WebP or SVG, at most 512 KiB, its bytes checked against the type: JSON {content_type?, data: base64} or multipart/form-data with a `file` part';

/** `{content_type, data: base64}`; without content_type the bytes say what they are. */
export const imageUploadSchema = (maxBytes: number, types: readonly ImageType[] = IMAGE_TYPES) =>
  z.strictObject({
    content_type: z.enum(types as [ImageType, ...ImageType[]]).optional(),
    data: z
      .base64()
      .max(Math.ceil((maxBytes * 4) / 3) + 4)
      .describe('The image, base64: PNG, JPEG, WebP or SVG (422 type_mismatch otherwise), not empty (422 required)'),
  });
export type ImageUpload = { content_type?: ImageType | undefined; data: string };

/** The upload's bytes after checking its size and that they are the type declared (or one of `types`). */
export function acceptImage(input: ImageUpload, maxBytes: number, label: string, types: readonly ImageType[] = IMAGE_TYPES) {
  const bytes = Buffer.from(input.data, 'base64');
  if (bytes.byteLength === 0) throw validationError('data', 'required', 'The image is empty.');
  if (bytes.byteLength > maxBytes) throw validationError('data', 'too_large', `The ${label} must be at most ${maxBytes / 1024} KiB.`);
  const actual = sniffImage(bytes);
  if (!actual || !types.includes(actual) || (input.content_type && actual !== input.content_type)) {
    const expected = input.content_type ?? types.join(', ');
    throw validationError(
      'data',
      'type_mismatch',
      actual ? `The image is ${actual}, not ${expected}.` : `The image is not one of ${types.join(', ')}.`,
    );
  }
  const version = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return { bytes, contentType: actual, version };
}

/**
 * The response headers of a stored image at `version`: cached for a year (the URL names the
 * version), never sniffed, an SVG sandboxed; `notModified` on a matching If-None-Match. An
 * old version is 404.
 */
export function versionedImage(row: { version: string } | undefined, version: string, ifNoneMatch: string | undefined) {
  if (!row || row.version !== version) throw new AppError('NOT_FOUND', { message: 'No image with that version.' });
  const etag = `"${row.version}"`;
  const headers = {
    'cache-control': 'public, max-age=31536000, immutable',
    etag,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'cross-origin-resource-policy': 'cross-origin',
  };
  return { notModified: ifNoneMatch === etag, headers };
}

/** The answer at a stored image's URL (`versionedImage`'s outcome): its bytes, or 304 without them. */
export const storedImageResult = ({
  notModified,
  row,
  headers,
}: {
  notModified: boolean;
  row: { bytes: Uint8Array; contentType: string };
  headers: Record<string, string>;
}) => bytesResult(notModified ? new Uint8Array(0) : row.bytes, row.contentType, headers, notModified ? 304 : 200);
